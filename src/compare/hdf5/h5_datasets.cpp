// SPDX-License-Identifier: MIT
// compare/h5_datasets.h's calls: the datasets of an images.h5 that `rsim compare` compares, read
// with the HDF5 C API. Built into rsim-hdf5.so (src/CMakeLists.txt), which registers them when opened.
#include <algorithm>

#include <hdf5.h>

#include "compare/h5_datasets.h"
#include "output/hdf5/h5_writer.h"

namespace rsim::compare {
namespace {

using output::H5Id;
using output::H5Writer;

// `file` opened to read, without HDF5's file locks (as rsim writes them: a shared file system may
// have none), HDF5's own error printing off (its failures come back as exceptions).
H5Id openToRead(const H5Writer& h5) {
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
    H5Id fapl(h5.check(H5Pcreate(H5P_FILE_ACCESS), "H5Pcreate"), H5Pclose);
#if H5_VERSION_GE(1, 10, 7)
    h5.check(H5Pset_file_locking(fapl.get(), false, true), "H5Pset_file_locking");
#endif
    return H5Id(h5.check(H5Fopen(h5.file().c_str(), H5F_ACC_RDONLY, fapl.get()), "H5Fopen"), H5Fclose);
}

H5DatasetInfo infoOf(const H5Writer& h5, hid_t file, const std::string& path) {
    H5Id ds(h5.check(H5Dopen2(file, path.c_str(), H5P_DEFAULT), "H5Dopen2"), H5Dclose);
    H5Id space(h5.check(H5Dget_space(ds.get()), "H5Dget_space"), H5Sclose);
    H5Id type(h5.check(H5Dget_type(ds.get()), "H5Dget_type"), H5Tclose);
    H5DatasetInfo info;
    info.path = path;
    const int rank = H5Sget_simple_extent_ndims(space.get());
    if (rank < 0) h5.fail("H5Sget_simple_extent_ndims");
    std::vector<hsize_t> dims(static_cast<std::size_t>(rank));
    if (rank > 0) h5.check(H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr), "H5Sget_simple_extent_dims");
    info.shape.assign(dims.begin(), dims.end());
    const H5T_class_t kind = H5Tget_class(type.get());
    info.numeric = kind == H5T_INTEGER || kind == H5T_FLOAT;
    return info;
}

std::vector<H5DatasetInfo> listDatasets(const std::filesystem::path& file, const std::string& path) {
    const H5Writer h5(file.string());
    H5Id f = openToRead(h5);
    // Each step of the path must exist (H5Lexists fails on a missing parent).
    auto exists = [&](const std::string& name) {
        const htri_t e = H5Lexists(f.get(), name.c_str(), H5P_DEFAULT);
        if (e < 0) h5.fail("H5Lexists");
        return e > 0;
    };
    for (std::size_t slash = path.find('/'); slash != std::string::npos; slash = path.find('/', slash + 1))
        if (!exists(path.substr(0, slash))) return {};
    if (!exists(path)) return {};
    H5O_info_t info;
    h5.check(H5Oget_info_by_name2(f.get(), path.c_str(), &info, H5O_INFO_BASIC, H5P_DEFAULT), "H5Oget_info_by_name2");
    std::vector<std::string> names;
    if (info.type == H5O_TYPE_DATASET) names.push_back(path);
    else if (info.type == H5O_TYPE_GROUP) {
        H5Id g(h5.check(H5Gopen2(f.get(), path.c_str(), H5P_DEFAULT), "H5Gopen2"), H5Gclose);
        h5.check(H5Ovisit2(
                     g.get(), H5_INDEX_NAME, H5_ITER_INC,
                     [](hid_t, const char* name, const H5O_info_t* o, void* out) -> herr_t {
                         if (o->type == H5O_TYPE_DATASET) static_cast<std::vector<std::string>*>(out)->push_back(name);
                         return 0;
                     },
                     &names, H5O_INFO_BASIC),
                 "H5Ovisit2");
        for (std::string& n : names) n = path + "/" + n;
    }
    std::sort(names.begin(), names.end());
    std::vector<H5DatasetInfo> out;
    for (const std::string& n : names) out.push_back(infoOf(h5, f.get(), n));
    return out;
}

void readRows(const std::filesystem::path& file, const std::string& path, std::uint64_t first, std::uint64_t count,
              std::vector<double>& out) {
    const H5Writer h5(file.string());
    H5Id f = openToRead(h5);
    H5Id ds(h5.check(H5Dopen2(f.get(), path.c_str(), H5P_DEFAULT), "H5Dopen2"), H5Dclose);
    H5Id space(h5.check(H5Dget_space(ds.get()), "H5Dget_space"), H5Sclose);
    const int rank = H5Sget_simple_extent_ndims(space.get());
    if (rank < 0) h5.fail("H5Sget_simple_extent_ndims");
    std::vector<hsize_t> dims(static_cast<std::size_t>(rank));
    if (rank > 0) h5.check(H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr), "H5Sget_simple_extent_dims");
    std::size_t elements = 1;
    if (rank == 0) {
        if (first != 0 || count != 1) throw Error(file.string() + ": " + path + " is a scalar: it has one row");
    } else {
        if (first + count > dims[0])
            throw Error(file.string() + ": " + path + " has " + std::to_string(dims[0]) + " rows, not " +
                        std::to_string(first + count));
        std::vector<hsize_t> start(dims.size(), 0), block = dims;
        start[0] = first;
        block[0] = count;
        for (hsize_t d : block) elements *= std::size_t(d);
        h5.check(H5Sselect_hyperslab(space.get(), H5S_SELECT_SET, start.data(), nullptr, block.data(), nullptr),
                 "H5Sselect_hyperslab");
    }
    out.resize(elements);
    if (elements == 0) return;
    const hsize_t n = elements;
    H5Id memory(h5.check(H5Screate_simple(1, &n, nullptr), "H5Screate_simple"), H5Sclose);
    h5.check(H5Dread(ds.get(), H5T_NATIVE_DOUBLE, rank == 0 ? output::kAllOfSpace : memory.get(),
                     rank == 0 ? output::kAllOfSpace : space.get(), H5P_DEFAULT, out.data()),
             "H5Dread");
}

const H5DatasetCalls kCalls{&listDatasets, &readRows};
const bool kProvided = (modules::provide("hdf5-datasets", &kCalls), true);

} // namespace
} // namespace rsim::compare
