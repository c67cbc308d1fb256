// SPDX-License-Identifier: MIT
// What a batch writes beside its poses' results directories (README.md, "What a run writes"): batch.csv, one
// row per pose, and batch.h5 (output/batch_h5.h), the poses' images (views of their images.h5),
// sensor signals and distances with a leading pose axis. The collector keeps only the small
// per-pose arrays; each pose's full result is written into its directory as it arrives.
#pragma once
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "output/batch_h5.h"
#include "output/results_writer.h"

namespace rsim {

struct BatchPoseRow {
    std::string name;
    glm::dvec3 position{0.0}, lookAt{0.0};
    std::uint64_t trianglesMeasured = 0;
    double triangleMeanAbsErrorMm = 0.0, triangleP95AbsErrorMm = 0.0;
    std::uint64_t pixelsMeasured = 0;
    double pixelMeanAbsErrorMm = 0.0, pixelP95AbsErrorMm = 0.0;
};

class BatchCollector {
  public:
    // Room for `poses` poses, which add() fills in any order, each from its own thread if need be.
    BatchCollector(std::size_t triangles, std::uint32_t timesteps, bool images, std::size_t poses = 0);
    // Pose `pose`'s summary row and its small arrays (view.result must still hold its distances,
    // image and signals).
    void add(std::size_t pose, const std::string& name, const ResultsView& view);
    const std::vector<BatchPoseRow>& rows() const { return rows_; }
    // This collector's rows and arrays as bytes, and another's appended after this one's poses
    // (the ranks of an MPI job; both collectors of the same scene and settings).
    std::string pack() const;
    void append(const std::string& packed);

    void writeCsv(const std::filesystem::path& file) const;
    // batch.h5's tables: every pose's row and arrays, and its camera from `configs` (one per
    // pose, in pose order).
    BatchTables tables(const std::vector<const SimConfig*>& configs, const PreparedScene& prepared) const;

  private:
    std::size_t n_;
    std::uint32_t T_;
    bool images_;
    std::vector<BatchPoseRow> rows_;
    // [pose][...]: distances and true distances by stable id (NaN none), s_fwd(t).
    std::vector<double> distance_, trueDistance_, signal_;
};

// The batch's summary.json: how it ran (backend, K, pose groups), the shared phases' times, and
// the poses in order.
struct BatchSummary {
    const RunInfo& info;
    const RunMetadata& meta;
    const PreparedScene& prepared;
    const VisibilityStats& visibility;
    std::uint32_t groupSize, groups;
    const PhaseTimes& times;
    int ranks = 1; // MPI ranks that shared the poses
};
void writeBatchSummaryJson(const std::filesystem::path& file, const BatchSummary& summary,
                           const BatchCollector& collector);

} // namespace rsim
