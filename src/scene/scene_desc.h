// SPDX-License-Identifier: MIT
// What a scene file says (MODEL.md §9), after validation. Defaults here are the documented
// defaults of scenes/example.toml.
#pragma once
#include <array>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <glm/vec3.hpp>

#include "core/material.h"
#include "core/sim_config.h"
#include "scene/tuning.h"

namespace rsim {


struct SimulationSettings {
    double dt_ns = 0.1;
    std::uint32_t timesteps = 1000;
    std::uint32_t samples = 16;
    KEstimator k_estimator = KEstimator::SolidAngle;
    std::uint32_t near_pair_factor = 32; // near pairs take this many times `samples`
    bool clear_pairs_formula = false;    // clear_pairs = "formula" (default "rays")
    std::uint32_t tile_list_max = kDefaultTileListMax; // Vulkan: longest occluder list a tile tests
    KLayout k_layout = KLayout::Auto;    // k_layout = "auto", "dense" or "segments" (issue 63)
    std::uint32_t direct_samples = 16;
    std::uint32_t seed = 1;
    bool indirect = true;
    double max_edge_m = 0.0;
    Transport transport = Transport::Radiosity; // MODEL.md §10.2
    std::uint32_t max_bounces = 0;              // paths: most vertices per path (0: no cap)
    double phasor_tolerance = 1e-6;             // phasors: MODEL.md §11
    std::uint32_t phasor_max_iterations = 1000;
    bool phasor_rounded_delays = false;         // phasor_delays = "rounded" (test mode)
};

// One emitter ([light], or each [[light]]; issue 60). Its pulse's shape is the first light's for
// every light (one driver fires them); each may be delayed.
struct LightDesc {
    glm::dvec3 position{0.0, 0.0, 1.5};
    glm::dvec3 direction{1.0, 0.0, 0.0};
    // Placed in the camera's frame instead (OpenCV: x right, y down, z forward), so it moves with
    // the rig: resolved into position / direction once the sensor is read.
    std::optional<glm::dvec3> offset_camera, direction_camera;
    double delay_ns = 0.0; // the pulse leaves this light this much later
    // An angular profile from a CSV table (profile: against the angle to the axis; profile_2d:
    // horizontal x vertical angle), instead of the cone; power_w is then its total power.
    std::shared_ptr<const LightProfile> profile;
    std::string profile_file; // as written, with its key: "profile = x.csv" (summary.json)
    double half_angle_deg = 180.0;
    double power_w = 1.0;
    double falloff_exponent = 0.0; // cos^m falloff inside the cone; 0 = none
    PulseShape pulse = PulseShape::Delta;
    double pulse_fwhm_ns = 0.5;
    double pulse_width_ns = 0.0; // rectangular: a whole number of timesteps
};

struct SensorDesc {
    std::optional<glm::dvec3> position; // defaults to the light's position
    glm::dvec3 look_at{1.0, 0.0, 1.5};
    glm::dvec3 up{0.0, 0.0, 1.0};
    double fov_h_deg = 70.0;
    double fov_v_deg = 55.0;
    // A lens model instead of the field of view (issue 60): OpenCV's fx, fy, cx, cy (pixels,
    // centres at integers) and distortion k1, k2, p1, p2, k3.
    std::optional<std::array<double, 4>> intrinsics;
    std::array<double, 5> distortion{0.0, 0.0, 0.0, 0.0, 0.0};
    std::uint32_t width = 320;
    std::uint32_t height = 240;
    SensorMode mode = SensorMode::Pulsed;
    std::vector<double> modulation_mhz{20.0};
    double gate_start_ns = 0.0;          // gated: when the first gate opens (whole timesteps)
    std::uint32_t gates = 2;             // gated: 2 or 3 contiguous gates as long as the pulse
    std::uint32_t taps = 4;             // AMCW correlation taps per frequency (images.h5)
    std::string waveform = "sinusoidal"; // AMCW modulation: "sinusoidal" or "square"
    std::uint32_t harmonics = 63;        // phasors, square waveform: the odd harmonics solved
    // Rays (radiosity) or camera paths (paths) per pixel, and where in the pixel they start
    // (MODEL.md §10.2): uniformly over its square ("box") or at its centre ("centre").
    std::uint32_t pixel_samples = 1;
    bool pixel_filter_box = false;
};

// [[material]] (MODEL.md §10.1): the BSDF's type and its parameters (core/material.h). The
// radiosity pipeline sees every type as Lambertian with its albedo at normal incidence.
struct MaterialDesc {
    std::string name;
    MaterialModel model;      // a conductor's `specular` is required
    bool two_sided = false;   // a dielectric sheet has two fronts whatever this says
};

struct MeshDesc {
    std::filesystem::path path; // resolved against the scene file's folder
    std::string pathAsWritten;  // for messages
    std::optional<std::string> material;
    glm::dvec3 translate{0.0};
    glm::dvec3 rotate_deg{0.0};
    glm::dvec3 scale{1.0};
    bool skip_nonfinite = false; // drop triangles with NaN/inf vertices instead of failing
    std::string where;           // "scene.toml:14 ([[mesh]] #2)", for messages
};

// One camera pose of a batch (MODEL.md §9, "Poses").
struct PoseDesc {
    std::string name;                 // its results subdirectory
    glm::dvec3 position{0.0};         // of the sensor
    glm::dvec3 lookAt{1.0, 0.0, 0.0}; // a point the sensor looks at
    std::optional<glm::dvec3> up;     // default: the scene's sensor.up
    std::string where;                // "poses.csv:3", "scene.toml:40 ([[pose]] #2)", for messages
};

struct OutputDesc {
    std::filesystem::path dir = "results";
    bool timeseries = true;
    bool kij = false;
    bool images = true;
    // The per-pixel transient in images.h5: bins [transient_start, + transient_bins) (0: to the
    // end of the window) of the pixels in transient_roi = x, y, width, height (0 width: all).
    bool transient = false;
    std::uint32_t transient_start = 0;
    std::uint32_t transient_bins = 0;
    std::vector<double> transient_roi{0.0, 0.0, 0.0, 0.0};
};

// The optional sensor model (MODEL.md §8, images.h5 `noise/`): radiometry to electrons, shot,
// ambient and read noise; the frame's exposure; and the lens's scattering.
struct SensorModelDesc {
    bool enabled = false;
    // The light of one frame: `pulses` pulses of `pulse_energy_uj` within `exposure_us`. A scene
    // may give the mean optical power instead of the pulse energy (pulse_energy = mean power x
    // exposure / pulses) and the pulse rate instead of the count (pulses = rate x exposure); the
    // reader resolves both into pulse_energy_uj and pulses and records which were given.
    double pulse_energy_uj = 1.0;     // optical energy of one emitted pulse
    std::uint32_t pulses = 1000;      // pulses accumulated in one frame
    double exposure_us = 1000.0;      // the time one raw frame (a tap's, a gate's) integrates light
    std::optional<double> mean_power_w;   // as given, else none
    std::optional<double> pulse_rate_mhz; // as given, else none
    double f_number = 1.2;
    double pixel_pitch_um = 10.0;
    double fill_factor = 1.0;
    double quantum_efficiency = 0.3;
    double wavelength_nm = 850.0;
    double ambient_w_m2 = 0.0;        // ambient irradiance on every surface, in the sensor's band
    double read_noise_e = 5.0;        // electrons rms per readout
    std::uint32_t seed = 1;
    // Lens scattering (MODEL.md §8): the point-spread function (1 - sum f_k) delta + sum_k f_k
    // G(sigma_k), G an isotropic Gaussian of sigma_k pixels; empty: none.
    std::vector<double> scattering_fractions;
    std::vector<double> scattering_sigmas_px;
};

struct SceneDesc {
    std::filesystem::path file; // the scene file, absolute
    SimulationSettings sim;
    LightDesc light;                    // [light], or the first [[light]]
    std::vector<LightDesc> moreLights;  // the second and later [[light]] tables
    SensorDesc sensor;
    SensorModelDesc sensorModel;
    std::vector<MaterialDesc> materials;
    std::vector<MeshDesc> meshes;
    OutputDesc output;
    std::vector<PoseDesc> poses; // [[pose]] tables (a batch when not empty)
    TuningDesc tuning;           // [tuning] (scene/tuning.h, docs/tuning.md)

