// SPDX-License-Identifier: MIT
// The functions of the HDF5 module (output/file_modules.h's Hdf5Calls), each in its own file here.
#pragma once
#include <filesystem>

#include "output/batch_h5.h"
#include "output/results_writer.h"

namespace rsim {

void writeTimeseriesH5(const std::filesystem::path& file, const ResultsView& view);
void writeImagesH5(const std::filesystem::path& file, const ResultsView& view);
void writeBatchH5(const std::filesystem::path& file, const BatchTables& tables);
bool readableHdf5(const std::filesystem::path& file);

} // namespace rsim
