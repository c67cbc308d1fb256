// SPDX-License-Identifier: MIT
// rsim.Scene (python/py_scene.h).
#include "python/py_scene.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "geometry/prepare.h"
#include "python/py_runtime.h"
#include "scene/mesh_loader.h"
#include "util/error.h"

namespace rsim::python {
namespace {

std::string fmtShort(double v) { return fmt::format("{:g}", v); }

const char* sensorModeName(SensorMode m) {
    return m == SensorMode::Amcw ? "amcw" : m == SensorMode::Gated ? "gated" : "pulsed";
}

} // namespace

PyScene::PyScene(const std::filesystem::path& file, const std::vector<std::string>& set) : file_(file) {
    for (const std::string& s : set) {
        const auto eq = s.find('=');
        if (eq == std::string::npos || eq == 0)
            throw InputError("set: \"" + s + "\": expected KEY=VALUE, e.g. simulation.samples=32");
        overrides_.push_back({s.substr(0, eq), s.substr(eq + 1)});
    }
    desc_ = withoutGil([&] { return loadSceneFile(file_, overrides_); });
}

PyScene::PyScene(py::array_t<double, py::array::c_style | py::array::forcecast> vertices,
                 py::array_t<std::int64_t, py::array::c_style | py::array::forcecast> faces,
                 const py::object& reflectance, bool twoSided, const std::filesystem::path& base,
                 const std::vector<std::string>& set)
    : PyScene(base, set) {
    if (vertices.ndim() != 2 || vertices.shape(1) != 3)
        throw InputError("from_arrays: vertices must have shape [V, 3]");
    if (faces.ndim() != 2 || faces.shape(1) != 3) throw InputError("from_arrays: faces must have shape [F, 3]");
    const auto v = vertices.unchecked<2>();
    const auto f = faces.unchecked<2>();
    const py::ssize_t V = vertices.shape(0), F = faces.shape(0);
    if (F == 0) throw InputError("from_arrays: no faces");
    for (py::ssize_t i = 0; i < V; ++i)
        for (int k = 0; k < 3; ++k)
            if (!std::isfinite(v(i, k)))
                throw InputError("from_arrays: vertices[" + std::to_string(i) + "] is not finite");
            else if (!(std::abs(v(i, k)) <= kMaxCoordinateM))
                throw InputError("from_arrays: vertices[" + std::to_string(i) + "] has a coordinate of " +
                                 fmtShort(v(i, k)) + " m; coordinates must be within +-" + fmtShort(kMaxCoordinateM) +
                                 " m (distances are computed in fp32)");
    const auto rho = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(reflectance);
    if (!rho || !(rho.ndim() == 0 || (rho.ndim() == 1 && rho.shape(0) == F)))
        throw InputError("from_arrays: reflectance must be one number or one per face ([F])");
    LoadedGeometry g;
    std::vector<double> values;
    for (py::ssize_t t = 0; t < F; ++t) {
        const double r = rho.ndim() == 0 ? *rho.data() : rho.data()[t];
        if (!(r >= 0.0 && r <= 1.0))
            throw InputError("from_arrays: reflectance[" + std::to_string(t) + "] = " + std::to_string(r) +
                             " is outside [0, 1]");
        glm::dvec3 p[3];
        for (int k = 0; k < 3; ++k) {
            const std::int64_t index = f(t, k);
            if (index < 0 || index >= V)
                throw InputError("from_arrays: faces[" + std::to_string(t) + "] names vertex " +
                                 std::to_string(index) + ", not in [0, " + std::to_string(V) + ")");
            p[k] = {v(index, 0), v(index, 1), v(index, 2)};
        }
        ++g.loaded;
        if (!(0.5 * glm::length(glm::cross(p[1] - p[0], p[2] - p[0])) >= 1e-12)) {
            ++g.droppedDegenerate;
            continue;
        }
        // One material per distinct reflectance.
        std::size_t m = std::find(values.begin(), values.end(), r) - values.begin();
        if (m == values.size()) {
            values.push_back(r);
            g.materials.push_back(ResolvedMaterial::diffuse("reflectance " + std::to_string(r), float(r), twoSided));
        }
        g.v0.push_back(p[0]);
        g.v1.push_back(p[1]);
        g.v2.push_back(p[2]);
        g.material.push_back(std::uint32_t(m));
        g.sourceMesh.push_back(0);
    }
    if (g.v0.empty()) throw InputError("from_arrays: every face is degenerate");
    g.meshNames = {"arrays"};
    desc_.meshes.clear();
    arrays_ = true;
    prepared_ = withoutGil([&] { return prepareScene(g, desc_.sim.max_edge_m); });
}

const PreparedScene& PyScene::prepared() {
    const std::unique_lock lock = lockWithoutGil(prepareMutex_);
    if (!prepared_) prepared_ = withoutGil([&] { return prepareScene(loadMeshes(desc_), desc_.sim.max_edge_m); });
    return *prepared_;
}

std::string PyScene::repr() {
    std::string triangles = "triangles being read";
    if (const std::unique_lock lock(prepareMutex_, std::try_to_lock); lock.owns_lock())
        triangles = prepared_ ? std::to_string(prepared_->size()) + " triangles" : "triangles not yet read";
    return "<rsim.Scene " + (arrays_ ? std::string("from arrays with the settings of ") : std::string()) + "'" +
           file_.string() + "': " + triangles +
           ", " + std::to_string(desc_.sensor.width) + "x" + std::to_string(desc_.sensor.height) + " " +
           sensorModeName(desc_.sensor.mode) + ", T = " + std::to_string(desc_.sim.timesteps) + " x " +
           fmtShort(desc_.sim.dt_ns) + " ns>";
}

} // namespace rsim::python
