// SPDX-License-Identifier: MIT
// `rsim run`: scene file -> results directory.
#pragma once
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "backends/backend_choice.h"
#include "scene/scene_desc.h"

namespace rsim {

struct RunRequest {
    std::filesystem::path sceneFile;
    std::vector<SceneOverride> overrides;   // from --set and the dedicated flags
    std::optional<std::filesystem::path> outputDir; // --output, relative to the working dir
    BackendChoice backend;                  // --backend, --devices, --visibility, --validation
    std::string commandLine;
    std::string kFormat;                    // --kij (empty: the default format)
    double chunkMb = 16.0;                  // --chunk-mb
    bool kFormatErrors = false;             // --kij-errors
};

struct RunOutcome {
    std::filesystem::path outputDir;
    std::string backend;
    std::size_t triangles = 0;
    double seconds = 0.0;
};

RunOutcome runSimulation(const RunRequest& request);

} // namespace rsim
