// SPDX-License-Identifier: MIT
// A small checked layer over the HDF5 C API for the writers of timeseries.h5 and batch.h5:
// every call's failure throws rsim::Error with HDF5's own innermost message.
#pragma once
#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <hdf5.h>
#include <isa-l/igzip_lib.h>

#include "util/error.h"
#include "util/parallel.h"

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
// or after close() has already reported. What a failed close pushes on HDF5's error stack is
// cleared there (the stack's strings would otherwise outlive the thread: a leak).
class H5Id {
  public:
    using Closer = herr_t (*)(hid_t);
    H5Id(hid_t id, Closer closer) : id_(id), closer_(closer) {}
    ~H5Id() {
        if (id_ >= 0 && closer_(id_) < 0) H5Eclear2(H5E_DEFAULT);
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

// The system's words in HDF5's message of a failed read or write ("file write failed: time =
// ..., errno = 28, error message = 'No space left on device', ..."), or the message as it is.
inline std::string systemReason(const std::string& detail) {
    const std::string tag = "error message = '";
    const std::size_t at = detail.find(tag);
    if (at == std::string::npos) return detail;
    const std::size_t from = at + tag.size(), to = detail.find('\'', from);
    return to == std::string::npos ? detail : detail.substr(from, to - from);
}

class H5Writer {
  public:
    explicit H5Writer(std::string file) : file_(std::move(file)) {}
    const std::string& file() const { return file_; }

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
        detail = systemReason(detail);
        throw Error(file_ + ": HDF5 " + call + " failed" +
                    (detail.empty() ? std::string() : " (" + detail + ")"));
    }

    // Creates (truncates) the writer's file. Errors come back as exceptions with HDF5's own
    // message; its default handler would also print a stack trace to stderr. The file is new
    // and private to this process until its directory is renamed into place, so locks protect
    // nothing, and file systems without them (some NFS, Lustre) would fail.
    H5Id createFile() const {
        H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
        H5Id fapl(check(H5Pcreate(H5P_FILE_ACCESS), "H5Pcreate"), H5Pclose);
#if H5_VERSION_GE(1, 10, 7)
        check(H5Pset_file_locking(fapl.get(), false, true), "H5Pset_file_locking");
#endif
        return H5Id(check(H5Fcreate(file_.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl.get()), "H5Fcreate"), H5Fclose);
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

    // `chunkRows` > 0: a dataset of 2 or more dimensions stored in chunks of that many rows
    // (indices of the first dimension), byte-shuffled and deflated (level 1: fast, and the sparse
    // sources E and R shrink to almost nothing), when the library has the deflate filter;
    // readers (h5py, MATLAB) decompress transparently.
    H5Id dataset(hid_t parent, const char* name, hid_t fileType, const std::vector<hsize_t>& dims,
                 hsize_t chunkRows = 0) const {
        H5Id sp = space(dims);
        H5Id dcpl(check(H5Pcreate(H5P_DATASET_CREATE), "H5Pcreate"), H5Pclose);
        const bool empty = std::find(dims.begin(), dims.end(), hsize_t(0)) != dims.end();
        if (chunkRows > 0 && dims.size() >= 2 && !empty && H5Zfilter_avail(H5Z_FILTER_DEFLATE) > 0) {
            std::vector<hsize_t> chunk = dims;
            chunk[0] = std::min(chunkRows, dims[0]);
            check(H5Pset_chunk(dcpl.get(), int(chunk.size()), chunk.data()), "H5Pset_chunk");
            check(H5Pset_shuffle(dcpl.get()), "H5Pset_shuffle");
            check(H5Pset_deflate(dcpl.get(), 1), "H5Pset_deflate");
        }
        return H5Id(check(H5Dcreate2(parent, name, fileType, sp.get(), H5P_DEFAULT, dcpl.get(), H5P_DEFAULT),
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

    void writeF64(hid_t parent, const char* name, const std::vector<hsize_t>& dims,
                  const std::vector<double>& data) const {
        writeAll(parent, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, dims, data.data(), data.size());
    }

    // A rows x cols float32 dataset filled a row at a time by fill(row, out[cols]), so that N x T
    // and N x N arrays are permuted into stable-id order without a second full copy.
    struct RowsF32 {
        const char* name;
        hsize_t rows, cols;
        std::function<void(std::size_t, float*)> fill;
    };

    // Datasets of `parent` stored in chunks of whole rows (compressedChunkRows), shuffled and
    // deflated; every dataset's chunks are filtered together, so a small run's series take one
    // round of the cores instead of one each. Plain blocks of rows where HDF5 has no deflate filter.
    void writeCompressedRows(hid_t parent, const std::vector<RowsF32>& sets) const {
        std::vector<H5Id> datasets;
        std::vector<ChunkedRows> chunked;
        const bool filter = H5Zfilter_avail(H5Z_FILTER_DEFLATE) > 0;
        for (const RowsF32& s : sets) {
            const hsize_t chunkRows = compressedChunkRows(s.rows, s.cols);
            datasets.push_back(dataset(parent, s.name, H5T_IEEE_F32LE, {s.rows, s.cols}, chunkRows));
            if (filter)
                chunked.push_back({datasets.back().get(), s.rows, s.cols, std::min(chunkRows, s.rows), s.fill});
            else
                writePlainRows(datasets.back().get(), s.rows, s.cols, s.fill);
        }
        writeChunks(chunked);
        for (H5Id& ds : datasets) check(ds.close(), "H5Dclose");
    }

    // Rows per chunk of a compressed rows x cols float32 dataset: about a sixteenth of it, at least
    // 64 KiB and at most 1 MiB, so that a small run's series are filtered on many cores as well
    // (the tiny room's B, 2.3 MB, in 17 chunks instead of 3). The same on every machine.
    static hsize_t compressedChunkRows(hsize_t rows, hsize_t cols) {
        const hsize_t rowBytes = 4 * std::max<hsize_t>(cols, 1);
        const hsize_t bytes = std::clamp<hsize_t>(rows * rowBytes / 16, hsize_t(64) << 10, hsize_t(1) << 20);
        return std::max<hsize_t>(1, bytes / rowBytes);
    }

    // A shuffle + deflate dataset of rows x cols float32 in chunks of `chunkRows` whole rows (cols:
    // the product of every dimension after the first, for more than two), filled by fill(row, out[cols]).
    struct ChunkedRows {
        hid_t dataset;
        hsize_t rows, cols, chunkRows;
        std::function<void(std::size_t, float*)> fill;
    };

    // The chunks of every dataset of `sets`, filtered on all cores (the HDF5 library runs its
    // filters on one) and written with H5Dwrite_chunk as if the library had filtered them: readers
    // see ordinary compressed datasets. Each core keeps its buffers and compressor from chunk to
    // chunk; at most about 64 MiB of chunks are held at once.
    void writeChunks(const std::vector<ChunkedRows>& sets) const {
        struct Job {
            std::size_t set;
            hsize_t chunk;
        };
        std::vector<Job> jobs;
        for (std::size_t s = 0; s < sets.size(); ++s)
            if (sets[s].cols > 0)
                for (hsize_t c = 0; c * sets[s].chunkRows < sets[s].rows; ++c) jobs.push_back({s, c});
        auto chunkFloats = [&](const Job& j) { return std::size_t(sets[j.set].chunkRows * sets[j.set].cols); };
        struct Worker {
            std::vector<float> values;
            std::vector<unsigned char> shuffled, deflateLevel;
        };
        std::vector<Worker> workers(threadCount());
        std::vector<std::vector<unsigned char>> packed;
        std::vector<std::vector<hsize_t>> offsets; // each set's chunk offset: its first row, then 0s
        for (const ChunkedRows& d : sets) {
            H5Id space(check(H5Dget_space(d.dataset), "H5Dget_space"), H5Sclose);
            offsets.emplace_back(std::size_t(std::max(1, H5Sget_simple_extent_ndims(space.get()))), 0);
        }
        constexpr std::size_t kBatchFloats = std::size_t(16) << 20; // 64 MiB of chunks at a time
        for (std::size_t j0 = 0, j1 = 0; j0 < jobs.size(); j0 = j1) {
            for (std::size_t floats = 0; j1 < jobs.size() && (j1 == j0 || floats + chunkFloats(jobs[j1]) <= kBatchFloats);)
                floats += chunkFloats(jobs[j1++]);
            packed.resize(std::max(packed.size(), j1 - j0));
            parallelFor(j1 - j0, 1, [&](std::size_t begin, std::size_t end, unsigned w) {
                Worker& worker = workers[w];
                for (std::size_t k = begin; k < end; ++k) {
                    const Job& job = jobs[j0 + k];
                    const ChunkedRows& d = sets[job.set];
                    const std::size_t floats = chunkFloats(job);
                    // Edge chunks are stored whole: the rows past the end are zeros.
                    worker.values.assign(floats, 0.0f);
                    for (hsize_t r = 0; r < d.chunkRows && job.chunk * d.chunkRows + r < d.rows; ++r)
                        d.fill(std::size_t(job.chunk * d.chunkRows + r), &worker.values[std::size_t(r * d.cols)]);
                    // HDF5's shuffle: byte b of every element, for b = 0..3 (little-endian floats).
                    worker.shuffled.resize(floats * 4);
                    const auto* bytes = reinterpret_cast<const unsigned char*>(worker.values.data());
                    for (std::size_t e = 0; e < floats; ++e)
                        for (std::size_t b = 0; b < 4; ++b) worker.shuffled[b * floats + e] = bytes[e * 4 + b];
                    deflateChunk(worker.shuffled, worker.deflateLevel, packed[k]);
                }
            });
            for (std::size_t j = j0; j < j1; ++j) {
                std::vector<hsize_t>& offset = offsets[jobs[j].set];
                offset[0] = jobs[j].chunk * sets[jobs[j].set].chunkRows;
                check(H5Dwrite_chunk(sets[jobs[j].set].dataset, H5P_DEFAULT, 0, offset.data(), packed[j - j0].size(),
                                     packed[j - j0].data()),
                      "H5Dwrite_chunk");
            }
        }
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

    // A string attribute of the dataset `name` of `parent`.
    void datasetAttribute(hid_t parent, const char* name, const char* key, const std::string& value) const {
        H5Id ds(check(H5Dopen2(parent, name, H5P_DEFAULT), "H5Dopen2"), H5Dclose);
        attribute(ds.get(), key, value);
        check(ds.close(), "H5Dclose");
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
    // `in` deflated into `out` in the zlib format that HDF5's deflate filter reads, by ISA-L's
    // igzip at level 1: 3.7 times as fast as libdeflate's level 1 on the series' shuffled floats
    // (575 against 155 MB/s a core for the small room's B, development machine), for 4% more bytes.
    // `level`: the compressor's work space, kept by the caller from chunk to chunk.
    void deflateChunk(const std::vector<unsigned char>& in, std::vector<unsigned char>& level,
                      std::vector<unsigned char>& out) const {
        if (in.size() > UINT32_MAX / 2) throw Error(file_ + ": a chunk of " + std::to_string(in.size()) + " bytes is too large");
        level.resize(ISAL_DEF_LVL1_DEFAULT);
        out.resize(in.size() + in.size() / 8 + 1024);
        for (;;) {
            isal_zstream z;
            isal_deflate_stateless_init(&z);
            z.level = 1;
            z.level_buf = level.data();
            z.level_buf_size = std::uint32_t(level.size());
            z.gzip_flag = IGZIP_ZLIB;
            z.end_of_stream = 1;
            z.flush = NO_FLUSH;
            z.next_in = const_cast<std::uint8_t*>(in.data()); // ISA-L's input pointer is not const
            z.avail_in = std::uint32_t(in.size());
            z.next_out = out.data();
            z.avail_out = std::uint32_t(std::min<std::size_t>(out.size(), UINT32_MAX));
            const int status = isal_deflate_stateless(&z);
            if (status == COMP_OK) {
                out.resize(z.total_out);
                return;
            }
            if (status != STATELESS_OVERFLOW)
                throw Error(file_ + ": a chunk could not be compressed (ISA-L status " + std::to_string(status) + ")");
            out.resize(out.size() * 2);
        }
    }

    // rows x cols float32 written in blocks of rows (16 MiB), filled by fill(row, out[cols]).
    void writePlainRows(hid_t ds, hsize_t rows, hsize_t cols, const std::function<void(std::size_t, float*)>& fill) const {
        if (rows == 0 || cols == 0) return;
        H5Id fileSpace(check(H5Dget_space(ds), "H5Dget_space"), H5Sclose);
        constexpr hsize_t kBlockFloats = hsize_t(16) << 20 >> 2; // 16 MiB per block
        const hsize_t blockRows = std::clamp<hsize_t>(kBlockFloats / cols, 1, rows);
        std::vector<float> buf(std::size_t(blockRows * cols));
        for (hsize_t r0 = 0; r0 < rows; r0 += blockRows) {
            const hsize_t nr = std::min(blockRows, rows - r0);
            for (hsize_t r = 0; r < nr; ++r)
                fill(std::size_t(r0 + r), &buf[r * cols]);
            H5Id memSpace = space({nr, cols});
            const hsize_t start[2] = {r0, 0}, count[2] = {nr, cols};
            check(H5Sselect_hyperslab(fileSpace.get(), H5S_SELECT_SET, start, nullptr, count, nullptr),
                  "H5Sselect_hyperslab");
            check(H5Dwrite(ds, H5T_NATIVE_FLOAT, memSpace.get(), fileSpace.get(), H5P_DEFAULT, buf.data()),
                  "H5Dwrite");
        }
    }

    std::string file_;
};


} // namespace rsim::output
