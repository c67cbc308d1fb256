// SPDX-License-Identifier: MIT
// The scene file's camera tables: [sensor] and [sensor_model] (scene_file_tables.h).
#include "scene/scene_file_tables.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include <glm/geometric.hpp>
#include <spdlog/spdlog.h>

#include "scene/unit_vector.h"

namespace rsim {

using namespace toml_reader;

namespace {

// [sensor] intrinsics and distortion (OpenCV's model; issue 60): focal lengths positive, the
// principal point within a few images of the image, distortion coefficients finite and of a
// real lens's size.
void readLens(toml_reader::TableReader& r, const toml::table& t, SensorDesc& s) {
    if (t.get("intrinsics")) {
        const auto k = r.numbers("intrinsics", 4, 4, {});
        const double W = s.width, H = s.height;
        if (!(k[0] > 0.0 && k[1] > 0.0 && k[0] <= 1e7 && k[1] <= 1e7))
            r.fail(t.get("intrinsics"), "intrinsics", "fx and fy must be focal lengths in pixels, > 0 and at most 1e7");
        if (!(std::abs(k[2] - 0.5 * W) <= 4.0 * W && std::abs(k[3] - 0.5 * H) <= 4.0 * H))
            r.fail(t.get("intrinsics"), "intrinsics",
                   "cx and cy must be a principal point in pixels, within a few image sizes of the image's centre");
        s.intrinsics = std::array<double, 4>{k[0], k[1], k[2], k[3]};
    } else {
        r.find("intrinsics");
    }
    if (t.get("distortion")) {
        const auto d = r.numbers("distortion", 5, 5, {});
        for (double v : d)
            if (!(std::abs(v) <= 100.0))
                r.fail(t.get("distortion"), "distortion",
                       "expected OpenCV's [k1, k2, p1, p2, k3], each finite and at most 100 in magnitude");
        for (int i = 0; i < 5; ++i) s.distortion[std::size_t(i)] = d[std::size_t(i)];
    } else {
        r.find("distortion");
    }
}

// sensor.pixel_samples and pixel_filter (MODEL.md §6, §10.2), whose defaults depend on the
// transport: a path-traced pixel averages many paths over its square, the radiosity pipeline's
// pixel takes one ray through its centre unless pixel_samples asks for more (then over its square).
void readPixelSampling(toml_reader::TableReader& r, SceneDesc& scene) {
    SensorDesc& s = scene.sensor;
    const bool paths = scene.sim.transport == Transport::Paths;
    // At most 2^16: a pixel's bins sum its paths' deposits in fp32, whose rounding stays below
    // about 0.2% over 2^16 equal deposits (docs/model-choices.md, "Materials and the paths transport").
    s.pixel_samples = r.integer("pixel_samples", paths ? kDefaultPathsPerPixel : 1, 1, paths ? 1 << 16 : 1024);
    const bool box = paths || s.pixel_samples > 1;
    s.pixel_filter_box = r.choice("pixel_filter", box ? "box" : "centre", {"box", "centre"}) == "box";
    if (paths) return;
    if (s.pixel_samples > 1 && !s.pixel_filter_box)
        r.fail(r.at("pixel_filter"), "pixel_filter",
               "\"centre\" with pixel_samples > 1 would cast the same ray through the pixel's centre " +
                   std::to_string(s.pixel_samples) + " times: use \"box\" (rays over the pixel's square) or "
                   "pixel_samples = 1");
    if (s.pixel_samples == 1 && s.pixel_filter_box)
        r.fail(r.at("pixel_filter"), "pixel_filter",
               "\"box\" with one ray per pixel would move the pixel's only ray off its centre: set "
               "pixel_samples > 1 for pixels with area");
}

} // namespace

// [sensor]: the camera, its image and its mode (pulsed, AMCW or gated).
void SceneTables::readSensor(SceneDesc& scene) const {
    const toml::table& t = section("sensor");
    TableReader r(t, "[sensor]", fileName_, &origins_, "sensor");
    auto& s = scene.sensor;
    if (t.get("position")) s.position = r.point("position", scene.light.position, kMaxCoordinateM);
    else r.find("position");
    s.look_at = r.vec3("look_at", s.look_at); // only a direction from the sensor: any finite size
    s.up = r.vec3("up", s.up);
    if (t.get("fov_deg") && t.get("intrinsics"))
        r.fail(t.get("intrinsics"), "intrinsics",
               "give either fov_deg or intrinsics = [fx, fy, cx, cy], not both (intrinsics define the field of view)");
    auto fov = r.numbers("fov_deg", 2, 2, {s.fov_h_deg, s.fov_v_deg});
    for (double f : fov)
        if (!(f > 0.0 && f < 180.0))
            r.fail(t.get("fov_deg"), "fov_deg", "each field of view must be in (0, 180) degrees");
    s.fov_h_deg = fov[0];
    s.fov_v_deg = fov[1];
    auto res = r.numbers("resolution", 2, 2, {double(s.width), double(s.height)});
    for (double v : res)
        if (v < 1 || v > 16384 || v != std::floor(v))
            r.fail(t.get("resolution"), "resolution",
                   "expected two whole numbers of pixels in [1, 16384]");
    s.width = std::uint32_t(res[0]);
    s.height = std::uint32_t(res[1]);
    readLens(r, t, s);
    const std::string mode = r.choice("mode", "pulsed", {"pulsed", "amcw", "gated"});
    s.mode = mode == "amcw" ? SensorMode::Amcw : mode == "gated" ? SensorMode::Gated : SensorMode::Pulsed;
    s.gate_start_ns = r.number("gate_start_ns", s.gate_start_ns, 0.0, 1e9);
    s.gates = r.integer("gates", s.gates, 2, 3);
    if (s.mode == SensorMode::Gated) {
        if (scene.light.pulse != PulseShape::Rectangular)
            r.fail(t.get("mode"), "mode",
                   "a gated camera's gates are as long as its pulse: set light.pulse = \"rectangular\" and "
                   "light.pulse_width_ns");
        const double start = s.gate_start_ns / scene.sim.dt_ns;
        if (std::abs(start - std::round(start)) > 1e-6 * std::max(1.0, start))
            r.fail(t.get("gate_start_ns"), "gate_start_ns",
                   "must be a whole number of timesteps of " + fmtNumber(scene.sim.dt_ns) + " ns");
        const double end = std::round(start) + double(s.gates) * std::round(scene.light.pulse_width_ns / scene.sim.dt_ns);
        if (end > double(scene.sim.timesteps))
            r.fail(t.get("gate_start_ns"), "gate_start_ns",
                   "the last gate closes at timestep " + fmtNumber(end) + ", after the time window (" +
                       std::to_string(scene.sim.timesteps) + " timesteps)");
    }
    s.modulation_mhz = r.numbers("modulation_mhz", 1, 8, s.modulation_mhz);
    // A frequency the time grid cannot sample (above its Nyquist frequency 1 / (2 dt)) would
    // alias: its phases would belong to another frequency.
    const double nyquistMhz = 500.0 / scene.sim.dt_ns;
    for (double f : s.modulation_mhz)
        if (!(f > 0.0) || f > nyquistMhz)
            r.fail(t.get("modulation_mhz"), "modulation_mhz",
                   "frequencies must be > 0 MHz and at most the time grid's Nyquist frequency 500 / dt_ns = " +
                       fmtNumber(nyquistMhz) + " MHz (simulation.dt_ns = " + fmtNumber(scene.sim.dt_ns) +
                       "), got " + fmtNumber(f) + " MHz; lower the frequency or simulation.dt_ns");
    s.taps = r.integer("taps", s.taps, 3, 16);
    s.waveform = r.choice("waveform", s.waveform, {"sinusoidal", "square"});
    s.harmonics = r.integer("harmonics", s.harmonics, 1, 1023);
    if (s.harmonics % 2 == 0)
        r.fail(t.get("harmonics"), "harmonics",
               "the square waveform's correlation has odd harmonics only: give an odd number, got " +
                   std::to_string(s.harmonics));
    if (scene.sim.transport == Transport::Phasors && s.mode != SensorMode::Amcw)
        r.fail(t.get("mode"), "mode",
               "simulation.transport = \"phasors\" solves an AMCW camera's phasors (MODEL.md §11) and needs mode = "
               "\"amcw\"; use simulation.transport = \"radiosity\" for a " + mode + " camera");
    readPixelSampling(r, scene);
    glm::dvec3 fwd = s.look_at - scene.sensorPosition();
    if (!(glm::length(fwd) >= 1e-9))
        r.fail(t.get("look_at"), "look_at",
               hasDirection(fwd) ? "must differ from the sensor position" : "must be a finite point");
    if (!hasDirection(s.up)) r.fail(t.get("up"), "up", "must be a finite, non-zero vector");
    if (glm::length(glm::cross(unitOf(fwd), unitOf(s.up))) < 1e-6)
        r.fail(t.get("up"), "up", "must not be parallel to the viewing direction");
    r.finish();
}

// [sensor_model]: the electrons and noise of a real sensor, its frame's exposure and its lens's
// scattering.
void SceneTables::readSensorModel(SceneDesc& scene) const {
    TableReader r(section("sensor_model"), "[sensor_model]", fileName_, &origins_, "sensor_model");
    auto& m = scene.sensorModel;
    m.enabled = r.boolean("enabled", m.enabled);
    readExposure(r, scene);
    m.f_number = r.number("f_number", m.f_number, 0.1, 1e3);
    m.pixel_pitch_um = r.number("pixel_pitch_um", m.pixel_pitch_um, 0.0, 1e4, true);
    m.fill_factor = r.number("fill_factor", m.fill_factor, 0.0, 1.0, true);
    m.quantum_efficiency = r.number("quantum_efficiency", m.quantum_efficiency, 0.0, 1.0, true);
    m.wavelength_nm = r.number("wavelength_nm", m.wavelength_nm, 100.0, 1e5);
    m.ambient_w_m2 = r.number("ambient_w_m2", m.ambient_w_m2, 0.0, 1e6);
    m.read_noise_e = r.number("read_noise_e", m.read_noise_e, 0.0, 1e6);
    m.seed = r.integer("seed", m.seed, 0, 0xffffffffLL);
    readScattering(r, scene);
    r.finish();
}

// The frame's light: pulse energy or mean power, pulse count or rate, and the exposure they fill.
void SceneTables::readExposure(TableReader& r, SceneDesc& scene) const {
    auto& m = scene.sensorModel;
    m.exposure_us = r.number("exposure_us", m.exposure_us, 0.0, 1e8, true);
    if (r.at("pulses") && r.at("pulse_rate_mhz"))
        r.fail(r.at("pulse_rate_mhz"), "pulse_rate_mhz", "give pulses or pulse_rate_mhz, not both");
    if (r.at("pulse_energy_uj") && r.at("mean_power_w"))
        r.fail(r.at("mean_power_w"), "mean_power_w", "give pulse_energy_uj or mean_power_w, not both");
    m.pulses = r.integer("pulses", m.pulses, 1, 1'000'000'000);
    if (r.at("pulse_rate_mhz")) {
        m.pulse_rate_mhz = r.number("pulse_rate_mhz", 0.0, 0.0, 1e6, true);
        const double n = std::round(*m.pulse_rate_mhz * m.exposure_us);
        if (!(n >= 1.0 && n <= 1e9))
            r.fail(r.at("pulse_rate_mhz"), "pulse_rate_mhz",
                   "pulse_rate_mhz x exposure_us must make 1 to 1e9 pulses in a frame, got " + fmtNumber(n));
        m.pulses = std::uint32_t(n);
    }
    m.pulse_energy_uj = r.number("pulse_energy_uj", m.pulse_energy_uj, 0.0, 1e9, true);
    if (r.at("mean_power_w")) {
        m.mean_power_w = r.number("mean_power_w", 0.0, 0.0, 1e9, true);
        m.pulse_energy_uj = *m.mean_power_w * m.exposure_us / double(m.pulses); // W us = uJ
    }
    // Each pulse's echoes must die out before the next pulse: the simulated window is the time
    // the sensor listens to one pulse.
    const double periodNs = m.exposure_us * 1e3 / double(m.pulses);
    const double windowNs = double(scene.sim.timesteps) * scene.sim.dt_ns;
    if (m.enabled && windowNs > periodNs * (1.0 + 1e-9))
        spdlog::warn("{}: [sensor_model] {} pulses in exposure_us = {} leave {} ns from pulse to pulse, shorter "
                     "than the simulated time window ({} timesteps of {} ns = {} ns): the exposure cannot hold "
                     "the window of every pulse; lengthen exposure_us, lower the pulse count or shorten the window",
                     fileName_, m.pulses, fmtNumber(m.exposure_us), fmtNumber(periodNs), scene.sim.timesteps,
                     fmtNumber(scene.sim.dt_ns), fmtNumber(windowNs));
}

// Lens scattering: fractions and Gaussian widths of the point-spread function's wide part.
void SceneTables::readScattering(TableReader& r, SceneDesc& scene) const {
    auto& m = scene.sensorModel;
    m.scattering_fractions = r.numbers("scattering_fractions", 1, 8, {});
    m.scattering_sigmas_px = r.numbers("scattering_sigmas_px", 1, 8, {});
    if (m.scattering_fractions.size() != m.scattering_sigmas_px.size())
        r.fail(r.at(m.scattering_fractions.empty() ? "scattering_sigmas_px" : "scattering_fractions"),
               "scattering_fractions",
               "scattering_fractions and scattering_sigmas_px must have as many entries (one fraction and one "
               "Gaussian sigma in pixels per part of the point-spread function), got " +
                   std::to_string(m.scattering_fractions.size()) + " and " +
                   std::to_string(m.scattering_sigmas_px.size()));
    double sum = 0.0;
    for (double f : m.scattering_fractions) {
        if (!(f >= 0.0)) r.fail(r.at("scattering_fractions"), "scattering_fractions", "fractions must be >= 0");
        sum += f;
    }
    if (!(sum < 1.0))
        r.fail(r.at("scattering_fractions"), "scattering_fractions",
               "the fractions must sum to less than 1 (the rest stays in the pixel), got " + fmtNumber(sum));
    if (!m.scattering_fractions.empty() && scene.sensor.mode == SensorMode::Pulsed &&
        scene.sim.transport == Transport::Paths)
        r.fail(r.at("scattering_fractions"), "scattering_fractions",
               "a pulsed camera's lens scattering needs simulation.transport = \"radiosity\" for now (it scatters "
               "every pixel's histogram)");
    for (double sigma : m.scattering_sigmas_px)
        if (!(sigma > 0.0 && sigma <= 1e4))
            r.fail(r.at("scattering_sigmas_px"), "scattering_sigmas_px",
                   "Gaussian sigmas must be in (0, 1e4] pixels, got " + fmtNumber(sigma));
}

} // namespace rsim
