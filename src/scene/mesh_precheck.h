// SPDX-License-Identifier: MIT
// Checks of a mesh file's framing before assimp reads it: assimp crashes on some truncated
// files (a binary PLY cut in its body), spins forever on others (a PLY cut in its header) and
// silently loads part of others (an ASCII STL without endsolid). Each check throws InputError
// naming the file and what is wrong. docs/reliability.md lists them.
#pragma once
#include <filesystem>
#include <string>

namespace rsim {

// `where` names the scene file's [[mesh]] entry in messages.
void precheckMeshFile(const std::filesystem::path& file, const std::string& where);

} // namespace rsim
