// SPDX-License-Identifier: MIT
// AMCW in the frequency domain (MODEL.md §11): the complex system (I - M) B^ = E^ of a group of
// poses, one column per (frequency, pose), solved by Jacobi iterations B^(k+1) = E^ + M B^(k),
// M = diag(rho) F D, D_mn = exp(-j Omega r_mn). M does not depend on the pose: a group's poses
// and frequencies are the columns of one block right-hand side, so K and the delays are read
// once per iteration for all of them. A backend solves it (Backend::phasors); the pipeline
// builds the sources (phasorSources) and the outputs (distance/phasor_outputs.h).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <glm/vec2.hpp>

#include "core/prepared_scene.h"
#include "core/results.h"
#include "core/run_metadata.h"
#include "core/sim_config.h"

namespace rsim {

class HostK;
class RowShare;

// The columns of a group: poses x angular frequencies, column c = f * poses + p.
struct PhasorColumns {
    std::uint32_t poses = 0;
    // Radians per timestep, Omega = 2 pi f dt: 0 (the steady state) first, then every
    // modulation frequency, then each one's odd harmonics 3, 5, ... (square waveform).
    std::vector<float> omegas;
    std::uint32_t count() const { return poses * std::uint32_t(omegas.size()); }
};

// The angular frequencies of `config` (PhasorColumns::omegas), and where each modulation
// frequency's harmonic n (odd, 1 = the frequency itself) is among them.
struct PhasorFrequencies {
    std::vector<float> omegas;
    std::uint32_t modulations = 0, harmonics = 1; // harmonics: the odd ones up to this, per frequency
    // Index in omegas of harmonic n (odd, <= harmonics) of modulation frequency f.
    std::uint32_t index(std::uint32_t f, std::uint32_t n) const {
        return n == 1 ? 1 + f : 1 + modulations + f * (harmonics / 2) + (n - 3) / 2;
    }
};
PhasorFrequencies phasorFrequencies(const SimConfig& config);

struct PhasorSystem {
    const SimConfig* config = nullptr; // the group's first pose (where a backend places K for it)
    std::uint32_t n = 0;
    PhasorColumns columns;
    std::vector<glm::vec2> sources; // E^ [n][columns.count()], without the pulse's factor P^
    std::vector<float> reflectance; // rho_m
    // Stop a column once the largest change of its entries falls below tolerance x its largest
    // |E^| (MODEL.md §11); after maxIterations stop all with a warning.
    double tolerance = 1e-6;
    std::uint32_t maxIterations = 1000;
    // Section 3's rounded delays (test mode: the discrete-time transform of the time-stepped
    // transport).
    bool roundedDelays = false;
    float invCdtSq = 0.0f;
    bool indirect = true; // false: B^ = E^
    // The CPU solve's bytes for its pairs listed with their factors (none: a quarter of the
    // host's memory and half of what is free; 0: K decoded and the factors worked out every
    // iteration, the same sums).
    std::optional<std::uint64_t> pairListBytes;
};

struct PhasorSolution {
    std::vector<glm::vec2> values; // B^ [n][columns]
    std::vector<std::uint32_t> iterations; // per column: the iteration whose change fell below its tolerance
    std::vector<double> change; // per column: its last change (largest |B^(k+1) - B^(k)|)
    std::vector<double> scale;  // per column: its largest |E^| (the tolerance's unit)
    std::uint32_t sweeps = 0;   // iterations run (passes over K)
    bool converged = true;
    TimingDetails details;
    std::string summary; // extra detail for the phase's log line
};

// The sources E^_m = rho_m Irr_m exp(-j Omega tL_m) of `poses` poses (their direct terms), for
// the columns of `frequencies` (with `rounded`, tL split linearly as section 3 deposits it).
std::vector<glm::vec2> phasorSources(const PreparedScene& scene, const std::vector<const DirectTerms*>& direct,
                                     const std::vector<float>& omegas, bool rounded);

// The largest change of each column between two iterates, and whether it is below tolerance x scale;
// the solvers' shared bookkeeping. `active` marks the columns still iterated; it is updated.
struct PhasorConvergence {
    explicit PhasorConvergence(const PhasorSystem& system);
    // After iteration `k` with the columns' changes: returns whether any column is still active.
    bool update(std::uint32_t k, const std::vector<double>& changes, PhasorSolution& out);
    std::vector<std::uint8_t> active;
    std::vector<double> scale;     // per column: its largest |E^|
    std::vector<double> tolerance; // per column: the system's tolerance x scale

private:
    // The steady-state (Omega = 0) columns' changes of the last kWindow + 1 iterations: their
    // ratio per iteration tends to the spectral radius of diag(rho) F (the system is
    // non-negative, the Jacobi iteration a power iteration), which must be below 1.
    static constexpr std::uint32_t kWindow = 8;
    void checkSpectralRadius(std::uint32_t k, const std::vector<double>& changes);
    std::uint32_t dcColumns_ = 0;
    std::vector<std::vector<double>> dcHistory_;
};

// Row-block mode (MPI): this rank's rows of `iterate` [n][columns] (RowShare::rowBegin to
// rowEnd) to every rank and theirs into it, and the largest changes over all ranks' rows;
// returns the seconds it took.
double swapPhasorRows(const RowShare& share, std::uint32_t columns, std::vector<glm::vec2>& iterate,
                      std::vector<double>& changes);

// The solve on the CPU, over K in any format (every core; with `share`, this MPI rank's rows of
// K, the new rows exchanged after each iteration). A column's result does not depend on the other
// columns of its group.
PhasorSolution solvePhasorsCpu(const PreparedScene& scene, const HostK* K, const PhasorSystem& system,
                               const RowShare* share = nullptr);

} // namespace rsim
