// SPDX-License-Identifier: MIT
// timeseries.h5 through the HDF5 C API. Every array is written in stable-id order, so row k of
// every dataset is row k of triangles.csv.
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include <hdf5.h>

#include "output/output_util.h"
#include "output/results_writer.h"
#include "util/error.h"

namespace rsim {
namespace {

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

herr_t innermostMessage(unsigned n, const H5E_error2_t* err, void* data) {
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

} // namespace

void writeTimeseriesH5(const std::filesystem::path& file, const ResultsView& view) {
    const PreparedScene& ps = view.prepared;
    const SimulationResult& r = view.result;
    const std::size_t n = ps.size();
    const std::size_t t = r.timesteps;
    const bool withSeries = view.scene.output.timeseries;
    const bool withK = view.scene.output.kij && !r.K.empty();
    output::requireSize(ps.internalOf.size(), n, "internalOf");
    output::requireSize(ps.sourceMeshOfId.size(), n, "sourceMeshOfId");
    if (withSeries)
        for (auto [series, name] : {std::pair{&r.B, "B"}, {&r.Z, "Z"}, {&r.E, "E"}, {&r.R, "R"}})
            output::requireSize(series->size(), n * t, name);
    if (withK) output::requireSize(r.K.size(), n * n, "K");
    output::requireSize(r.direct.irradiance.size(), n, "direct.irradiance");
    output::requireSize(r.direct.importance.size(), n, "direct.importance");
    output::requireSize(r.direct.tLight.size(), n, "direct.tLight");
    output::requireSize(r.direct.tSensor.size(), n, "direct.tSensor");
    output::requireSize(r.distance.size(), n, "distance");
    output::requireSize(r.pathLength.size(), n, "pathLength");

    // Errors are reported through exceptions with HDF5's own message; its default handler
    // would also print a stack trace to stderr.
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
    const H5Writer h5(file.string());
    H5Id fapl(h5.check(H5Pcreate(H5P_FILE_ACCESS), "H5Pcreate"), H5Pclose);
#if H5_VERSION_GE(1, 10, 7)
    // The file is new and private to this process until the directory is renamed into place, so
    // locks protect nothing, and file systems without them (some NFS, Lustre) would fail here.
    h5.check(H5Pset_file_locking(fapl.get(), false, true), "H5Pset_file_locking");
#endif
    H5Id f(h5.check(H5Fcreate(file.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl.get()), "H5Fcreate"),
           H5Fclose);
    const hid_t root = f.get();
    const hsize_t hn = n, ht = t;

    const double dtNs = view.config.dtNs;
    const std::uint32_t timesteps = r.timesteps, samples = view.config.k.samples;
    const std::uint64_t triangles = n;
    h5.attribute(root, "dt_ns", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &dtNs);
    h5.attribute(root, "timesteps", H5T_STD_U32LE, H5T_NATIVE_UINT32, &timesteps);
    h5.attribute(root, "samples", H5T_STD_U32LE, H5T_NATIVE_UINT32, &samples);
    h5.attribute(root, "n_triangles", H5T_STD_U64LE, H5T_NATIVE_UINT64, &triangles);
    h5.attribute(root, "rsim_version", view.info.version);
    h5.attribute(
        root, "layout",
        std::string("rows are triangle ids (see triangles.csv), columns timesteps of dt_ns. "
                    "B: radiosity, Z: importance, E: light source term, R: sensor source term "
                    "(N x T). K: N x N decoded kernel, row and column are triangle ids.") +
            (withSeries ? "" : " B, Z, E, R omitted (output.timeseries = false).") +
            (withK ? "" : " K omitted (output.kij = false or no K computed)."));

    auto seriesRows = [&](const std::vector<float>& series) {
        return [&series, &ps, t](std::size_t id, float* out) {
            const float* row = series.data() + std::size_t(ps.internalOf[id]) * t;
            std::copy(row, row + t, out);
        };
    };
    if (withSeries) {
        h5.writeRowsF32(root, "B", hn, ht, seriesRows(r.B));
        h5.writeRowsF32(root, "Z", hn, ht, seriesRows(r.Z));
        h5.writeRowsF32(root, "E", hn, ht, seriesRows(r.E));
        h5.writeRowsF32(root, "R", hn, ht, seriesRows(r.R));
    }
    if (withK)
        h5.writeRowsF32(root, "K", hn, hn, [&](std::size_t a, float* out) {
            const float* row = r.K.data() + std::size_t(ps.internalOf[a]) * n;
            for (std::size_t b = 0; b < n; ++b)
                out[b] = row[ps.internalOf[b]];
        });

    {
        H5Id g = h5.group(root, "geometry");
        std::vector<float> vertices(n * 9), normal(n * 3), centroid(n * 3), area(n), refl(n);
        for (std::size_t id = 0; id < n; ++id) {
            const std::size_t i = ps.internalOf[id];
            const glm::vec3 v[3] = {ps.v0[i], ps.v1[i], ps.v2[i]};
            for (int k = 0; k < 3; ++k)
                for (int c = 0; c < 3; ++c)
                    vertices[id * 9 + std::size_t(k * 3 + c)] = v[k][c];
            for (int c = 0; c < 3; ++c) {
                normal[id * 3 + std::size_t(c)] = ps.normal[i][c];
                centroid[id * 3 + std::size_t(c)] = ps.centroid[i][c];
            }
            area[id] = ps.area[i];
            refl[id] = ps.reflectance[i];
        }
        h5.writeF32(g.get(), "vertices", {hn, 3, 3}, vertices);
        h5.writeF32(g.get(), "normal", {hn, 3}, normal);
        h5.writeF32(g.get(), "centroid", {hn, 3}, centroid);
        h5.writeF32(g.get(), "area", {hn}, area);
        h5.writeF32(g.get(), "reflectance", {hn}, refl);
        h5.writeAll(g.get(), "source_mesh", H5T_STD_U32LE, H5T_NATIVE_UINT32, {hn},
                    ps.sourceMeshOfId.data(), n);
        // source_mesh indexes this list, so the file is readable without the scene file.
        h5.strings(g.get(), "mesh_names", ps.meshNames);
        h5.check(g.close(), "H5Gclose");
    }
    {
        H5Id g = h5.group(root, "direct");
        auto byId = [&](const std::vector<float>& v) {
            std::vector<float> out(n);
            for (std::size_t id = 0; id < n; ++id)
                out[id] = v[ps.internalOf[id]];
            return out;
        };
        h5.writeF32(g.get(), "irradiance", {hn}, byId(r.direct.irradiance));
        h5.writeF32(g.get(), "importance", {hn}, byId(r.direct.importance));
        h5.writeF32(g.get(), "t_light_steps", {hn}, byId(r.direct.tLight));
        h5.writeF32(g.get(), "t_sensor_steps", {hn}, byId(r.direct.tSensor));
        h5.check(g.close(), "H5Gclose");
    }
    auto byId64 = [&](const std::vector<double>& v) {
        std::vector<double> out(n);
        for (std::size_t id = 0; id < n; ++id)
            out[id] = v[ps.internalOf[id]];
        return out;
    };
    const std::vector<double> distance = byId64(r.distance), path = byId64(r.pathLength);
    h5.writeAll(root, "distance_m", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, {hn}, distance.data(), n);
    h5.writeAll(root, "path_length_m", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, {hn}, path.data(), n);

    h5.check(f.close(), "H5Fclose");
}

} // namespace rsim
