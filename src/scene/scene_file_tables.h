// SPDX-License-Identifier: MIT
// The tables of a parsed scene file read into a SceneDesc, one method per table (loadSceneFile's
// steps): scene_file.cpp reads the time grid, the materials, meshes, outputs and poses;
// scene_file_lights.cpp the lights and the pulse; scene_file_camera.cpp the sensor and the sensor
// model.
#pragma once
#include <filesystem>
#include <sstream>
#include <string>

#include <toml++/toml.h>

#include "scene/scene_desc.h"
#include "scene/toml_reader.h"

namespace rsim {

// A number as a person writes it (0.1, 2500), for messages.
inline std::string fmtNumber(double v) {
    std::ostringstream os;
    os << v;
    return os.str();
}

// Every value is checked for type and range as it is read; each method ends with the table's
// unknown keys reported. loadSceneFile calls them in an order of dependence: a table's checks use
// the values read before it (the light's pulse the time grid, the sensor's gates the pulse, the
// meshes the materials, the transient's region the image).
class SceneTables {
public:
    SceneTables(const toml::table& root, const std::string& fileName, const toml_reader::OverrideOrigins& origins,
                const std::filesystem::path& baseDir)
        : root_(root), fileName_(fileName), origins_(origins), baseDir_(baseDir) {}

    void readSimulation(SceneDesc& scene) const;
    void readLight(SceneDesc& scene) const;
    void readSensor(SceneDesc& scene) const;
    void placeLightsOnCamera(SceneDesc& scene) const;
    void readSensorModel(SceneDesc& scene) const;
    void readMaterials(SceneDesc& scene) const;
    void readMeshes(SceneDesc& scene) const;
    void readOutput(SceneDesc& scene) const;
    void readTuning(SceneDesc& scene) const;
    void readPoses(SceneDesc& scene) const;

private:
    // Parts of [sensor_model]: the frame's exposure and pulses, and the lens's scattering.
    void readExposure(toml_reader::TableReader& r, SceneDesc& scene) const;
    void readScattering(toml_reader::TableReader& r, SceneDesc& scene) const;
    // Table [name], or an empty one where the file has none.
    const toml::table& section(const char* name) const;

    const toml::table& root_;
    const std::string& fileName_;
    const toml_reader::OverrideOrigins& origins_;
    const std::filesystem::path& baseDir_;
};

} // namespace rsim
