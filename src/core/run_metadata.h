// SPDX-License-Identifier: MIT
// How and where a run happened: backend, devices, K's storage, sub-phase timings. Kept apart
// from the physics (core/results.h), which does not depend on any of it.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace rsim {

// K as it was stored: summary.json's k_* fields.
struct KStorageReport {
    std::string format = "fp32";
    bool streaming = false;
    std::uint64_t bytes = 0;
    std::string layout = "dense";  // "dense" or "segments" (k/k_segments.h)
    std::uint64_t segments = 0;    // as segments: how many (of every rank)
    std::uint32_t chunks = 0, rowsPerChunk = 0;
    double rmsError = 0.0; // decoded K against the fp32 values, over all N^2 entries
    double maxAbsError = 0.0;
    // --kij-errors: every format's error against this run's fp32 K (name, rms, max abs).
    struct FormatError {
        std::string format;
        double rms, maxAbs;
    };
    std::vector<FormatError> formatErrors;
};

// How one Vulkan device held K (summary.json `device_memory`).
struct DeviceMemory {
    std::string device;
    std::uint64_t budgetBytes = 0, fixedBytes = 0, kBytes = 0;
    std::uint32_t chunks = 0;
    bool streamed = false;
    std::uint32_t copyGroup = 0; // streamed: chunks per copy
    // Device-local memory this process holds on the device at the end of each phase
    // (VK_EXT_memory_budget's heap usage; the largest over a batch's poses and groups).
    std::vector<std::pair<std::string, std::uint64_t>> inUseAfter;
};

using TimingDetails = std::vector<std::pair<std::string, double>>;

struct RunMetadata {
    std::string backend; // "cpu", "vulkan"
    std::vector<std::string> devices;
    std::string visibilityPath; // "embree", "ray-query", "pipeline", "bvh"
    std::uint32_t threads = 0;
    KStorageReport k;
    std::vector<DeviceMemory> deviceMemory;
    std::uint64_t validationErrors = 0; // Khronos validation layer errors (--validation)
    // Parts of phases a backend times on its own (summary.json `timings_detail_s`), e.g. the
    // GPU time loop without its setup.
    TimingDetails timingDetails;
    bool kFromCache = false; // K was read from the K cache (k/k_cache.h), not computed
    // K's chunks placed from the K cache's chunks file instead of cast (k/k_journal.h): all of
    // them (then kFromCache) or those a stopped run had computed.
    std::uint32_t kChunksFromCache = 0;
    // Phases the CPU ran for a GPU run whose devices have no ray tracing (pipeline/host_rays.h).
    std::vector<std::string> cpuPhases;
    std::vector<std::uint32_t> rowsOfRanks; // MPI row-block mode: each rank's rows of K, in rank order
};

} // namespace rsim
