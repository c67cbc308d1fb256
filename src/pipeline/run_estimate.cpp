// SPDX-License-Identifier: MIT
#include "pipeline/run_estimate.h"

#include <algorithm>
#include <string>
#include <thread>

#include <fmt/format.h>

#include "core/k_format.h"
#include "util/error.h"
#include "rsim/shared/kformat.h"

namespace rsim {
namespace {

// Typical throughputs (docs/benchmarks.md, "One GPU: whole run and phases"): visibility rays per
// second, and transport "pair-steps" (N^2 T for one pose) per second. Medium room on a
// data-centre GPU without RT cores (the H100 the user-facing line names): 633 M rays in 0.40 s,
// 1.3e11 pair-steps in 0.115 s (one pose; 62 ms per pose in batches); on 16 CPU cores 14.5 s and
// 34.5 s; lavapipe on 2 cores: the tiny room, 2.2 M rays in 1.5 s and 3.2e8 pair-steps in 0.28 s.
struct Throughput {
    double raysPerSecond, pairStepsPerSecond;
};
constexpr Throughput kGpu{1.5e9, 1.0e12};          // one data-centre GPU without RT cores
constexpr Throughput kCpuPerThread{2.7e6, 2.4e8};  // Embree and the C++ transport, per thread
constexpr Throughput kSoftwarePerThread{0.7e6, 5.0e8}; // lavapipe, per host thread

// The paths transport (docs/benchmarks.md, "Paths transport"): rays per second (centre rays, path
// segments and shadow rays) on the medium room at 1024 paths per pixel, max 16 vertices: an H200
// on the bvh path 0.47 G rays/s, its 16 CPU cores 51.9 M rays/s (3.2 M per thread); lavapipe on
// 2 cores 0.56 M rays/s. About 6.2 rays per path there.
constexpr double kGpuPathRaysPerSecond = 4.7e8, kCpuPathRaysPerThread = 3.2e6, kSoftwarePathRaysPerThread = 2.8e5;
constexpr double kRaysPerPath = 6.2;

// Rooms cast about 0.3 N^2 S rays (medium room: 633 M at N = 11,458, S = 16): facing pairs,
// both directions of a pair traced once, plus the near pairs' extra samples.
constexpr double kRaysPerPairSample = 0.3;

} // namespace

RunEstimate estimateRun(const RunMetadata& meta, std::size_t triangles, const SimConfig& c, bool kCached) {
    RunEstimate e;
    const double n = double(triangles);
    e.kBytes = n * n * double(shared::rsimKBits(kFormatInfo(c.k.format).storage)) / 8.0;
    e.historyBytesPerPose = n * double(c.timesteps) * 8.0;
    e.rays = kCached ? 0.0 : kRaysPerPairSample * n * n * double(c.k.samples);
    Throughput t;
    const std::size_t devices = std::max<std::size_t>(1, meta.devices.size());
    const bool software = std::any_of(meta.devices.begin(), meta.devices.end(),
                                      [](const std::string& d) { return d.find("CPU (software)") != std::string::npos; });
    if (meta.backend == "cpu") {
        const double threads = double(std::max<std::uint32_t>(1, meta.threads));
        t = {kCpuPerThread.raysPerSecond * threads, kCpuPerThread.pairStepsPerSecond * threads};
        e.where = fmt::format("{} CPU threads", meta.threads);
    } else if (software) {
        const double threads = double(std::max(1u, std::thread::hardware_concurrency()));
        t = {kSoftwarePerThread.raysPerSecond * threads, kSoftwarePerThread.pairStepsPerSecond * threads};
        e.where = "a software Vulkan device";
    } else {
        t = {kGpu.raysPerSecond * double(devices), kGpu.pairStepsPerSecond * double(devices)};
        e.where = fmt::format("{} GPU(s) like an H100", devices);
    }
    if (meta.backend == "cpu")
        e.hostKBytes = c.indirect ? (kCached ? e.kBytes : n * n * 4.0 + e.kBytes) : 0.0;
    e.hostHistoryBytes = n * double(c.timesteps) * 16.0;
    // The images (12 float arrays) and the transient cube ([output] transient).
    e.hostImageBytes = double(c.width) * double(c.height) * 4.0 * 12.0 +
                       double(c.transient.w) * double(c.transient.h) * double(c.transient.bins) * 4.0;
    e.visibilitySeconds = e.rays / t.raysPerSecond;
    e.transportSecondsPerPose = (c.indirect ? n * n : n) * double(c.timesteps) / t.pairStepsPerSecond;
    return e;
}

void countRetainedPoses(RunEstimate& e, std::size_t triangles, const SimConfig& c, std::size_t poses, bool histories) {
    const double n = double(triangles);
    e.retainedPoses = poses;
    e.retainedBytesPerPose = e.hostImageBytes + n * 16.0 + double(c.timesteps) * 8.0 +
                             (histories ? n * double(c.timesteps) * 8.0 : 0.0);
}

void checkHostMemory(const RunEstimate& e, const SimConfig& c, std::uint64_t available) {
    if (available == 0 || e.hostBytes() <= double(available)) return;
    const double gib = 1024.0 * 1024.0 * 1024.0;
    const std::string retained =
        e.retainedPoses > 1 ? fmt::format(", and every pose's results kept until the call returns {:.1f} GiB ({} poses; "
                                          "run fewer poses per call)",
                                          e.retainedBytesPerPose * double(e.retainedPoses) / gib, e.retainedPoses)
                            : std::string();
    throw InputError(fmt::format(
        "this run needs about {:.1f} GiB of host memory and {:.1f} GiB are available (the machine's free memory, "
        "a cgroup's limit or ulimit -v): K {:.1f} GiB, the time histories {:.1f} GiB ({} timesteps), the images "
        "{:.1f} GiB ({} x {} pixels{}){}. Lower what dominates: simulation.timesteps (--timesteps), the sensor "
        "resolution, [output] transient, the triangle count (simulation.max_edge_m), or let a GPU hold K "
        "(--backend vulkan)",
        e.hostBytes() / gib, double(available) / gib, e.hostKBytes / gib, e.hostHistoryBytes / gib, c.timesteps,
        e.hostImageBytes / gib, c.width, c.height,
        c.transient.w > 0 ? fmt::format(", a transient of {} x {} x {} bins", c.transient.w, c.transient.h, c.transient.bins)
                          : std::string(),
        retained));
}

std::string describePathsEstimate(const RunMetadata& meta, const SimConfig& c, std::size_t poses) {
    const double rays = double(c.width) * double(c.height) * double(c.pixelSampling.perPixel) * kRaysPerPath;
    const bool software = std::any_of(meta.devices.begin(), meta.devices.end(),
                                      [](const std::string& d) { return d.find("CPU (software)") != std::string::npos; });
    double rate = kGpuPathRaysPerSecond;
    std::string where = "a GPU like an H200";
    if (meta.backend == "cpu") {
        rate = kCpuPathRaysPerThread * double(std::max<std::uint32_t>(1, meta.threads));
        where = fmt::format("{} CPU threads", meta.threads);
    } else if (software) {
        rate = kSoftwarePathRaysPerThread * double(std::max(1u, std::thread::hardware_concurrency()));
        where = "a software Vulkan device";
    }
    const double perPose = rays / rate;
    auto secs = [](double s) {
        return s >= 120.0 ? fmt::format("{:.0f} min", s / 60.0) : s >= 1.0 ? fmt::format("{:.0f} s", s) : fmt::format("{:.2f} s", s);
    };
    return fmt::format("estimate (rough, from typical throughput on {}, about {} rays per path in a room): paths {:.2g} "
                       "rays, {} per pose{}",
                       where, kRaysPerPath, rays, secs(perPose),
                       poses > 1 ? fmt::format(" ({} for {} poses)", secs(perPose * double(poses)), poses) : std::string());
}

std::string describeEstimate(const RunEstimate& e, std::size_t poses) {
    auto bytes = [](double b) {
        return b >= 1073741824.0 ? fmt::format("{:.1f} GiB", b / 1073741824.0)
               : b >= 1048576.0  ? fmt::format("{:.0f} MiB", b / 1048576.0)
                                 : fmt::format("{:.0f} KiB", b / 1024.0);
    };
    auto secs = [](double s) {
        return s >= 120.0 ? fmt::format("{:.0f} min", s / 60.0) : s >= 1.0 ? fmt::format("{:.0f} s", s) : fmt::format("{:.2f} s", s);
    };
    return fmt::format("estimate (rough, from typical throughput on {}): K {}, B/Z histories {} per pose; "
                       "visibility {} ({:.2g} rays), transport {} per pose{}",
                       e.where, bytes(e.kBytes), bytes(e.historyBytesPerPose),
                       e.rays > 0.0 ? secs(e.visibilitySeconds) : std::string("none (K from the cache)"), e.rays,
                       secs(e.transportSecondsPerPose),
                       poses > 1 ? fmt::format(" ({} for {} poses)", secs(e.transportSecondsPerPose * double(poses)), poses)
                                 : std::string());
}

} // namespace rsim
