// SPDX-License-Identifier: MIT
// A small checked layer over the HDF5 C API for the writers of timeseries.h5 and batch.h5:
// every call's failure throws rsim::Error with HDF5's own innermost message.
#pragma once
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include <hdf5.h>

#include "util/error.h"

namespace rsim::output {

// Whether the HDF5 library may be called from several threads at once (Debian's is built so).
inline bool hdf5ThreadSafe() {
    hbool_t safe = 0;
    return H5is_library_threadsafe(&safe) >= 0 && safe;
}

// Two HDF5 macros are C casts; spelled once here so that -Wold-style-cast stays quiet when the
// HDF5 headers are not on a system include path.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wold-style-cast"
constexpr hid_t kAllOfSpace = H5S_ALL;
constexpr std::size_t kVariableLength = H5T_VARIABLE;
#pragma GCC diagnostic pop

// Owns one HDF5 identifier. The destructor's close is unchecked: it only runs on the error path
// or after close() has already reported.
class H5Id {
  public:
    using Closer = herr_t (*)(hid_t);
    H5Id(hid_t id, Closer closer) : id_(id), closer_(closer) {}
    ~H5Id() {
        if (id_ >= 0) closer_(id_);
    }
    H5Id(H5Id&& other) noexcept
        : id_(std::exchange(other.id_, H5I_INVALID_HID)), closer_(other.closer_) {}
    H5Id(const H5Id&) = delete;
    H5Id& operator=(const H5Id&) = delete;
    H5Id& operator=(H5Id&&) = delete;
    hid_t get() const { return id_; }
    herr_t close() { return closer_(std::exchange(id_, H5I_INVALID_HID)); }

  private:
    hid_t id_;
    Closer closer_;
};

inline herr_t innermostMessage(unsigned n, const H5E_error2_t* err, void* data) {
    if (n == 0 && err->desc) *static_cast<std::string*>(data) = err->desc;
    return 0;
}

class H5Writer {
  public:
    explicit H5Writer(std::string file) : file_(std::move(file)) {}

    hid_t check(hid_t id, const char* call) const {
        if (id < 0) fail(call);
        return id;
    }
    void check(herr_t status, const char* call) const {
        if (status < 0) fail(call);
    }

    // HDF5 keeps its own error stack; its innermost message says why (e.g. "unable to open
    // file"), which the user needs more than which call failed.
    [[noreturn]] void fail(const char* call) const {
        std::string detail;
        H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, innermostMessage, &detail);
        H5Eclear2(H5E_DEFAULT);
        throw Error(file_ + ": HDF5 " + call + " failed" +
                    (detail.empty() ? std::string() : " (" + detail + ")"));
    }

    H5Id space(const std::vector<hsize_t>& dims) const {
        return H5Id(
            check(H5Screate_simple(int(dims.size()), dims.data(), nullptr), "H5Screate_simple"),
            H5Sclose);
    }

    H5Id group(hid_t parent, const char* name) const {
        return H5Id(
            check(H5Gcreate2(parent, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), "H5Gcreate2"),
            H5Gclose);
    }

    H5Id dataset(hid_t parent, const char* name, hid_t fileType,
                 const std::vector<hsize_t>& dims) const {
        H5Id sp = space(dims);
        return H5Id(check(H5Dcreate2(parent, name, fileType, sp.get(), H5P_DEFAULT, H5P_DEFAULT,
                                     H5P_DEFAULT),
                          "H5Dcreate2"),
                    H5Dclose);
    }

    // A whole dataset from one buffer of `count` elements (count may be 0).
    void writeAll(hid_t parent, const char* name, hid_t fileType, hid_t memType,
                  const std::vector<hsize_t>& dims, const void* data, std::size_t count) const {
        H5Id ds = dataset(parent, name, fileType, dims);
        if (count > 0)
            check(H5Dwrite(ds.get(), memType, kAllOfSpace, kAllOfSpace, H5P_DEFAULT, data),
                  "H5Dwrite");
        check(ds.close(), "H5Dclose");
    }

    void writeF32(hid_t parent, const char* name, const std::vector<hsize_t>& dims,
                  const std::vector<float>& data) const {
        writeAll(parent, name, H5T_IEEE_F32LE, H5T_NATIVE_FLOAT, dims, data.data(), data.size());
    }

    // rows x cols float32, filled a block of rows at a time by fill(row, out[cols]), so that
    // N x T and N x N arrays are permuted into stable-id order without a second full copy.
    template <class Fill>
    void writeRowsF32(hid_t parent, const char* name, hsize_t rows, hsize_t cols, Fill fill) const {
        H5Id ds = dataset(parent, name, H5T_IEEE_F32LE, {rows, cols});
        if (rows > 0 && cols > 0) {
            H5Id fileSpace(check(H5Dget_space(ds.get()), "H5Dget_space"), H5Sclose);
            constexpr hsize_t kBlockFloats = hsize_t(16) << 20 >> 2; // 16 MiB per block
            const hsize_t blockRows = std::clamp<hsize_t>(kBlockFloats / cols, 1, rows);
            std::vector<float> buf(std::size_t(blockRows * cols));
            for (hsize_t r0 = 0; r0 < rows; r0 += blockRows) {
                const hsize_t nr = std::min(blockRows, rows - r0);
                for (hsize_t r = 0; r < nr; ++r)
                    fill(std::size_t(r0 + r), &buf[r * cols]);
                H5Id memSpace = space({nr, cols});
                const hsize_t start[2] = {r0, 0}, count[2] = {nr, cols};
                check(H5Sselect_hyperslab(fileSpace.get(), H5S_SELECT_SET, start, nullptr, count,
                                          nullptr),
                      "H5Sselect_hyperslab");
                check(H5Dwrite(ds.get(), H5T_NATIVE_FLOAT, memSpace.get(), fileSpace.get(),
                               H5P_DEFAULT, buf.data()),
                      "H5Dwrite");
            }
        }
        check(ds.close(), "H5Dclose");
    }

    void attribute(hid_t obj, const char* name, hid_t fileType, hid_t memType,
                   const void* value) const {
        H5Id sp(check(H5Screate(H5S_SCALAR), "H5Screate"), H5Sclose);
        H5Id attr(check(H5Acreate2(obj, name, fileType, sp.get(), H5P_DEFAULT, H5P_DEFAULT),
                        "H5Acreate2"),
                  H5Aclose);
        check(H5Awrite(attr.get(), memType, value), "H5Awrite");
        check(attr.close(), "H5Aclose");
    }

    // Variable-length UTF-8, which h5py returns as str rather than bytes.
    H5Id stringType() const {
        H5Id type(check(H5Tcopy(H5T_C_S1), "H5Tcopy"), H5Tclose);
        check(H5Tset_size(type.get(), kVariableLength), "H5Tset_size");
        check(H5Tset_cset(type.get(), H5T_CSET_UTF8), "H5Tset_cset");
        return type;
    }

    void attribute(hid_t obj, const char* name, const std::string& value) const {
        H5Id type = stringType();
        const char* p = value.c_str();
        attribute(obj, name, type.get(), type.get(), &p);
    }

    void strings(hid_t parent, const char* name, const std::vector<std::string>& values) const {
        H5Id type = stringType();
        std::vector<const char*> ptrs;
        for (const auto& s : values)
            ptrs.push_back(s.c_str());
        writeAll(parent, name, type.get(), type.get(), {hsize_t(values.size())}, ptrs.data(),
                 ptrs.size());
    }

  private:
    std::string file_;
};


} // namespace rsim::output
