// SPDX-License-Identifier: MIT
// The results directory of MODEL.md §8. Written under a temporary name and renamed into place
// at the end, so a failed run never leaves a directory that looks complete.
#pragma once
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "core/prepared_scene.h"
#include "core/results.h"
#include "core/run_metadata.h"
#include "core/sim_config.h"
#include "scene/scene_desc.h"
#include "util/timer.h"

namespace rsim {

struct RunInfo {
    std::string version;     // rsim version
    std::string commandLine; // as typed
    std::string startedAt;   // ISO 8601 UTC
    std::uint64_t echoesCutOff = 0; // triangles whose echo ran past the time window
    std::string pose;               // in a batch: the pose's name (its directory)
    bool kFromCache = false;        // K was read from the K cache, not computed
    int rowRanks = 1;               // MPI ranks that shared K's rows (row-block mode)
};

// summary.json's layout version (its `schema` key): raised when a key changes meaning or goes,
// not when one is added. 2: `schema` itself, settings.simulation.k_estimator and
// near_pair_factor.
// 3: images.error_range_m became images.error_colour_range_m (it always was error.png's colour
// scale), beside the new images.pixel_error_m.
inline constexpr int kSummarySchema = 3;

// Everything the writers need, by reference.
struct ResultsView {
    const SceneDesc& scene;
    const PreparedScene& prepared;
    const SimConfig& config;
    const SimulationResult& result;
    const RunMetadata& meta;
    const RunInfo& info;
};

// Writes every file of the output contract into `dir` (replacing a previous results directory
// there, but refusing to replace a directory that does not look like one). `times` receives
// the `output` phase; summary.json is written last and includes it.
void writeResultsDirectory(const std::filesystem::path& dir, const ResultsView& view,
                           PhaseTimes& times);

// The same files written straight into `dir` (created; a pose's directory inside a batch's).
void writeResultsFiles(const std::filesystem::path& dir, const ResultsView& view, PhaseTimes& times);

// A batch's results directory (README.md, "What a run writes"): `write(tmp)` fills a temporary sibling of
// `dir` (one results directory per pose, batch.csv, batch.h5, summary.json), which then
// replaces `dir` as writeResultsDirectory does; nothing is left behind when `write` throws.
void writeBatchDirectory(const std::filesystem::path& dir, const std::function<void(const std::filesystem::path&)>& write);

// Throws InputError unless `dir` can become a results directory: it does not exist (and its
// nearest existing ancestor is a directory), is empty, or is a results directory rsim wrote.
// writeResultsDirectory checks it too; runs call it first to fail before simulating.
void checkOutputDirectory(const std::filesystem::path& dir);

// Individual writers (each writes one file; used by writeResultsDirectory and tests). The HDF5
// and OpenEXR files are written by modules: output/file_modules.h.
void writeSummaryJson(const std::filesystem::path& file, const ResultsView& view,
                      const PhaseTimes& times);
// summary.json's text (also the Python module's per-pose summary).
std::string summaryJsonText(const ResultsView& view, const PhaseTimes& times);
void writeTrianglesCsv(const std::filesystem::path& file, const ResultsView& view);
void writeSensorImages(const std::filesystem::path& dir, const ResultsView& view);
void writeErrorPly(const std::filesystem::path& file, const ResultsView& view);

// Reads a grayscale PFM ("Pf", either byte order) such as depth.pfm; returns width x height
// values with row 0 at the top of the image (PFM stores the bottom row first). Throws
// InputError naming the file when it cannot be read or is not a grayscale PFM.
std::vector<float> readPfm(const std::filesystem::path& file, std::uint32_t& width,
                           std::uint32_t& height);

} // namespace rsim
