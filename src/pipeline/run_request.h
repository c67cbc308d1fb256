// SPDX-License-Identifier: MIT
// What a user asked of `rsim run` (the command line) or of import rsim's Simulator, before it is
// interpreted (pipeline/run_plan.h).
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
    BackendChoice backend;                  // --backend, --devices, --visibility, tuning.validation
    std::string commandLine;
    std::string kFormat;                    // --kij (empty: the default format)
    double chunkMb = 16.0;                  // tuning.chunk_mb
    bool kFormatErrors = false;             // tuning.kij_errors
    std::optional<std::filesystem::path> posesFile; // --poses (else the scene's [[pose]] tables)
    std::uint32_t maxPoseGroup = 0;         // tuning.pose_group (0: as memory allows)
    std::uint32_t writers = 0;              // tuning.writers (0: the default)
    std::optional<std::filesystem::path> kCacheDir; // --k-cache (else KCache::defaultDir())
    bool noKCache = false;                  // --no-k-cache
    double kCacheMaxGb = 20.0;              // --k-cache-max-gb
    std::string mpiSplit;                   // --mpi-split rows|poses (empty: poses for a batch, else rows)
    std::string hostRays = "auto";          // tuning.host_rays auto|always|never (pipeline/host_rays.h)
    std::string cpuIsa = "auto";            // tuning.cpu_isa auto|baseline|x86-64-v3|x86-64-v4 (util/cpu_isa.h)
};

// `request` with the scene's [tuning] table applied (pipeline/run_tuning.cpp, docs/tuning.md);
// InputError for tuning that would do nothing.
RunRequest tunedRequest(const RunRequest& request, const SceneDesc& scene);

} // namespace rsim
