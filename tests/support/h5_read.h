// SPDX-License-Identifier: MIT
// Reading a whole HDF5 dataset in a test.
#pragma once
#include <filesystem>
#include <vector>

#include <catch2/catch_test_macros.hpp>
#include <hdf5.h>

namespace rsim::test {

// A whole dataset of `file`, converted to `memType`; its dimensions in `dims`.
template <class T>
std::vector<T> readAll(const std::filesystem::path& file, const char* name, hid_t memType, std::vector<hsize_t>* dims = nullptr) {
    hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    REQUIRE(f >= 0);
    hid_t ds = H5Dopen2(f, name, H5P_DEFAULT);
    INFO(name);
    REQUIRE(ds >= 0);
    hid_t space = H5Dget_space(ds);
    std::vector<hsize_t> d(std::size_t(H5Sget_simple_extent_ndims(space)));
    H5Sget_simple_extent_dims(space, d.data(), nullptr);
    std::size_t count = 1;
    for (hsize_t x : d) count *= std::size_t(x);
    std::vector<T> out(count);
    REQUIRE(H5Dread(ds, memType, H5S_ALL, H5S_ALL, H5P_DEFAULT, out.data()) >= 0);
    H5Sclose(space);
    H5Dclose(ds);
    H5Fclose(f);
    if (dims) *dims = d;
    return out;
}

} // namespace rsim::test
