// SPDX-License-Identifier: MIT
// What `rsim compare` reads of an images.h5 (compare/datasets.cpp): the datasets under a group
// and their values a block of rows at a time. HDF5 code, so in the HDF5 module (util/modules.h):
// compare/hdf5/ is built into rsim-hdf5.so beside output/hdf5/, and registers these calls as
// "hdf5-datasets" when it is opened.
#pragma once
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "output/file_modules.h"
#include "util/modules.h"

namespace rsim::compare {

struct H5DatasetInfo {
    std::string path;                 // in the file: "amcw/taps", "transient"
    std::vector<std::uint64_t> shape; // empty: a scalar
    bool numeric = true;              // integers or floats; strings and compounds are compared by shape only
};

struct H5DatasetCalls {
    // Every dataset under `path` (a group, its subgroups included) or `path` itself (a dataset),
    // sorted by path; none when `file` has no such object. Throws Error when `file` or one of
    // those objects cannot be read.
    std::vector<H5DatasetInfo> (*list)(const std::filesystem::path& file, const std::string& path);
    // Rows [first, first + count) of the numeric dataset `path`'s first dimension (a scalar has
    // one row), row-major, converted to double, into `out`. Throws Error when they cannot be read.
    void (*readRows)(const std::filesystem::path& file, const std::string& path, std::uint64_t first,
                     std::uint64_t count, std::vector<double>& out);
};

// The calls, once the HDF5 module is open (it registers them beside its own).
inline const H5DatasetCalls& h5Datasets() {
    hdf5();
    return modules::calls<H5DatasetCalls>("hdf5-datasets");
}

} // namespace rsim::compare
