// SPDX-License-Identifier: MIT
// Registers the HDF5 module's calls (util/modules.h): when rsim-hdf5.so is opened, or at
// start-up where this code is linked in.
#include "output/file_modules.h"
#include "output/hdf5/h5_files.h"
#include "output/hdf5/h5_writer.h"

namespace rsim {
namespace {

const Hdf5Calls kCalls{&output::hdf5ThreadSafe, &writeTimeseriesH5, &writeImagesH5, &writeBatchH5, &readableHdf5};
const bool kProvided = (modules::provide("hdf5", &kCalls), true);

} // namespace
} // namespace rsim
