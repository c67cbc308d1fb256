// SPDX-License-Identifier: MIT
// rsim.Scene of `import rsim`: a scene file with its overrides, read and checked, or triangles
// from arrays with a scene file's settings; its triangles are prepared on first use.
#pragma once
#include <cstdint>
#include <filesystem>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include "core/prepared_scene.h"
#include "scene/scene_desc.h"

namespace rsim::python {

namespace py = pybind11;

class PyScene {
public:
    PyScene(const std::filesystem::path& file, const std::vector<std::string>& set);
    // Triangles from arrays (vertices [V, 3], faces [F, 3] of vertex indices, reflectance [F] or
    // one value) with the settings of the scene file `base` ([simulation], [light], [sensor],
    // [sensor_model], [output]; its meshes are not read).
    PyScene(py::array_t<double, py::array::c_style | py::array::forcecast> vertices,
            py::array_t<std::int64_t, py::array::c_style | py::array::forcecast> faces, const py::object& reflectance,
            bool twoSided, const std::filesystem::path& base, const std::vector<std::string>& set);
    const SceneDesc& desc() const { return desc_; }
    const std::vector<SceneOverride>& overrides() const { return overrides_; }
    const std::filesystem::path& file() const { return file_; }
    // Prepared once, also when several threads ask at once.
    const PreparedScene& prepared();
    std::string repr();
    std::size_t triangles() { return prepared().size(); }

private:
    std::filesystem::path file_;
    std::vector<SceneOverride> overrides_;
    SceneDesc desc_;
    std::optional<PreparedScene> prepared_;
    std::mutex prepareMutex_;
    bool arrays_ = false;
};

} // namespace rsim::python
