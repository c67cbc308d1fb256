// SPDX-License-Identifier: MIT
#include "output/batch_outputs.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

#include <nlohmann/json.hpp>

#include "output/file_modules.h"
#include "util/byte_stream.h"
#include "util/error.h"
#include "output/startup_json.h"
#include "output/output_util.h"

namespace rsim {

namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
}

BatchCollector::BatchCollector(std::size_t triangles, std::uint32_t timesteps, std::uint32_t width,
                               std::uint32_t height, bool images, std::size_t poses)
    : n_(triangles), T_(timesteps), width_(width), height_(height), images_(images), rows_(poses),
      distance_(poses * triangles), signal_(poses * timesteps) {
    const std::size_t pixels = images ? std::size_t(width) * height : 0;
    depth_.resize(poses * pixels);
    amplitude_.resize(poses * pixels);
    error_.resize(poses * pixels);
}

void BatchCollector::add(std::size_t pose, const std::string& name, const ResultsView& view) {
    if (pose >= rows_.size()) throw Error("internal: pose " + std::to_string(pose) + " of a batch collector of " +
                                          std::to_string(rows_.size()));
    const SimulationResult& r = view.result;
    BatchPoseRow row;
    row.name = name;
    row.position = view.scene.sensorPosition();
    row.lookAt = view.scene.sensor.look_at;
    const std::vector<double> errors = output::distanceErrorsById(view);
    double sum = 0.0;
    for (double e : errors)
        if (std::isfinite(e)) {
            ++row.trianglesMeasured;
            sum += std::abs(e);
        }
    row.triangleMeanAbsErrorMm = row.trianglesMeasured ? 1e3 * sum / double(row.trianglesMeasured) : kNaN;
    row.triangleP95AbsErrorMm = row.trianglesMeasured ? 1e3 * output::absPercentile(errors, 0.95) : kNaN;
    for (std::size_t id = 0; id < n_; ++id) distance_[pose * n_ + id] = r.distance[view.prepared.internalOf[id]];
    output::requireSize(r.signalFwd.size(), T_, "signalFwd");
    std::copy(r.signalFwd.begin(), r.signalFwd.end(), signal_.begin() + std::ptrdiff_t(pose * T_));

    row.pixelMeanAbsErrorMm = row.pixelP95AbsErrorMm = kNaN;
    if (images_) {
        const SensorImage& im = r.image;
        const std::size_t pixels = std::size_t(width_) * height_;
        output::requireSize(im.depth.size(), pixels, "image.depth");
        std::vector<double> pixelErrors(pixels);
        double pixelSum = 0.0;
        for (std::size_t k = 0; k < pixels; ++k) {
            const float e = im.depth[k] - im.trueDepth[k];
            pixelErrors[k] = double(e);
            error_[pose * pixels + k] = e;
            if (std::isfinite(e)) {
                ++row.pixelsMeasured;
                pixelSum += std::abs(double(e));
            }
        }
        std::copy(im.depth.begin(), im.depth.end(), depth_.begin() + std::ptrdiff_t(pose * pixels));
        std::copy(im.amplitude.begin(), im.amplitude.end(), amplitude_.begin() + std::ptrdiff_t(pose * pixels));
        if (row.pixelsMeasured) {
            row.pixelMeanAbsErrorMm = 1e3 * pixelSum / double(row.pixelsMeasured);
            row.pixelP95AbsErrorMm = 1e3 * output::absPercentile(pixelErrors, 0.95);
        }
    }
    rows_[pose] = row;
}

std::string BatchCollector::pack() const {
    ByteWriter w;
    w.value<std::uint64_t>(rows_.size());
    for (const BatchPoseRow& r : rows_) {
        w.string(r.name);
        w.value(r.position);
        w.value(r.lookAt);
        w.value(r.trianglesMeasured);
        w.value(r.triangleMeanAbsErrorMm);
        w.value(r.triangleP95AbsErrorMm);
        w.value(r.pixelsMeasured);
        w.value(r.pixelMeanAbsErrorMm);
        w.value(r.pixelP95AbsErrorMm);
    }
    w.array(distance_);
    w.array(signal_);
    w.array(depth_);
    w.array(amplitude_);
    w.array(error_);
    return std::move(w.bytes);
}

