// SPDX-License-Identifier: MIT
// Registers the OpenEXR module's call (util/modules.h): when rsim-openexr.so is opened, or at
// start-up where this code is linked in.
#include "output/file_modules.h"

namespace rsim {

void writeImagesExr(const std::filesystem::path& file, const ResultsView& view, bool threads);

namespace {

const OpenExrCalls kCalls{&writeImagesExr};
const bool kProvided = (modules::provide("openexr", &kCalls), true);

} // namespace
} // namespace rsim
