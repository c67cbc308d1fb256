// SPDX-License-Identifier: MIT
// What the phases compute (physics only; how and where it ran is in core/run_metadata.h).
// Per-triangle arrays are in internal (Morton) order; the writers convert to stable ids.
#pragma once
#include <cstdint>
#include <memory>
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

// Rows of F whose sum exceeds this are counted (VisibilityStats::rowsOverOne).
inline constexpr double kRowSumWarning = 1.05;
// A run warns when a row sum exceeds this (docs/model-choices.md, "Row sums").
inline constexpr double kRowSumAlarm = 1.2;

struct VisibilityStats {
    std::uint64_t candidatePairs = 0; // i < j pairs that can face each other
    std::uint64_t nonzeroPairs = 0;   // i < j with K_ij > 0
    std::uint64_t raysCast = 0;
    std::uint64_t clearPairs = 0; // candidate pairs that nothing can occlude: no rays (shaft.h)
    // Occluder lists of tiles of pairs (tile_shaft.h; Vulkan only): rays tested against a list
    // instead of traced, tiles with a list, tiles whose list was too long, and the lists' entries.
    std::uint64_t raysListed = 0;
    std::uint64_t tilesListed = 0;
    std::uint64_t tilesLong = 0;
    std::uint64_t tileListEntries = 0;
    // Rays whose verdict came from the triangles that blocked their pair's earlier rays
    // (visibility_pairs.glsl; Vulkan only), not from a traversal or a list: part of raysCast.
    std::uint64_t raysByBlockers = 0;
    // Energy diagnostics of K (MODEL §2 clamp): ordered pairs with K_ij A_j > 1, the largest
    // row sum sum_j F_ij (physically <= 1), and the rows whose sum exceeds kRowSumWarning.
    std::uint64_t clampedFormFactors = 0;
    double maxRowSum = 0.0;
    std::uint64_t rowsOverOne = 0;

    // Adds another part's counts (pairs, rays, tiles; not the energy diagnostics).
    void addCounts(const VisibilityStats& o) {
        candidatePairs += o.candidatePairs;
        nonzeroPairs += o.nonzeroPairs;
        raysCast += o.raysCast;
        clearPairs += o.clearPairs;
        raysListed += o.raysListed;
        tilesListed += o.tilesListed;
        tilesLong += o.tilesLong;
        tileListEntries += o.tileListEntries;
        raysByBlockers += o.raysByBlockers;
    }
};

// A backend's own copy of a result (e.g. the B/Z history on a GPU), which its later phases use
// instead of the host arrays; other backends ignore it.
struct DeviceCopy {
    virtual ~DeviceCopy() = default;
};

// B, Z and their sources E, R over time, [i * T + t]. The host arrays may be empty when a
// backend keeps the series on its device (`device`) and no phase needs them on the host.
struct Histories {
    std::uint32_t n = 0, timesteps = 0;
    std::vector<float> B, Z, E, R;
    std::shared_ptr<const DeviceCopy> device;
};

struct TriangleDistances {
    std::vector<double> pathLength;  // L_i, m (NaN: undefined)
    std::vector<double> distance;    // d_i, m (NaN: no light or not seen)
    std::vector<double> totalEnergy; // sum_t B_i(t)
    std::uint64_t echoesCutOff = 0; // triangles whose echo ran past the simulated time
};

// The first hit of each pixel's primary ray (MODEL §6), as the pixel pass reads it: four floats
// per pixel, the record of include/rsim/shared/primary_hit.h.
struct PrimaryHits {
    std::vector<float> values;
    std::uint64_t rays = 0; // primary rays (shadow rays not counted)
};

// The camera readout's part of a sensor image (distance/camera_readout.h, MODEL.md §8): the
// per-frequency ranges of the taps, and with the sensor model the raw data as noisy electrons.
struct CameraReadout {
    std::vector<float> tapsRange;        // AMCW [F][pixels]: the range of each frequency's taps' phase, m
    std::vector<float> noisyTaps;        // AMCW [F][pixels][K], electrons
    std::vector<float> noisyTapsRange;   // AMCW [F][pixels], m
    std::vector<float> noisyGates;       // gated [G][pixels], electrons
    std::vector<float> electronsPerUnit; // [pixels]: electrons of one frame per unit of signal
    std::vector<float> ambientElectrons; // [pixels]: mean ambient electrons of one readout
    std::vector<std::int32_t> outOfRangeMask; // gated [pixels]: 1 where the echo is past the gates
    std::uint64_t outOfRange = 0;        // gated pixels whose echo is past the gates (NaN range)
    bool scattered = false;              // lens scattering was applied to the raw data
};

