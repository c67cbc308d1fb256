// SPDX-License-Identifier: MIT
// Whether an .h5 file of a results directory reads back (`rsim compare`'s check of a directory).
#include <algorithm>
#include <vector>

#include <hdf5.h>

#include "output/hdf5/h5_files.h"

namespace rsim {

// HDF5's own error printing is silenced meanwhile.
bool readableHdf5(const std::filesystem::path& file) {
    H5E_auto2_t func = nullptr;
    void* data = nullptr;
    H5Eget_auto2(H5E_DEFAULT, &func, &data);
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
    const hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    bool ok = f >= 0;
    if (ok) {
        // A file cut short keeps its superblock; its objects' headers are what is lost.
        H5O_info_t info;
        ok = H5Oget_info_by_name2(f, "/", &info, H5O_INFO_BASIC, H5P_DEFAULT) >= 0;
        hsize_t n = 0;
        H5G_info_t g;
        if (ok) ok = H5Gget_info_by_name(f, "/", &g, H5P_DEFAULT) >= 0, n = g.nlinks;
        // Every dataset of the root group must be readable as a whole.
        for (hsize_t k = 0; ok && k < n; ++k) {
            char name[256] = {};
            if (H5Lget_name_by_idx(f, "/", H5_INDEX_NAME, H5_ITER_INC, k, name, sizeof name, H5P_DEFAULT) < 0) {
                ok = false;
                break;
            }
            H5O_info_t oi;
            if (H5Oget_info_by_name2(f, name, &oi, H5O_INFO_BASIC, H5P_DEFAULT) < 0) {
                ok = false;
                break;
            }
            if (oi.type != H5O_TYPE_DATASET) continue;
            const hid_t d = H5Dopen2(f, name, H5P_DEFAULT);
            if (d < 0) {
                ok = false;
                break;
            }
            const hid_t space = H5Dget_space(d), type = H5Dget_type(d);
            const hssize_t count = H5Sget_simple_extent_npoints(space);
            const std::size_t size = H5Tget_size(type);
            if (count > 0 && size > 0 && double(count) * double(size) <= 256e6) {
                std::vector<unsigned char> buffer(std::size_t(count) * size);
                ok = H5Dread(d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, buffer.data()) >= 0;
                // Variable-length strings and sequences were allocated by HDF5: give them back.
                if (ok) H5Dvlen_reclaim(type, space, H5P_DEFAULT, buffer.data());
            } else if (count > 0 && size > 0) { // large: its last element, where a cut shows
                const int rank = H5Sget_simple_extent_ndims(space);
                std::vector<hsize_t> dims(std::size_t(std::max(rank, 1)), 1), last(dims.size(), 0);
                H5Sget_simple_extent_dims(space, dims.data(), nullptr);
                for (std::size_t r = 0; r < dims.size(); ++r) last[r] = dims[r] - 1;
                H5Sselect_elements(space, H5S_SELECT_SET, 1, last.data());
                const hsize_t one = 1;
                const hid_t mem = H5Screate_simple(1, &one, nullptr);
                std::vector<unsigned char> buffer(size);
                ok = H5Dread(d, type, mem, space, H5P_DEFAULT, buffer.data()) >= 0;
                if (ok) H5Dvlen_reclaim(type, mem, H5P_DEFAULT, buffer.data());
                H5Sclose(mem);
            }
            H5Tclose(type);
            H5Sclose(space);
            H5Dclose(d);
        }
        H5Fclose(f);
    }
    H5Eset_auto2(H5E_DEFAULT, func, data);
    return ok;
}

} // namespace rsim
