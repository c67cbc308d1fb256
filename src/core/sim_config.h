// SPDX-License-Identifier: MIT
// What a simulation runs with, derived once from the scene file (scene/scene_config.h). K's
// settings stand apart: K depends on the triangles and on them alone, not on the materials, the
// light or the sensor, so one K serves every pose of a scene.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "core/k_format.h"
#include "rsim/shared/form_factor.h"
#include "rsim/shared/physics.h"

namespace rsim {

enum class PulseShape { Delta, Gaussian, Rectangular };
enum class SensorMode { Pulsed, Amcw, Gated };
// How light goes from the light to the pixels: the radiosity pipeline over K (MODEL.md §2-6),
// Monte Carlo paths traced from each pixel (MODEL.md §10.2), or AMCW phasors solved over K in the
// frequency domain (MODEL.md §11).
enum class Transport { Radiosity, Paths, Phasors };
// "radiosity", "paths" or "phasors", as the scene file and summary.json write it.
inline const char* transportName(Transport t) {
    return t == Transport::Paths ? "paths" : t == Transport::Phasors ? "phasors" : "radiosity";
}
// Camera paths per pixel of the `paths` transport unless sensor.pixel_samples says otherwise.
inline constexpr std::uint32_t kDefaultPathsPerPixel = 64;

// How K_ij is estimated (MODEL §2): by solid angle with the sides blended by area (the default),
// with MODEL.md's equal blend, or by the former area sampling; the last two for comparisons
// (docs/model-choices.md).
enum class KEstimator { SolidAngle, SolidAngleMean, Area };

// simulation.tile_list_max's default, chosen by measurement (docs/benchmarks.md, "Visibility
// settings chosen by measurement"): a listed ray costs less than a traced one only while the
// list is short, so the limit fell as tracing got cheaper: 128 before the traced pairs' blocker
// rounds, 96 until the four-wide ray BVH, 80 since.
inline constexpr std::uint32_t kDefaultTileListMax = 80;
// The lists' area takes (1 + tile_list_max) x 4 bytes per tile of a launch (about 0.27 GB per
// command buffer in flight at 256), and lists that long test more slowly than the rays.
inline constexpr std::uint32_t kMaxTileListMax = 256;

// The geometry phase: how K is sampled and stored.
struct KSettings {
    std::uint32_t samples = 16; // S
    KEstimator estimator = KEstimator::SolidAngle;
    std::uint32_t nearPairFactor = 32; // near pairs take this many times S (form_factor.h)
    std::uint32_t seed = 1;
    // Pairs that nothing can occlude (include/rsim/shared/shaft.h) take the exact unoccluded
    // form factor instead of rays (simulation.clear_pairs = "formula"; off by default until the
    // shaft queries cost less than the rays they save: docs/benchmarks.md, "Visibility settings
    // chosen by measurement").
    bool clearPairsByFormula = false;
    // Vulkan: tiles of pairs whose shaft meets at most this many triangles test their rays
    // against that list instead of tracing them (simulation.tile_list_max; 0: every ray traced;
    // include/rsim/shared/tile_shaft.h).
    std::uint32_t tileListMax = kDefaultTileListMax;
    // Vulkan: the traced pairs' blocker rounds (docs/model-choices.md, "A pair's blockers"), where
    // rsimBlockerRounds allows them; off, every traced ray is traced (the tests compare the two).
    bool blockerRounds = true;
    KFormat format = kDefaultKFormat;       // --kij
    std::uint64_t chunkBytes = 16ull << 20; // --chunk-mb: K chunk budget (rows per LUT)
    bool formatErrors = false;              // --kij-errors: errors of every format (fp32 runs)
    KLayout layout = KLayout::Auto;         // simulation.k_layout
    // Memory the transport will need beside K on a device, per triangle (the B/Z history of T
    // steps): where K can live depends on it, its values do not.
    std::uint32_t transportSteps = 1000;
};

// A light's angular profile (issue 60; rsim/shared/physics.h rsimProfileFactor): relative
// intensities on an even grid of angles, radial (ny = 1) or horizontal x vertical.
struct LightProfile {
    std::uint32_t kind = 0;    // shared::RSIM_PROFILE_*
    std::uint32_t nx = 0, ny = 1;
    glm::vec4 range{0.0f};     // radians: the first and last column's angle, the first and last row's
    std::vector<float> values; // [ny][nx]
    double solidAngleSr = 0.0; // the integral of the profile over the sphere
};

struct SimConfig {
    KSettings k;
    double dtNs = 0.1;
    std::uint32_t timesteps = 1000;   // T
    std::uint32_t directSamples = 16; // S_d
    std::uint32_t seed = 1;           // of the direct terms' samples
    bool indirect = true;
    shared::PointLight light{}; // the first (or only) light: emitters[0]'s
    // Every emitter (issue 60), with the delay of its pulse. A run with more than one, or a
    // delayed one, sums the lights' transports and pixel signals (pipeline/lights_batch.h).
    struct Emitter {
        shared::PointLight light{};
        double delayNs = 0.0;
        std::shared_ptr<const LightProfile> profile; // the table light.profile points into, or none
    };
    std::vector<Emitter> emitters;
    shared::PinholeSensor sensor{};
    std::uint32_t width = 0, height = 0; // sensor pixels
    std::vector<float> pulse;            // p[k], sums to 1
    SensorMode mode = SensorMode::Pulsed;
    std::vector<double> modulationMhz;
    std::uint32_t gateStart = 0, gates = 2; // gated: first bin and number of gates (of pulse.size() bins each)
    // The sensor model (MODEL.md §8): electrons of one frame of a pixel on the optical axis (off
    // it, times cos^4 of the ray's angle) per unit of its signal, and of ambient light per unit of
    // the reflectance seen in one readout (a histogram bin, a gate, a tap: ambientReadoutName);
    // read noise per readout.
    struct Noise {
        bool on = false;
        double electronsPerUnit = 0.0, ambientPerReadout = 0.0, readSigma = 0.0;
        std::uint32_t seed = 1;
    } noise;
    // Lens scattering (MODEL.md §8): fractions and Gaussian sigmas (pixels) of the point-spread
    // function's wide part; empty: none.
    struct Scattering {
        std::vector<double> fractions, sigmasPx;
        bool on() const { return !fractions.empty(); }
    } scattering;
    Transport transport = Transport::Radiosity;
    // A pixel's rays (radiosity) or camera paths (paths) and where they cross it (MODEL.md §10.2,
    // §6): uniform points of the pixel's square (box filter) or its centre.
    struct PixelSampling {
        std::uint32_t perPixel = 1;
        bool boxFilter = false;
    } pixelSampling;
    // The `paths` transport (MODEL.md §10.2): the most vertices a path may have (0: no cap; the
    // time window and Russian roulette end paths).
    struct Paths {
        std::uint32_t maxBounces = 0;
    } paths;
    // The `phasors` transport (MODEL.md §11): a column stops when its largest change falls below
    // `tolerance` of its largest source; at most `maxIterations`; `roundedDelays`: section 3's
    // rounded pair delays and linearly split light and sensor delays (the test mode whose result
    // is the time-stepped transport's discrete-time transform).
    struct Phasors {
        double tolerance = 1e-6;
        std::uint32_t maxIterations = 1000;
        bool roundedDelays = false;
    } phasors;
    // The radiosity image's primary rays per pixel: its centre's alone, or with pixel_samples > 1
    // the centre's (range_true_m, the triangle seen) and then the samples' (MODEL.md §6).
    std::uint32_t primaryRaysPerPixel() const { return pixelSampling.perPixel > 1 ? 1 + pixelSampling.perPixel : 1; }
    std::uint32_t taps = 4;                                      // AMCW taps per frequency
    std::uint32_t waveform = 0;                                  // shared::RSIM_WAVEFORM_*
    // Square waveform with the phasors transport: the odd harmonics solved, up to this one.
    std::uint32_t harmonics = 63;
    // The per-pixel transient: bins [start, start + bins) of pixels x in [x0, x0 + w), y in
    // [y0, y0 + h); w = 0: none.
    struct Transient {
        std::uint32_t start = 0, bins = 0, x0 = 0, y0 = 0, w = 0, h = 0;
        bool direct = false; // also the same bins of the pixels' direct signal alone
    } transient;
    float invCdtSq = 0.0f; // 1 / (c dt)^2, for tau_ij
    double cdtM = 0.0;     // c dt, metres per timestep

    // Fractional delay in timesteps of a path of `metres`.
    double steps(double metres) const { return metres / cdtM; }
};

// The shared code's id of an estimator (RSIM_K_ESTIMATOR_*, include/rsim/shared/form_factor.h).
std::uint32_t kEstimatorId(KEstimator e);
// How the visibility pass samples each pair (form_factor.h), rays offset by `rayEps`.
shared::KSampling kSampling(const KSettings& k, float rayEps);

} // namespace rsim
