// SPDX-License-Identifier: MIT
// Fuzz target: a poses file (`--poses FILE`, CSV), read, checked and applied to a small scene.
// Any rsim::Error is a correct answer; a crash, a hang or another exception is a finding.
#include <cstddef>
#include <cstdint>

#include "fuzz_input_file.h"
#include "scene/poses.h"
#include "scene/scene_config.h"
#include "scene/scene_desc.h"
#include "util/error.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const rsim::SceneDesc scene = [] {
        rsim::fuzz::quietLog();
        const char room[] = "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n";
        rsim::fuzz::writeInput("room.obj", reinterpret_cast<const std::uint8_t*>(room), sizeof room - 1);
        const char text[] = "[light]\nposition = [0, 0, 2]\n[sensor]\nresolution = [8, 6]\n"
                            "[[mesh]]\npath = \"room.obj\"\n";
        return rsim::loadSceneFile(
            rsim::fuzz::writeInput("scene.toml", reinterpret_cast<const std::uint8_t*>(text), sizeof text - 1));
    }();
    const auto file = rsim::fuzz::writeInput("poses.csv", data, size);
    try {
        const auto poses = rsim::readPosesCsv(file);
        rsim::checkPoses(poses, scene);
        for (const auto& pose : poses) (void)rsim::makeSimConfig(rsim::applyPose(scene, pose));
        // What posesCsv writes reads back.
        const std::string again = rsim::posesCsv(poses);
        (void)rsim::readPosesCsv(
            rsim::fuzz::writeInput("again.csv", reinterpret_cast<const std::uint8_t*>(again.data()), again.size()));
    } catch (const rsim::Error&) {
    }
    return 0;
}