struct SensorImage {
    std::uint32_t width = 0, height = 0;
    std::vector<float> depth;     // estimated sensor distance along the pixel ray, m (NaN: none)
    std::vector<float> trueDepth; // distance to the first hit, m (NaN: no hit)
    std::vector<float> amplitude; // signal amplitude (sum of the pixel's signal, or |phasor|)
    std::vector<float> directDepth; // the same estimate from the pixel's direct signal alone, m (NaN: none)
    std::vector<float> noisyDepth;  // with the sensor model: the estimate from the noisy electrons, m
    std::vector<std::int32_t> triangle; // internal index of the hit triangle, -1 for none
    // AMCW mode, per modulation frequency f (MODEL.md §8, images.h5 `amcw/`): the phasor
    // sum_t s(t) exp(-i w_f t) as [F][pixels][2] (re, im), the taps [F][pixels][K] and the phase
    // of the taps [F][pixels] (NaN: no signal).
    std::vector<float> phasor, taps, tapsPhase;
    // Gated mode: the gate sums [G][pixels] (rsimGateSums, noise-free).
    std::vector<float> gates;
    // What the camera readout (distance/camera_readout.h) adds to the image the backend made.
    CameraReadout readout;
    // The transient s(t) of the pixels in SimConfig::transient's region, [h][w][bins], and with
    // SimConfig::Transient::direct their direct signal alone, the same way.
    std::vector<float> transient, directTransient;
    std::uint64_t rays = 0;             // primary rays (one per pixel)
};

// How the phasors transport's solve of a pose's group went (MODEL.md §11; summary.json `phasors`),
// per angular frequency of the pose: the steady state (0) first, then the modulation
// frequencies, then their harmonics.
struct PhasorReport {
    std::vector<double> omegas;            // radians per timestep
    std::vector<std::uint32_t> iterations; // until the column's change fell below its tolerance
    std::vector<double> change;            // the last change, largest |B^(k+1) - B^(k)|
    std::vector<double> tolerance;         // the tolerance it was held to
    std::uint32_t sweeps = 0;              // iterations of the group (passes over K)
    std::uint32_t groupPoses = 0;          // poses solved together
    double q = -1.0; // the contraction bound max_m rho_m sum_n F_mn from K's row sums (< 0: unknown)
    bool converged = true;
};

struct SimulationResult {
    std::uint32_t n = 0, timesteps = 0;
    // Time series, [i * T + t].
    std::vector<float> B, Z, E, R;
    std::vector<float> K; // N x N decoded K (row i, column j), only when requested
    DirectTerms direct;
    std::vector<double> pathLength; // L_i, m (NaN: undefined)
    std::vector<double> distance;   // d_i, m (NaN: no light or not seen)
    // sum_t E_i(t) and sum_t B_i(t) (triangles.csv), also when the time series stay on a device.
    std::vector<double> directEnergy, totalEnergy;
    SensorImage image;
    VisibilityStats visibility;
    std::vector<double> signalFwd, signalAdj; // s_fwd(t), s_adj(t) (MODEL §5)
    std::uint64_t echoesCutOff = 0;           // triangles whose echo ran past the simulated time
    PhasorReport phasors;                     // the phasors transport's solve (empty otherwise)
};

// The bytes a result's arrays hold (what a writer queue holds per pose).
inline std::uint64_t heldBytes(const SimulationResult& r) {
    auto of = [](const auto& v) { return std::uint64_t(v.size()) * sizeof(v[0]); };
    const SensorImage& i = r.image;
    const DirectTerms& d = r.direct;
    return of(r.B) + of(r.Z) + of(r.E) + of(r.R) + of(r.K) + of(d.irradiance) + of(d.importance) + of(d.tLight) +
           of(d.tSensor) + of(r.pathLength) + of(r.distance) + of(r.directEnergy) + of(r.totalEnergy) +
           of(r.signalFwd) + of(r.signalAdj) + of(i.depth) + of(i.trueDepth) + of(i.amplitude) + of(i.directDepth) +
           of(i.noisyDepth) + of(i.triangle) + of(i.phasor) + of(i.taps) + of(i.tapsPhase) + of(i.gates) + of(i.transient) + of(i.directTransient) +
           of(i.readout.tapsRange) + of(i.readout.noisyTaps) + of(i.readout.noisyTapsRange) +
           of(i.readout.noisyGates) + of(i.readout.electronsPerUnit) + of(i.readout.ambientElectrons) +
           of(i.readout.outOfRangeMask);
}

} // namespace rsim
