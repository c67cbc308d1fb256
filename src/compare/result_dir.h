// SPDX-License-Identifier: MIT
// What `rsim compare` reads of a results directory: triangles.csv, summary.json, depth.pfm,
// and which files are there.
#pragma once
#include <cstdint>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace rsim::compare {

struct Triangles {
    std::vector<double> distance;        // by id
    std::vector<std::string> sourceMesh; // by id
    std::vector<double> geometry;        // by id: cx, cy, cz, area
};

struct DepthImage {
    std::uint32_t width = 0, height = 0;
    std::vector<float> depth; // row 0 at the top
};

// A results directory as compare sees it.
struct ResultDir {
    std::filesystem::path dir;
    Triangles triangles;         // none for a paths run
    nlohmann::json summary;      // null when there is none
    bool pathTraced = false;     // summary.json says transport "paths" (MODEL.md §10.2)
    std::set<std::string> files; // names of the regular files in it
};

// Whether a summary.json is a `paths` run's, which has no per-triangle results or sensor signals.
bool isPathTraced(const nlohmann::json& summary);

// Reads `dir`. InputError when it is not a directory, or (but for a paths run) its triangles.csv is missing,
// damaged or holds no triangle; summary.json that is present but not JSON is one too.
ResultDir readResultDir(const std::filesystem::path& dir);

// The files of the output contract (README.md), in its order.
const std::vector<std::string>& contractFiles();
// The files whose contents compare checks: these must be in both directories when both runs
// were asked to write them; any other file in one directory only is a note.
bool isComparedData(const std::string& file, bool images);
// Whether the run whose summary.json is `summary` was asked to write `file` ([output] settings;
// an older summary without them: yes).
bool askedToWrite(const nlohmann::json& summary, const std::string& file);

// Whether `dir` is a batch's results directory (batch.csv beside summary.json).
bool isBatchDirectory(const std::filesystem::path& dir);
// The names of a batch's pose directories (subdirectories holding summary.json), sorted.
std::vector<std::string> poseDirectories(const std::filesystem::path& dir);

} // namespace rsim::compare
