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
#include "output/pixel_camera.h"

namespace rsim {

namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
}

BatchCollector::BatchCollector(std::size_t triangles, std::uint32_t timesteps, bool images, std::size_t poses)
    : n_(triangles), T_(timesteps), images_(images), rows_(poses), distance_(poses * triangles),
      trueDistance_(poses * triangles), signal_(poses * timesteps) {}

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
    for (std::size_t id = 0; id < n_; ++id) {
        const std::size_t i = view.prepared.internalOf[id];
        distance_[pose * n_ + id] = r.distance[i];
        trueDistance_[pose * n_ + id] = output::trueDistanceM(view, i);
    }
    output::requireSize(r.signalFwd.size(), T_, "signalFwd");
    std::copy(r.signalFwd.begin(), r.signalFwd.end(), signal_.begin() + std::ptrdiff_t(pose * T_));

    row.pixelMeanAbsErrorMm = row.pixelP95AbsErrorMm = kNaN;
    if (images_) {
        const SensorImage& im = r.image;
        const std::size_t pixels = std::size_t(im.width) * im.height;
        output::requireSize(im.depth.size(), pixels, "image.depth");
        std::vector<double> pixelErrors(pixels);
        double pixelSum = 0.0;
        for (std::size_t k = 0; k < pixels; ++k) {
            const double e = double(im.depth[k] - im.trueDepth[k]);
            pixelErrors[k] = e;
            if (std::isfinite(e)) {
                ++row.pixelsMeasured;
                pixelSum += std::abs(e);
            }
        }
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
    w.array(trueDistance_);
    w.array(signal_);
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
    add(distance_, r.array<double>(), n_);
    add(trueDistance_, r.array<double>(), n_);
    add(signal_, r.array<double>(), T_);
    if (!r.done()) r.bad();
}

BatchTables BatchCollector::tables(const std::vector<const SimConfig*>& configs, const PreparedScene& prepared) const {
    if (configs.size() != rows_.size())
        throw Error("internal: " + std::to_string(configs.size()) + " cameras for a batch of " +
                    std::to_string(rows_.size()) + " poses");
    BatchTables t;
    t.triangles = n_;
    t.timesteps = T_;
    t.distance = distance_;
    t.trueDistance = trueDistance_;
    t.signal = signal_;
    for (std::size_t p = 0; p < rows_.size(); ++p) {
        const BatchPoseRow& r = rows_[p];
        t.names.push_back(r.name);
        t.poses.insert(t.poses.end(), {r.position.x, r.position.y, r.position.z, r.lookAt.x, r.lookAt.y, r.lookAt.z});
        const SimConfig& c = *configs[p];
        const auto m = output::worldFromCamera(c.sensor);
        t.worldFromCamera.insert(t.worldFromCamera.end(), m.begin(), m.end());
        t.cameraPosition.insert(t.cameraPosition.end(), {double(c.sensor.position.x), double(c.sensor.position.y),
                                                         double(c.sensor.position.z)});
        t.lightPosition.insert(t.lightPosition.end(), {double(c.light.position.x), double(c.light.position.y),
                                                       double(c.light.position.z)});
    }
    if (!configs.empty()) {
        const auto k = output::cameraMatrix(*configs[0]);
        t.cameraK.assign(k.begin(), k.end());
        const auto d = output::distortionCoefficients(*configs[0]);
        t.cameraDistortion.assign(d.begin(), d.end());
    }
    t.images = images_;
    t.meshNames = prepared.meshNames;
    t.materialNames = prepared.materialNames;
    return t;
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
    j["k_stored_as"] = b.meta.k.layout;
    if (b.meta.k.layout == "segments") j["k_segments"] = b.meta.k.segments;
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
