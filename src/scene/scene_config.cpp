// SPDX-License-Identifier: MIT
#include "scene/scene_config.h"
#include "scene/unit_vector.h"

#include <algorithm>
#include <array>
#include <cmath>

#include <glm/geometric.hpp>

#include "rsim/shared/pixel_outputs.h"
#include "util/error.h"

namespace rsim {

std::vector<float> makePulse(PulseShape shape, double fwhmSteps, double widthSteps) {
    if (shape == PulseShape::Delta) return {1.0f};
    if (shape == PulseShape::Rectangular) {
        // W bins of 1 / W: emitted over [0, W) timesteps (the linear split of a delay spreads
        // each bin over two, so the pulse lasts W bins in the signal).
        const long W = std::lround(widthSteps);
        if (W < 1 || W > 10'000'000)
            throw InputError("a rectangular pulse must last 1 to 10^7 whole timesteps (light.pulse_width_ns)");
        return std::vector<float>(std::size_t(W), 1.0f / float(W));
    }
    const double sigma = gaussianSigmaSteps(fwhmSteps);
    // Scene files are checked against the window (loadSceneFile); this guards other callers
    // from an int overflow or a huge allocation.
    const double length = pulseLengthSteps(fwhmSteps);
    if (!(length <= 1e7))
        throw InputError("a Gaussian pulse of FWHM " + std::to_string(fwhmSteps) +
                         " timesteps would be " + std::to_string(length) +
                         " timesteps long; shorten light.pulse_fwhm_ns or raise dt_ns");
    const int half = int((length - 1.0) / 2.0);
    std::vector<double> p(std::size_t(2 * half + 1));
    double sum = 0.0;
    for (int k = 0; k <= 2 * half; ++k) {
        double x = double(k - half) / sigma;
        p[std::size_t(k)] = std::exp(-0.5 * x * x);
        sum += p[std::size_t(k)];
    }
    std::vector<float> out;
    for (double v : p)
        out.push_back(float(v / sum));
    return out;
}

namespace {

// The lens model of [sensor] intrinsics / distortion (issue 60), or none (the field of view's
// pinhole). Distortion without intrinsics takes the field of view's: fx = W / (2 tan(fov_h / 2)),
// cx = (W - 1) / 2, as camera/K writes them. The frustum's bound tanHalfFov becomes the largest
// |x| and |y| of the rays through the image's border (a lens's extreme rays lie there).
void setLens(const SensorDesc& se, shared::PinholeSensor& s) {
    const bool distorted = std::any_of(se.distortion.begin(), se.distortion.end(), [](double v) { return v != 0.0; });
    if (!se.intrinsics && !distorted) return;
    const double W = se.width, H = se.height;
    const std::array<double, 4> k = se.intrinsics.value_or(std::array<double, 4>{
        W / (2.0 * double(s.tanHalfFovH)), H / (2.0 * double(s.tanHalfFovV)), 0.5 * W - 0.5, 0.5 * H - 0.5});
    s.intrinsics = glm::vec4(float(k[0]), float(k[1]), float(k[2]), float(k[3]));
    const auto& d = se.distortion;
    s.distortion = glm::vec4(float(d[0]), float(d[1]), float(d[2]), float(d[3]));
    s.distortionK3Image = glm::vec4(float(d[4]), float(W), float(H), 0.0f);
    float maxX = 0.0f, maxY = 0.0f;
    const int steps = 256;
    for (int i = 0; i <= steps; ++i) {
        const float f = float(i) / float(steps);
        const float u = -0.5f + f * float(W), v = -0.5f + f * float(H);
        for (const glm::vec2 uv : {glm::vec2(u, -0.5f), glm::vec2(u, float(H) - 0.5f), glm::vec2(-0.5f, v),
                                   glm::vec2(float(W) - 0.5f, v)}) {
            const glm::vec2 p = shared::rsimUndistort(s, (uv - glm::vec2(s.intrinsics.z, s.intrinsics.w)) /
                                                             glm::vec2(s.intrinsics.x, s.intrinsics.y));
            maxX = std::max(maxX, std::abs(p.x));
            maxY = std::max(maxY, std::abs(p.y));
        }
    }
    s.tanHalfFovH = maxX * 1.001f;
    s.tanHalfFovV = maxY * 1.001f;
}

// A light's shared record: its place, aim, cone or profile, and intensity. `right`: the camera's
// right, whose part across the light's axis is a profile grid's horizontal axis.
shared::PointLight pointLightOf(const LightDesc& l, const glm::dvec3& right) {
    shared::PointLight p{};
    p.position = glm::vec3(l.position);
    p.direction = glm::vec3(unitOf(l.direction));
    // Isotropic: -2, not -1, so that a direction exactly behind the axis, whose rounded cosine
    // can fall just below -1, is never outside the "cone".
    p.cosHalfAngle = l.half_angle_deg >= 180.0 ? -2.0f : float(std::cos(l.half_angle_deg * M_PI / 180.0));
    p.falloffExp = float(l.falloff_exponent);
    p.intensity = float(l.power_w / (4.0 * M_PI));
    if (!l.profile) return p;
    const LightProfile& t = *l.profile;
    p.cosHalfAngle = -2.0f;
    p.falloffExp = 0.0f;
    p.profile = reinterpret_cast<std::uint64_t>(t.values.data());
    p.profileShape = glm::uvec4(t.kind, t.nx, t.ny, 0u);
    p.profileRange = t.range;
    const glm::dvec3 d = unitOf(l.direction);
    glm::dvec3 across = right - glm::dot(right, d) * d;
    if (glm::length(across) < 1e-6) across = glm::cross(d, std::abs(d.z) < 0.9 ? glm::dvec3(0, 0, 1) : glm::dvec3(1, 0, 0));
    p.profileRight = glm::vec3(glm::normalize(across));
    // power_w is the profile's total power: I(w) = P f(w) / (integral of f over the sphere).
    p.intensity = float(l.power_w / t.solidAngleSr);
    return p;
}

} // namespace

SimConfig makeSimConfig(const SceneDesc& scene) {
    SimConfig c;
    const auto& s = scene.sim;
    c.dtNs = s.dt_ns;
    c.timesteps = s.timesteps;
    c.k.samples = s.samples;
    c.k.estimator = s.k_estimator;
    c.k.nearPairFactor = s.near_pair_factor;
    c.k.clearPairsByFormula = s.clear_pairs_formula;
    c.k.tileListMax = s.tile_list_max;
    c.k.layout = s.k_layout;
    c.k.seed = s.seed;
    c.k.transportSteps = s.timesteps;
    c.directSamples = s.direct_samples;
    c.seed = s.seed;
    c.indirect = s.indirect;
    c.cdtM = double(shared::RSIM_C_M_PER_NS) * s.dt_ns;
    c.invCdtSq = float(1.0 / (c.cdtM * c.cdtM));

    const auto& l = scene.light;
    c.pulse = makePulse(l.pulse, l.pulse_fwhm_ns / s.dt_ns, l.pulse_width_ns / s.dt_ns);

    const auto& se = scene.sensor;
    const glm::dvec3 pos = scene.sensorPosition();
    const glm::dvec3 fwd = unitOf(se.look_at - pos);
    const glm::dvec3 right = glm::normalize(glm::cross(fwd, unitOf(se.up)));
    const glm::dvec3 up = glm::cross(right, fwd);
    c.sensor.position = glm::vec3(pos);
    c.sensor.forward = glm::vec3(fwd);
    c.sensor.right = glm::vec3(right);
    c.sensor.up = glm::vec3(up);
    c.sensor.tanHalfFovH = float(std::tan(0.5 * se.fov_h_deg * M_PI / 180.0));
    c.sensor.tanHalfFovV = float(std::tan(0.5 * se.fov_v_deg * M_PI / 180.0));
    c.width = se.width;
    c.height = se.height;
    // The lights, once the camera's frame is known (a profile grid's axes ride on it).
    c.emitters.push_back({pointLightOf(l, right), l.delay_ns, l.profile});
    for (const LightDesc& more : scene.moreLights)
        c.emitters.push_back({pointLightOf(more, right), more.delay_ns, more.profile});
    c.light = c.emitters[0].light;
    setLens(se, c.sensor);
    c.mode = se.mode;
    c.modulationMhz = se.modulation_mhz;
    if (const SensorModelDesc& m = scene.sensorModel; m.enabled) {
        // Radiometry (docs/model-choices.md, "Sensor model"): a Lambertian exitance M gives a
        // pixel on the axis the irradiance M / (4 N^2); one photon carries h c / lambda.
        const double photonJ = 6.62607015e-34 * 299792458.0 / (m.wavelength_nm * 1e-9);
        const double pitch = m.pixel_pitch_um * 1e-6;
        const double perJoule = pitch * pitch * m.fill_factor * m.quantum_efficiency / (4.0 * m.f_number * m.f_number) /
                                photonJ; // electrons per J/m^2 of exitance
        c.noise.on = true;
        // The signal is the exitance per bin of a continuous light of power P; a pulse of energy
        // Q gives Q / P times it in joules per square metre, and a frame holds n pulses.
        c.noise.electronsPerUnit = perJoule * double(m.pulses) * (m.pulse_energy_uj * 1e-6) / l.power_w;
        // Ambient light reaches a readout while it is open: a histogram bin dt and a gate W dt
        // after each of the n pulses; a tap the whole exposure (MODEL.md §8).
        const double openS = se.mode == SensorMode::Amcw    ? m.exposure_us * 1e-6
                             : se.mode == SensorMode::Gated ? double(c.pulse.size()) * s.dt_ns * 1e-9 * m.pulses
                                                             : s.dt_ns * 1e-9 * m.pulses;
        c.noise.ambientPerReadout = perJoule * m.ambient_w_m2 * openS;
        c.noise.readSigma = m.read_noise_e;
        c.noise.seed = m.seed;
    }
    c.scattering.fractions = scene.sensorModel.scattering_fractions;
    c.scattering.sigmasPx = scene.sensorModel.scattering_sigmas_px;
    c.gateStart = std::uint32_t(std::lround(se.gate_start_ns / s.dt_ns));
    c.gates = se.gates;
    c.taps = se.taps;
    c.transport = s.transport;
    c.pixelSampling.perPixel = se.pixel_samples;
    c.pixelSampling.boxFilter = se.pixel_filter_box;
    c.paths.maxBounces = s.max_bounces;
    c.phasors.tolerance = s.phasor_tolerance;
    c.phasors.maxIterations = s.phasor_max_iterations;
    c.phasors.roundedDelays = s.phasor_rounded_delays;
    c.harmonics = se.harmonics;
    // simulation.indirect = false is the direct light alone: for paths, their first vertex only.
    if (s.transport == Transport::Paths && !s.indirect) c.paths.maxBounces = 1;
    c.waveform = se.waveform == "square" ? shared::RSIM_WAVEFORM_SQUARE : shared::RSIM_WAVEFORM_SINUSOIDAL;
    const auto& o = scene.output;
    if (o.transient && o.images) {
        c.transient.start = o.transient_start;
        c.transient.bins = o.transient_bins ? o.transient_bins : s.timesteps - o.transient_start;
        const bool whole = o.transient_roi[2] == 0.0;
        c.transient.x0 = whole ? 0 : std::uint32_t(o.transient_roi[0]);
        c.transient.y0 = whole ? 0 : std::uint32_t(o.transient_roi[1]);
        c.transient.w = whole ? se.width : std::uint32_t(o.transient_roi[2]);
        c.transient.h = whole ? se.height : std::uint32_t(o.transient_roi[3]);
    }
    return c;
}

} // namespace rsim
