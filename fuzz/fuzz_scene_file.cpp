// SPDX-License-Identifier: MIT
// Fuzz target: a scene file (TOML), read and validated as `rsim run` does, then the simulation
// settings derived from it and its [[pose]] tables applied. Any rsim::Error is a correct answer;
// a crash, a hang or another exception is a finding.
#include <cstddef>
#include <cstdint>

#include "fuzz_input_file.h"
#include "scene/poses.h"
#include "scene/scene_config.h"
#include "scene/scene_desc.h"
#include "util/error.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const bool quiet = (rsim::fuzz::quietLog(), true);
    (void)quiet;
    const auto file = rsim::fuzz::writeInput("scene.toml", data, size);
    try {
        const rsim::SceneDesc scene = rsim::loadSceneFile(file);
        (void)rsim::makeSimConfig(scene);
        if (!scene.poses.empty()) {
            rsim::checkPoses(scene.poses, scene);
            for (const auto& pose : scene.poses) (void)rsim::makeSimConfig(rsim::applyPose(scene, pose));
        }
    } catch (const rsim::Error&) {
    }
    return 0;
}
