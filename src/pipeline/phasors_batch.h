// SPDX-License-Identifier: MIT
// The pose phase of the `phasors` transport (MODEL.md §11) in a batch (pipeline/simulate.cpp
// runs the geometry phase and the direct terms first): the poses in groups, each group's
// phasors solved as one block right-hand side by the transport's backend, then each pose's
// triangle distances and image on the host from its columns, handed to the sink.
#pragma once
#include <vector>

#include "pipeline/simulate.h"

namespace rsim {

// What a batch hands the phasors' pose phase.
struct PhasorBatch {
    const PhaseBackends& backends;
    const PreparedScene& scene;
    const std::vector<PoseConfig>& poses;
    const RunOptions& options;
    PhaseTimes& times;
    RunMetadata& meta;
    const PoseSink& sink;
    std::vector<DirectTerms>& direct; // every pose's, moved into its result
    const std::vector<double>& directSeconds;
    KHandle* K; // null without indirect light
    const VisibilityStats& kStats;
    bool poseOutputsHere; // false on the MPI ranks other than 0 in row-block mode
};

// Poses solved together at most (the columns grow with them; K is read once per iteration for all).
inline constexpr std::uint32_t kPhasorGroupPoses = 32;

class PhasorPoses {
  public:
    explicit PhasorPoses(const PhasorBatch& batch) : b_(batch) {}
    // Every group, in pose order; the report's groups and poses with a distance.
    void run(BatchReport& report);

  private:
    void group(std::size_t g0, std::size_t g1, BatchReport& report);
    const PhasorBatch& b_;
    bool backFaceWarned_ = false;
};

} // namespace rsim
