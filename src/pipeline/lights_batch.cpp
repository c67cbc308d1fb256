// SPDX-License-Identifier: MIT
// The sum of lights (pipeline/lights_batch.h).
#include "pipeline/lights_batch.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <utility>

#include <fmt/format.h>
#include <glm/geometric.hpp>
#include <spdlog/spdlog.h>

#include "distance/camera_readout.h"
#include "distance/cpu_distance.h"
#include "distance/cpu_pixel_outputs.h"
#include "distance/lens_scattering.h"
#include "pipeline/run_checks.h"
#include "util/error.h"
#include "util/host_memory.h"
#include "util/parallel.h"
#include "util/timer.h"

namespace rsim {
namespace {

void addInto(std::vector<float>& sum, const std::vector<float>& v) {
    if (sum.size() != v.size()) throw Error("internal: summing the lights' arrays of other sizes");
    for (std::size_t i = 0; i < v.size(); ++i) sum[i] += v[i];
}
void addInto(std::vector<double>& sum, const std::vector<double>& v) {
    if (sum.size() != v.size()) throw Error("internal: summing the lights' arrays of other sizes");
    for (std::size_t i = 0; i < v.size(); ++i) sum[i] += v[i];
}

// Light l's pose of the inner batch: its light alone, its pulse delayed, every pixel's whole
// transient and direct transient kept; no noise or scattering (they act on the sum).
PoseConfig lightPose(const PoseConfig& pose, std::size_t l) {
    PoseConfig out{pose.label + (pose.config.emitters.size() > 1 ? fmt::format(", light {}", l + 1) : ""),
                   pose.config};
    SimConfig& c = out.config;
    const SimConfig::Emitter e = pose.config.emitters[l];
    c.light = e.light;
    c.emitters = {SimConfig::Emitter{e.light, 0.0}};
    c.pulse = delayedPulse(pose.config.pulse, e.delayNs / c.dtNs);
    c.transient = SimConfig::Transient{0, c.timesteps, 0, 0, c.width, c.height, true};
    c.noise.on = false;
    c.scattering = {};
    return out;
}

// One pose's lights, summed as they arrive, and its outputs estimated from the sums.
class LightSum {
public:
    LightSum(const PreparedScene& s, const SimConfig& c, bool timeseries) : s_(s), c_(c), timeseries_(timeseries) {}

    void add(SimulationResult& r, const PhaseTimes& times) {
        for (const auto& [phase, seconds] : times.entries()) times_.add(phase, seconds);
        if (lights_++ == 0) {
            sum_ = std::move(r);
            return;
        }
        for (auto [to, from] : {std::pair{&sum_.B, &r.B}, {&sum_.Z, &r.Z}, {&sum_.E, &r.E}, {&sum_.R, &r.R},
                                {&sum_.direct.irradiance, &r.direct.irradiance}, {&sum_.image.transient, &r.image.transient},
                                {&sum_.image.directTransient, &r.image.directTransient}})
            addInto(*to, *from);
        for (auto [to, from] : {std::pair{&sum_.directEnergy, &r.directEnergy}, {&sum_.signalFwd, &r.signalFwd},
                                {&sum_.signalAdj, &r.signalAdj}})
            addInto(*to, *from);
        sum_.image.rays += r.image.rays;
    }

    // The pose's result: distances from the summed histories, the image from the summed transients.
    SimulationResult finish() {
        Histories h;
        h.n = sum_.n;
        h.timesteps = sum_.timesteps;
        h.B = std::move(sum_.B);
        const TriangleDistances d = computeTriangleDistances(s_, c_, h, sum_.direct);
        sum_.B = std::move(h.B);
        sum_.pathLength = d.pathLength;
        sum_.distance = d.distance;
        sum_.totalEnergy = d.totalEnergy;
        sum_.echoesCutOff = d.echoesCutOff;
        sum_.image = image();
        if (!timeseries_) sum_.B = sum_.Z = sum_.E = sum_.R = {};
        return std::move(sum_);
    }

    const PhaseTimes& times() const { return times_; }
    void addTime(const std::string& phase, double seconds) { times_.add(phase, seconds); }

private:
    // Every pixel output from the summed transients (scattered by the lens first, if it scatters),
    // then the camera's readout.
    SensorImage image() {
        SensorImage& lit = sum_.image;
        const std::size_t T = c_.timesteps;
        if (c_.scattering.on()) scatterLight(lit.transient, lit.width, lit.height, T, c_.scattering);
        CpuPixelOutputs out(c_, lit.rays);
        std::vector<std::vector<float>> noisy(threadCount(), std::vector<float>(c_.noise.on ? T : 0));
        parallelFor(lit.height, 1, [&](std::size_t begin, std::size_t end, unsigned w) {
            for (std::size_t py = begin; py < end; ++py)
                for (std::uint32_t px = 0; px < lit.width; ++px) {
                    const std::size_t p = py * lit.width + px;
                    float reflectanceSeen = 0.0f;
                    if (lit.triangle[p] >= 0) {
                        out.hit(p, std::uint32_t(lit.triangle[p]), lit.trueDepth[p]);
                        reflectanceSeen = s_.reflectance[std::size_t(lit.triangle[p])];
                    }
                    const float* sig = &lit.transient[p * T];
                    if (std::all_of(sig, sig + T, [](float v) { return v == 0.0f; })) continue;
                    const glm::vec3 dir =
                        shared::rsimPixelDirection(c_.sensor, px, std::uint32_t(py), lit.width, lit.height);
                    out.directFrom(p, dir, &lit.directTransient[p * T]);
                    out.from(p, dir, sig, reflectanceSeen, noisy[w]);
                }
        });
        SensorImage img = out.take();
        SimConfig unscattered = c_; // the transients were scattered already
        unscattered.scattering = {};
        applyCameraReadout(img, unscattered, s_);
        img.readout.scattered = c_.scattering.on();
        return img;
    }

