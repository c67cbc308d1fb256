// SPDX-License-Identifier: MIT
// What a backend hands to the output phase. Per-triangle arrays are in internal (Morton) order;
// the writers convert to stable ids.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace rsim {

struct DirectTerms {
    std::vector<float> irradiance; // Irr_i, W/m^2 (MODEL §4)
    std::vector<float> importance; // w_i of the sensor source R
    std::vector<float> tLight;     // tL_i, fractional timesteps
    std::vector<float> tSensor;    // tS_i
    std::uint64_t shadowRays = 0;
};

struct SensorImage {
    std::uint32_t width = 0, height = 0;
    std::vector<float> depth;     // estimated sensor distance along the pixel ray, m (NaN: none)
    std::vector<float> trueDepth; // distance to the first hit, m (NaN: no hit)
    std::vector<float> amplitude; // signal amplitude (sum of the pixel's signal, or |phasor|)
    std::vector<std::int32_t> triangle; // internal index of the hit triangle, -1 for none
    std::uint64_t rays = 0; // primary rays (one per pixel)
};

// Rows of F whose sum exceeds this are counted (VisibilityStats::rowsOverOne).
inline constexpr double kRowSumWarning = 1.05;
// A run warns when a row sum exceeds this (docs/model-choices.md, "Row sums").
inline constexpr double kRowSumAlarm = 1.2;

struct VisibilityStats {
    std::uint64_t candidatePairs = 0; // i < j pairs that can face each other
    std::uint64_t nonzeroPairs = 0;   // i < j with K_ij > 0
    std::uint64_t raysCast = 0;
    // Energy diagnostics of K (MODEL §2 clamp): ordered pairs with K_ij A_j > 1, the largest
    // row sum sum_j F_ij (physically <= 1), and the rows whose sum exceeds 1.05.
    std::uint64_t clampedFormFactors = 0;
    double maxRowSum = 0.0;
    std::uint64_t rowsOverOne = 0;
    double raySeconds = 0.0; // the ray dispatches alone (GPU), without allocation and setup
    double hostAllocationSeconds = 0.0; // host-assembled K: zeroed fp32 chunks before the first ray
};

struct SimulationResult {
    std::uint32_t n = 0, timesteps = 0;
    // Time series, [i * T + t].
    std::vector<float> B, Z, E, R;
    std::vector<float> K; // N x N decoded K (row i, column j), only when requested
    DirectTerms direct;
    std::vector<double> pathLength; // L_i, m (NaN: undefined)
    std::vector<double> distance;   // d_i, m (NaN: no light or not seen)
    SensorImage image;
    VisibilityStats visibility;
    std::vector<double> signalFwd, signalAdj; // s_fwd(t), s_adj(t) (MODEL §5)
    std::uint64_t echoesCutOff = 0; // triangles whose echo ran past the simulated time

    // What ran.
    std::string backend;          // "cpu", "vulkan"
    std::vector<std::string> devices;
    std::string visibilityPath;   // "embree", "ray-query", "pipeline"
    std::string kFormat = "fp32";
    bool streaming = false;
    std::uint64_t kBytes = 0;
    std::uint32_t kChunks = 0, kRowsPerChunk = 0;
    double kRmsError = 0.0;    // decoded K against the fp32 values, over all N^2 entries
    double kMaxAbsError = 0.0;
    // --kij-errors: every format's error against this run's fp32 K (name, rms, max abs).
    struct FormatErrorEntry {
        std::string format;
        double rms, maxAbs;
    };
    std::vector<FormatErrorEntry> kFormatErrors;
    std::uint32_t threads = 0;
    std::uint64_t validationErrors = 0; // Khronos validation layer errors (--validation)
    // Parts of phases a backend times on its own (summary.json `timings_detail_s`), e.g. the
    // GPU time loop without its setup.
    std::vector<std::pair<std::string, double>> timingDetails;
    // How each Vulkan device held K (summary.json `device_memory`).
    struct DeviceMemory {
        std::string device;
        std::uint64_t budgetBytes = 0, fixedBytes = 0, kBytes = 0;
        std::uint32_t chunks = 0;
        bool streamed = false;
        std::uint32_t copyGroup = 0; // streamed: chunks per copy
    };
    std::vector<DeviceMemory> deviceMemory;
};

} // namespace rsim
