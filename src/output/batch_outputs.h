// SPDX-License-Identifier: MIT
// What a batch writes beside its poses' results directories (README.md, Output): batch.csv, one
// row per pose, and batch.h5, the poses' images, sensor signals and distances with a leading
// pose axis. The collector keeps only these small per-pose arrays; each pose's full result is
// written and dropped as it arrives.
#pragma once
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

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
    BatchCollector(std::size_t triangles, std::uint32_t timesteps, std::uint32_t width, std::uint32_t height,
                   bool images, std::size_t poses = 0);
    // Pose `pose`'s summary row and its arrays (view.result must still hold its distances, image
    // and signals).
    void add(std::size_t pose, const std::string& name, const ResultsView& view);
    const std::vector<BatchPoseRow>& rows() const { return rows_; }
    // This collector's rows and arrays as bytes, and another's appended after this one's poses
    // (the ranks of an MPI job; both collectors of the same scene and settings).
    std::string pack() const;
    void append(const std::string& packed);

    void writeCsv(const std::filesystem::path& file) const;
    void writeH5(const std::filesystem::path& file) const; // through the HDF5 module

  private:
    friend void writeBatchH5(const std::filesystem::path& file, const BatchCollector& batch); // output/hdf5/
    std::size_t n_;
    std::uint32_t T_, width_, height_;
    bool images_;
    std::vector<BatchPoseRow> rows_;
    // [pose][...]: distances by stable id (NaN none), s_fwd(t), depth, amplitude, depth error.
    std::vector<double> distance_, signal_;
    std::vector<float> depth_, amplitude_, error_;
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
