// SPDX-License-Identifier: MIT
// timeseries.h5 through the HDF5 C API. Every array is written in stable-id order, so row k of
// every dataset is row k of triangles.csv.
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "output/hdf5/h5_writer.h"

#include "output/output_util.h"
#include "output/hdf5/h5_files.h"
#include "output/results_writer.h"
#include "util/error.h"

namespace rsim {

using output::H5Id;
using output::H5Writer;
using output::kAllOfSpace;

namespace {

// The sizes of what is written, checked against the scene's N and T before the file is created.
void requireSizes(const ResultsView& view, bool withSeries, bool withK) {
    const PreparedScene& ps = view.prepared;
    const SimulationResult& r = view.result;
    const std::size_t n = ps.size();
    const std::size_t t = r.timesteps;
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
}

// The root's attributes: the time grid, the sizes, rsim's version and the layout in words.
void writeRootAttributes(const H5Writer& h5, hid_t root, const ResultsView& view, bool withSeries, bool withK) {
    const SimulationResult& r = view.result;
    const double dtNs = view.config.dtNs;
    const std::uint32_t timesteps = r.timesteps, samples = view.config.k.samples;
    const std::uint64_t triangles = view.prepared.size();
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
}

// B, Z, E, R (N x T) and the decoded K (N x N), rows and columns in stable-id order, with their units.
void writeSeriesAndK(const H5Writer& h5, hid_t root, const ResultsView& view, bool withSeries, bool withK) {
    const PreparedScene& ps = view.prepared;
    const SimulationResult& r = view.result;
    const std::size_t n = ps.size();
    const std::size_t t = r.timesteps;
    const hsize_t hn = n, ht = t;
    auto seriesRows = [&](const std::vector<float>& series) {
        return [&series, &ps, t](std::size_t id, float* out) {
            const float* row = series.data() + std::size_t(ps.internalOf[id]) * t;
            std::copy(row, row + t, out);
        };
    };
    // Compressed (shuffle + deflate, on all cores, the series and K together): the sources, a
    // few non-zero bins per row, take almost nothing.
    std::vector<H5Writer::RowsF32> rows;
    if (withSeries)
        for (auto [series, name] : {std::pair{&r.B, "B"}, {&r.Z, "Z"}, {&r.E, "E"}, {&r.R, "R"}})
            rows.push_back({name, hn, ht, seriesRows(*series)});
    if (withK)
        rows.push_back({"K", hn, hn, [&](std::size_t a, float* out) {
                            const float* row = r.K.data() + std::size_t(ps.internalOf[a]) * n;
                            for (std::size_t b = 0; b < n; ++b)
                                out[b] = row[ps.internalOf[b]];
                        }});
    h5.writeCompressedRows(root, rows);
    if (withSeries) {
        // Per time bin of dt_ns; summed over the bins, B and E are the steady-state radiosity
        // and source of a continuous light of the same power (docs/model-choices.md).
        h5.datasetAttribute(root, "B", "units", "W m-2 per time bin");
        h5.datasetAttribute(root, "E", "units", "W m-2 per time bin");
        h5.datasetAttribute(root, "Z", "units", "1 per time bin (sensor importance)");
        h5.datasetAttribute(root, "R", "units", "1 per time bin (sensor importance)");
    }
    if (withK) h5.datasetAttribute(root, "K", "units", "m-2 (F_ij = K_ij A_j)");
}

// Group geometry: each triangle's vertices, normal, centroid, area, reflectance and source mesh.
void writeGeometryGroup(const H5Writer& h5, hid_t root, const PreparedScene& ps) {
    const std::size_t n = ps.size();
    const hsize_t hn = n;
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

// Group direct: each triangle's direct terms and delays.
void writeDirectGroup(const H5Writer& h5, hid_t root, const PreparedScene& ps, const SimulationResult& r) {
    const std::size_t n = ps.size();
    const hsize_t hn = n;
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

// Each triangle's distance and path length, in double.
void writeDistances(const H5Writer& h5, hid_t root, const PreparedScene& ps, const SimulationResult& r) {
    const std::size_t n = ps.size();
    const hsize_t hn = n;
    auto byId64 = [&](const std::vector<double>& v) {
        std::vector<double> out(n);
        for (std::size_t id = 0; id < n; ++id)
            out[id] = v[ps.internalOf[id]];
        return out;
    };
    const std::vector<double> distance = byId64(r.distance), path = byId64(r.pathLength);
    h5.writeAll(root, "distance_m", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, {hn}, distance.data(), n);
    h5.writeAll(root, "path_length_m", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, {hn}, path.data(), n);
    h5.datasetAttribute(root, "distance_m", "units", "m");
    h5.datasetAttribute(root, "path_length_m", "units", "m");
}

} // namespace

void writeTimeseriesH5(const std::filesystem::path& file, const ResultsView& view) {
    const bool withSeries = view.scene.output.timeseries;
    const bool withK = view.scene.output.kij && !view.result.K.empty();
    requireSizes(view, withSeries, withK);

    const H5Writer h5(file.string());
    H5Id f = h5.createFile();
    const hid_t root = f.get();
    writeRootAttributes(h5, root, view, withSeries, withK);
    writeSeriesAndK(h5, root, view, withSeries, withK);
    writeGeometryGroup(h5, root, view.prepared);
    writeDirectGroup(h5, root, view.prepared, view.result);
    writeDistances(h5, root, view.prepared, view.result);
    h5.check(f.close(), "H5Fclose");
}

} // namespace rsim