    const PreparedScene& s_;
    const SimConfig& c_;
    bool timeseries_;
    std::size_t lights_ = 0;
    SimulationResult sum_;
    PhaseTimes times_;
};

// Refuses, with the numbers, a sum of lights whose pixel transients the host cannot hold.
void checkTransientMemory(const SimConfig& c) {
    const double bytes = 4.0 * 4.0 * double(c.width) * double(c.height) * double(c.timesteps);
    if (bytes > double(hostShareBytes()))
        throw InputError(fmt::format(
            "{}: every pixel's transient ({} x {} pixels x {} timesteps, {:.1f} GiB for the sums) does not fit "
            "the host memory this run may take ({:.1f} GiB); lower the resolution or simulation.timesteps",
            c.emitters.size() > 1 ? "summing several lights" : "a delayed light or a pulsed camera's lens scattering",
            c.width, c.height, c.timesteps, bytes / double(1ull << 30), double(hostShareBytes()) / double(1ull << 30)));
}

} // namespace

bool needsLightSum(const SimConfig& c) {
    if (c.emitters.size() > 1) return true;
    if (!c.emitters.empty() && c.emitters[0].delayNs > 0.0) return true;
    return c.scattering.on() && c.mode == SensorMode::Pulsed;
}

std::vector<float> delayedPulse(const std::vector<float>& pulse, double steps) {
    if (!(steps > 0.0)) return pulse;
    const std::size_t whole = std::size_t(std::floor(steps));
    const float f = float(steps - double(whole));
    std::vector<float> out(pulse.size() + whole + 1, 0.0f);
    for (std::size_t k = 0; k < pulse.size(); ++k) {
        out[k + whole] += (1.0f - f) * pulse[k];
        out[k + whole + 1] += f * pulse[k];
    }
    if (out.back() == 0.0f) out.pop_back();
    return out;
}

BatchReport simulateLightsBatch(const PhaseBackends& b, const PreparedScene& s, const std::vector<PoseConfig>& poses,
                                const RunOptions& opt, PhaseTimes& times, RunMetadata& meta, const PoseSink& sink) {
    const SimConfig& first = poses[0].config;
    if (!opt.images) throw InputError("summing lights needs the sensor image (output.images = true)");
    checkTransientMemory(first);
    const std::size_t L = first.emitters.size();
    std::vector<PoseConfig> inner;
    for (const PoseConfig& pose : poses)
        for (std::size_t l = 0; l < L; ++l) inner.push_back(lightPose(pose, l));
    if (L > 1) spdlog::info("lights: {} per pose, each a pose of the transport", L);
    RunOptions innerOpt = opt;
    innerOpt.timeseries = true; // the sums need every light's histories on the host
    // A pose group's transport runs one pulse (the GPU's pose lanes share it): lights whose
    // delays differ, and so their pulses, run one at a time.
    const bool samePulses = std::all_of(first.emitters.begin(), first.emitters.end(),
                                        [&](const SimConfig::Emitter& e) { return e.delayNs == first.emitters[0].delayNs; });
    if (!samePulses) innerOpt.maxPoseGroup = 1;
    BatchReport report;
    std::optional<LightSum> sum;
    const PoseSink perLight = [&](std::size_t q, SimulationResult& r, const PhaseTimes& own) {
        const std::size_t p = q / L;
        if (q % L == 0) sum.emplace(s, poses[p].config, opt.timeseries);
        sum->add(r, own);
        if (q % L != L - 1) return;
        const Stopwatch summing;
        SimulationResult combined = sum->finish();
        times.add("distance", summing.seconds()); // the distances and image from the sums
        sum->addTime("distance", summing.seconds());
        if (p == 0) report.firstEchoesCutOff = combined.echoesCutOff;
        if (trianglesWithDistance(combined.distance) > 0) ++report.posesWithDistance;
        sink(p, combined, sum->times());
    };
    const BatchReport ran = simulateBatch(b, s, inner, innerOpt, times, meta, perLight);
    report.poses = std::uint32_t(poses.size());
    report.groupSize = std::max<std::uint32_t>(1, ran.groupSize / std::uint32_t(L));
    report.groups = ran.groups;
    return report;
}

} // namespace rsim
