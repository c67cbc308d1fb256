// SPDX-License-Identifier: MIT
// One mesh file read by assimp, flattened to triangles in the file's own coordinates. assimp
// runs in a child process (util/isolated.h): a malformed file that crashes or hangs assimp
// becomes an InputError naming the file, never a crash of rsim.
#pragma once
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "util/isolated.h"
#include "util/modules.h"

namespace rsim {

struct ImportedTriangles {
    std::vector<float> xyz;           // 9 per triangle: three vertices as assimp stores them
    std::vector<std::uint32_t> face;  // each triangle's face index in its sub-mesh (for messages)
    std::vector<std::uint32_t> part;  // each triangle's sub-mesh: index into partName/partMaterial
    std::vector<std::string> partName, partMaterial; // per sub-mesh: its name and the file's material
    std::uint32_t meshCount = 0;      // sub-meshes assimp found, with or without faces

    std::size_t size() const { return face.size(); }
};

// `file` being read by assimp in a child process, started by the constructor; finish() waits for
// its triangles and throws InputError (naming `where` and the file) when assimp rejects, crashes
// on or does not finish the file in a time that grows with its size. Several files can be read
// at once.
class PendingImport {
public:
    PendingImport(std::filesystem::path file, std::string where);
    ImportedTriangles finish();

private:
    std::filesystem::path file_;
    std::string where_;
    double timeoutSeconds_;
    std::uint64_t memoryBytes_;
    IsolatedRun run_;
};

// PendingImport's two steps at once.
ImportedTriangles importTriangles(const std::filesystem::path& file, const std::string& where);

// The same in this process: what the child runs, through the assimp module (util/modules.h,
// scene/assimp/), which only the children open.
ImportedTriangles importTrianglesHere(const std::filesystem::path& file, const std::string& where);
struct MeshReaderCalls {
    ImportedTriangles (*read)(const std::filesystem::path& file, const std::string& where);
};

// The child's answer and its decoding (throws Error on a malformed answer).
std::string encodeTriangles(const ImportedTriangles& t);
ImportedTriangles decodeTriangles(const std::string& bytes);

} // namespace rsim
