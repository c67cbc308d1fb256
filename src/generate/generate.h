// SPDX-License-Identifier: MIT
// `rsim generate KIND`: procedural scenes sized like the paper's test scenes.
#pragma once
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace rsim {

struct GeneratorInfo {
    std::string kind;        // "tiny-room", "small-room", ...
    std::string description; // one line for --help
    std::uint64_t targetTriangles; // the paper's count (0: no target)
};

const std::vector<GeneratorInfo>& sceneGenerators();

struct GeneratedScene {
    std::filesystem::path sceneFile; // dir/scene.toml
    std::uint64_t triangles = 0;     // N the simulation will use (twins included)
};

// Writes dir/scene.toml and its mesh file(s). Deterministic for a given kind and seed.
// Throws InputError for an unknown kind (with a did-you-mean), and, unless `force`, before
// writing anything, when one of the files exists and was not written by `rsim generate`.
GeneratedScene generateScene(const std::string& kind, const std::filesystem::path& dir,
                             std::uint32_t seed, bool force = false);

} // namespace rsim
