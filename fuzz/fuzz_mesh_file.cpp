// SPDX-License-Identifier: MIT
// Fuzz target: a mesh file, loaded as a scene's [[mesh]] is (checks, assimp in its child
// process, transform, duplicate faces). The first byte picks the format (file extension); the
// rest is the file. Any rsim::Error is a correct answer; a crash, a hang or another exception is
// a finding.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_input_file.h"
#include "scene/mesh_loader.h"
#include "scene/scene_desc.h"
#include "util/error.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const bool quiet = (rsim::fuzz::quietLog(), true);
    (void)quiet;
    if (size < 1) return 0;
    static const char* const kExtensions[] = {"obj", "ply", "stl", "gltf", "glb", "dae", "off", "3ds"};
    const std::string extension = kExtensions[data[0] % (sizeof kExtensions / sizeof *kExtensions)];
    rsim::SceneDesc scene;
    scene.file = "fuzz.toml"; // only named in messages
    rsim::MeshDesc mesh;
    mesh.path = rsim::fuzz::writeInput("mesh." + extension, data + 1, size - 1);
    mesh.pathAsWritten = mesh.path.filename().string();
    mesh.where = "[[mesh]] #1";
    scene.meshes.push_back(mesh);
    try {
        (void)rsim::loadMeshes(scene);
    } catch (const rsim::Error&) {
    }
    return 0;
}