void BatchCollector::append(const std::string& packed) {
    ByteReader r(packed, "a rank's batch results");
    const auto count = r.value<std::uint64_t>();
    if (count > packed.size()) r.bad();
    for (std::uint64_t k = 0; k < count; ++k) {
        BatchPoseRow row;
        row.name = r.string();
        row.position = r.value<glm::dvec3>();
        row.lookAt = r.value<glm::dvec3>();
        row.trianglesMeasured = r.value<std::uint64_t>();
        row.triangleMeanAbsErrorMm = r.value<double>();
        row.triangleP95AbsErrorMm = r.value<double>();
        row.pixelsMeasured = r.value<std::uint64_t>();
        row.pixelMeanAbsErrorMm = r.value<double>();
        row.pixelP95AbsErrorMm = r.value<double>();
        rows_.push_back(row);
    }
    auto add = [&](auto& into, const auto& part, std::size_t perPose) {
        if (part.size() != count * perPose) r.bad();
        into.insert(into.end(), part.begin(), part.end());
    };
    const std::size_t pixels = images_ ? std::size_t(width_) * height_ : 0;
    add(distance_, r.array<double>(), n_);
    add(signal_, r.array<double>(), T_);
    add(depth_, r.array<float>(), pixels);
    add(amplitude_, r.array<float>(), pixels);
    add(error_, r.array<float>(), pixels);
    if (!r.done()) r.bad();
}

void BatchCollector::writeCsv(const std::filesystem::path& file) const {
    std::ostringstream os;
    os.precision(9);
    os << "name,x,y,z,look_x,look_y,look_z,triangles_measured,triangle_mean_abs_error_mm,"
          "triangle_p95_abs_error_mm,pixels_measured,pixel_mean_abs_error_mm,pixel_p95_abs_error_mm\n";
    auto num = [](double v) {
        std::ostringstream s;
        s.precision(9);
        if (std::isfinite(v)) s << v;
        return s.str(); // empty: none (no triangle or pixel measured, or no images)
    };
    for (const BatchPoseRow& r : rows_)
        os << r.name << "," << num(r.position.x) << "," << num(r.position.y) << "," << num(r.position.z) << ","
           << num(r.lookAt.x) << "," << num(r.lookAt.y) << "," << num(r.lookAt.z) << "," << r.trianglesMeasured << ","
           << num(r.triangleMeanAbsErrorMm) << "," << num(r.triangleP95AbsErrorMm) << ","
           << (images_ ? std::to_string(r.pixelsMeasured) : std::string()) << "," << num(r.pixelMeanAbsErrorMm)
           << "," << num(r.pixelP95AbsErrorMm) << "\n";
    output::OutputFile out(file);
    out.write(os.str());
    out.close();
}

void BatchCollector::writeH5(const std::filesystem::path& file) const { hdf5().writeBatch(file, *this); }

void writeBatchSummaryJson(const std::filesystem::path& file, const BatchSummary& b, const BatchCollector& c) {
    using Json = nlohmann::ordered_json;
    auto number = [](double v) { return std::isfinite(v) ? Json(v) : Json(nullptr); };
    Json j;
    j["schema"] = kSummarySchema;
    j["rsim_version"] = b.info.version;
    j["command"] = b.info.commandLine;
    j["started_at"] = b.info.startedAt;
    j["backend"] = b.meta.backend;
    j["devices"] = b.meta.devices;
    j["k_format"] = b.meta.k.format;
    j["k_from_cache"] = b.info.kFromCache;
    j["cpu_phases"] = b.meta.cpuPhases;
    j["k_bytes"] = b.meta.k.bytes;
    j["batch"] = {{"poses", c.rows().size()}, {"group_size", b.groupSize}, {"groups", b.groups}, {"ranks", b.ranks}};
    if (b.ranks > 1) j["mpi"] = {{"ranks", b.ranks}, {"split", b.info.rowRanks > 1 ? "rows" : "poses"}};
    if (b.info.rowRanks > 1) j["mpi"]["rows_of_ranks"] = b.meta.rowsOfRanks;
    j["counts"] = {{"triangles", b.prepared.size()},
                   {"candidate_pairs", b.visibility.candidatePairs},
                   {"nonzero_pairs", b.visibility.nonzeroPairs}};
    j["max_form_factor_row_sum"] = number(b.visibility.maxRowSum);
    Json t = Json::object();
    double total = 0.0;
    for (const auto& [name, secs] : b.times.entries()) {
        t[name] = number(secs);
        total += secs;
    }
    t["total"] = number(total);
    j["timings_s"] = t;
    Json details = Json::object();
    for (const auto& [name, secs] : b.meta.timingDetails) details[name] = number(secs);
    j["timings_detail_s"] = details;
    output::addStartupTimes(j);
    Json poses = Json::array();
    for (const BatchPoseRow& r : c.rows())
        poses.push_back({{"name", r.name},
                         {"triangles_measured", r.trianglesMeasured},
                         {"triangle_mean_abs_error_mm", number(r.triangleMeanAbsErrorMm)}});
    j["poses"] = poses;
    output::OutputFile out(file);
    out.write(j.dump(2) + "\n");
    out.close();
}

} // namespace rsim