    glm::dvec3 sensorPosition() const { return sensor.position.value_or(light.position); }
};

// One command-line override, "table.key=value" with a TOML value (e.g. simulation.samples=32).
struct SceneOverride {
    std::string key;   // dotted path, e.g. "simulation.samples"
    std::string value; // TOML value text, e.g. "32", "true", "[1.0, 2.0, 3.0]", "\"gaussian\""
    std::string origin = {}; // the option as written, for messages ("--dt-ns 0"); empty:
                             // "--set KEY=VALUE"
};

// Reads and validates a scene file; throws InputError naming the file, line, key and what was
// expected. Overrides are applied before validation, so they are checked like file values.
SceneDesc loadSceneFile(const std::filesystem::path& file,
                        const std::vector<SceneOverride>& overrides = {});

// Largest coordinate accepted anywhere (positions, look-at points, mesh vertices after their
// transform), m. Triangles and distances are fp32 (max ~3.4e38), and areas and squared distances
// are products of two coordinates, so coordinates must stay below ~1.8e19.
constexpr double kMaxCoordinateM = 1e18;
// Most timesteps a run may have (simulation.timesteps).
constexpr std::uint32_t kMaxTimesteps = 10'000'000;
// Range of a mesh's `scale` on each axis, in magnitude (a negative scale mirrors).
constexpr double kMinScale = 1e-9, kMaxScale = 1e9;
// Range of light.power_w, W: fp32 radiances of weaker lights underflow to zero on the way.
constexpr double kMinPowerW = 1e-15, kMaxPowerW = 1e12;

// "solid-angle", "solid-angle-mean", "area" (simulation.k_estimator) and back.
const char* kEstimatorName(KEstimator e);
KEstimator kEstimatorFromName(const std::string& name);

// Sigma of a Gaussian pulse of the given FWHM, both in timesteps.
double gaussianSigmaSteps(double fwhmSteps);
// Length P in timesteps of the sampled Gaussian pulse of the given FWHM in timesteps (+-3 sigma,
// at least 3 bins), in double so that callers can check it before allocating.
double pulseLengthSteps(double fwhmSteps);

// Range of simulation.dt_ns (and --dt-ns), ns: outside it 1 / (c dt)^2 and pulse lengths in
// timesteps leave float range. kDtRangeText is the same range as messages print it.
inline constexpr double kMinDtNs = 1e-6, kMaxDtNs = 1e6;
inline constexpr const char* kDtRangeText = "[1e-6, 1e6]";


} // namespace rsim
