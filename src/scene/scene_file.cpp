// SPDX-License-Identifier: MIT
// Scene file (TOML) reader. Every value is checked for type and range, every unknown key is
// reported with a did-you-mean, and every message names the file and line.
#include "scene/scene_desc.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <glm/geometric.hpp>
#include <spdlog/spdlog.h>
#include <toml++/toml.h>

#include "scene/toml_reader.h"
#include "scene/toml_text.h"
#include "scene/tuning_table.h"
#include "scene/unit_vector.h"

#include "util/did_you_mean.h"
#include "util/error.h"

namespace rsim {
namespace fs = std::filesystem;


using namespace toml_reader;

namespace {
// A number as a person writes it (0.1, 2500), for messages.
std::string fmtNumber(double v) {
    std::ostringstream os;
    os << v;
    return os.str();
}
} // namespace

const char* kEstimatorName(KEstimator e) {
    switch (e) {
    case KEstimator::SolidAngleMean: return "solid-angle-mean";
    case KEstimator::Area: return "area";
    default: return "solid-angle";
    }
}

KEstimator kEstimatorFromName(const std::string& name) {
    if (name == "solid-angle-mean") return KEstimator::SolidAngleMean;
    if (name == "area") return KEstimator::Area;
    if (name == "solid-angle") return KEstimator::SolidAngle;
    throw InputError("unknown K estimator \"" + name + "\"; expected solid-angle, solid-angle-mean or area");
}

double gaussianSigmaSteps(double fwhmSteps) { return fwhmSteps / (2.0 * std::sqrt(2.0 * std::log(2.0))); }

double pulseLengthSteps(double fwhmSteps) {
    return 2.0 * std::max(1.0, std::ceil(3.0 * gaussianSigmaSteps(fwhmSteps))) + 1.0;
}

SceneDesc loadSceneFile(const fs::path& fileIn, const std::vector<SceneOverride>& overrides) {
    SceneDesc scene;
    std::error_code ec;
    if (!fs::exists(fileIn, ec)) throw InputError(fileIn.string() + ": scene file not found");
    if (fs::is_directory(fileIn, ec))
        throw InputError(fileIn.string() + ": is a directory; expected a scene file (.toml)");
    scene.file = fs::absolute(fileIn);
    const std::string fileName = fileIn.string();
    // Read whole first: a pipe (bash's <(...)) reads like a file, and the text is checked for
    // what would overflow the parser's stack before toml++ sees it.
    const std::string text = readTomlFile(fileIn);
    checkTomlNesting(text, fileName);

    toml::table root;
    try {
        root = toml::parse(text, scene.file.string());
    } catch (const toml::parse_error& e) {
        std::ostringstream os;
        os << fileName << ":" << e.source().begin.line << ":" << e.source().begin.column
           << ": TOML syntax error: " << e.description();
        throw InputError(os.str());
    }
    const OverrideOrigins origins = applyOverrides(root, overrides);
    // Relative paths are the scene file's; a scene read from a pipe has no folder: the
    // working directory's.
    const fs::path baseDir = fs::is_regular_file(scene.file, ec) ? scene.file.parent_path() : fs::current_path();

    // Top-level keys.
    for (auto&& [k, v] : root) {
        std::string key(k.str());
        if (std::find(kTopLevel.begin(), kTopLevel.end(), key) != kTopLevel.end()) {
            bool arrayOfTables = key == "material" || key == "mesh" || key == "pose";
            bool ok = arrayOfTables ? (v.is_array_of_tables()) : v.is_table();
            if (!ok) {
                std::ostringstream os;
                os << fileName << ":" << k.source().begin.line << ": \"" << key
                   << "\" must be " << (arrayOfTables ? "written [[" + key + "]]" : "a table [" + key + "]");
                throw InputError(os.str());
            }
            continue;
        }
        std::string hint = didYouMean(key, kTopLevel);
        std::ostringstream os;
        os << fileName << ":" << k.source().begin.line << ": unknown table or key \"" << key
           << "\"" << (hint.empty() ? "" : " (did you mean \"" + hint + "\"?)")
           << "; expected [simulation], [light], [sensor], [sensor_model], [[material]], [[mesh]], [output], [[pose]], "
              "[tuning]";
        throw InputError(os.str());
    }

    static const toml::table empty;
    auto section = [&](const char* name) -> const toml::table& {
        const toml::node* n = root.get(name);
        return n ? *n->as_table() : empty;
    };

    { // [simulation]
        TableReader r(section("simulation"), "[simulation]", fileName, &origins, "simulation");
        auto& s = scene.sim;
        s.dt_ns = r.number("dt_ns", s.dt_ns, kMinDtNs, kMaxDtNs);
        s.timesteps = r.integer("timesteps", s.timesteps, 1, kMaxTimesteps);
        s.samples = r.integer("samples", s.samples, 1, 1 << 20);
        s.k_estimator = kEstimatorFromName(
            r.choice("k_estimator", kEstimatorName(s.k_estimator), {"solid-angle", "solid-angle-mean", "area"}));
        s.near_pair_factor = r.integer("near_pair_factor", s.near_pair_factor, 1, 1 << 10);
        s.clear_pairs_formula =
            r.choice("clear_pairs", s.clear_pairs_formula ? "formula" : "rays", {"formula", "rays"}) == "formula";
        s.tile_list_max = r.integer("tile_list_max", s.tile_list_max, 0, kMaxTileListMax);
        s.direct_samples = r.integer("direct_samples", s.direct_samples, 1, 1 << 20);
        s.seed = r.integer("seed", s.seed, 0, 0xffffffffLL);
        s.indirect = r.boolean("indirect", s.indirect);
        s.max_edge_m = r.number("max_edge_m", s.max_edge_m, 0.0, 1e9);
        r.finish();
    }
    { // [light]
        TableReader r(section("light"), "[light]", fileName, &origins, "light");
        auto& l = scene.light;
        l.position = r.point("position", l.position, kMaxCoordinateM);
        l.direction = r.vec3("direction", l.direction);
        if (!hasDirection(l.direction))
            r.fail(section("light").get("direction"), "direction", "must be a finite, non-zero vector");
        l.direction = unitOf(l.direction);
        l.half_angle_deg = r.number("half_angle_deg", l.half_angle_deg, 0.0, 180.0, true);
        l.power_w = r.number("power_w", l.power_w, kMinPowerW, kMaxPowerW);
        l.falloff_exponent = r.number("falloff_exponent", l.falloff_exponent, 0.0, 1e4);
        const std::string pulse = r.choice("pulse", "delta", {"delta", "gaussian", "rectangular"});
        l.pulse = pulse == "gaussian" ? PulseShape::Gaussian
                  : pulse == "rectangular" ? PulseShape::Rectangular
                                           : PulseShape::Delta;
        l.pulse_width_ns = r.number("pulse_width_ns", l.pulse_width_ns, 0.0, 1e6);
        if (l.pulse == PulseShape::Rectangular) {
            const double bins = l.pulse_width_ns / scene.sim.dt_ns;
            if (!(bins >= 1.0 && std::abs(bins - std::round(bins)) <= 1e-6 * bins))
                r.fail(section("light").get("pulse_width_ns"), "pulse_width_ns",
                       "a rectangular pulse needs pulse_width_ns, a whole number (at least 1) of timesteps of " +
                           fmtNumber(scene.sim.dt_ns) + " ns");
            if (std::round(bins) > double(scene.sim.timesteps))
                r.fail(section("light").get("pulse_width_ns"), "pulse_width_ns",
                       "the pulse is longer than the time window (" + std::to_string(scene.sim.timesteps) + " timesteps)");
        }
        l.pulse_fwhm_ns = r.number("pulse_fwhm_ns", l.pulse_fwhm_ns, 0.0, 1e6, true);
        if (l.pulse == PulseShape::Gaussian) {
            // makePulse samples +-3 sigma: P = 2 ceil(3 sigma) + 1 bins. In double, before any
            // integer conversion, so that a huge FWHM cannot overflow or allocate gigabytes.
            const double steps = pulseLengthSteps(l.pulse_fwhm_ns / scene.sim.dt_ns);
            if (steps > double(scene.sim.timesteps)) {
                std::ostringstream os;
                os << "a Gaussian pulse of FWHM " << l.pulse_fwhm_ns << " ns lasts " << steps
                   << " timesteps of " << scene.sim.dt_ns << " ns (+-3 sigma), longer than the "
                   << "time window of " << scene.sim.timesteps << " timesteps; shorten "
                   << "pulse_fwhm_ns or raise [simulation] timesteps";
                r.fail(section("light").get("pulse_fwhm_ns"), "pulse_fwhm_ns", os.str());
            }
        }
        r.finish();
    }
    { // [sensor]
        const toml::table& t = section("sensor");
        TableReader r(t, "[sensor]", fileName, &origins, "sensor");
        auto& s = scene.sensor;
        if (t.get("position")) s.position = r.point("position", scene.light.position, kMaxCoordinateM);
        else r.find("position");
        s.look_at = r.vec3("look_at", s.look_at); // only a direction from the sensor: any finite size
        s.up = r.vec3("up", s.up);
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
        glm::dvec3 fwd = s.look_at - scene.sensorPosition();
        if (!(glm::length(fwd) >= 1e-9))
            r.fail(t.get("look_at"), "look_at",
                   hasDirection(fwd) ? "must differ from the sensor position" : "must be a finite point");
        if (!hasDirection(s.up)) r.fail(t.get("up"), "up", "must be a finite, non-zero vector");
        if (glm::length(glm::cross(unitOf(fwd), unitOf(s.up))) < 1e-6)
            r.fail(t.get("up"), "up", "must not be parallel to the viewing direction");
        r.finish();
    }
    { // [sensor_model]
        TableReader r(section("sensor_model"), "[sensor_model]", fileName, &origins, "sensor_model");
        auto& m = scene.sensorModel;
        m.enabled = r.boolean("enabled", m.enabled);
        m.pulse_energy_uj = r.number("pulse_energy_uj", m.pulse_energy_uj, 0.0, 1e9, true);
        m.pulses = r.integer("pulses", m.pulses, 1, 1'000'000'000);
        m.f_number = r.number("f_number", m.f_number, 0.1, 1e3);
        m.pixel_pitch_um = r.number("pixel_pitch_um", m.pixel_pitch_um, 0.0, 1e4, true);
        m.fill_factor = r.number("fill_factor", m.fill_factor, 0.0, 1.0, true);
        m.quantum_efficiency = r.number("quantum_efficiency", m.quantum_efficiency, 0.0, 1.0, true);
        m.wavelength_nm = r.number("wavelength_nm", m.wavelength_nm, 100.0, 1e5);
        m.ambient_w_m2 = r.number("ambient_w_m2", m.ambient_w_m2, 0.0, 1e6);
        m.read_noise_e = r.number("read_noise_e", m.read_noise_e, 0.0, 1e6);
        m.seed = r.integer("seed", m.seed, 0, 0xffffffffLL);
        r.finish();
    }
    forEachArrayTable(root, "material", fileName, [&](TableReader& r, const toml::node& e) {
        MaterialDesc m;
        auto name = r.string("name");
        if (!name || name->empty()) r.fail(&e, "name", "every material needs a non-empty name");
        m.name = *name;
        m.reflectance = r.number("reflectance", m.reflectance, 0.0, 1.0);
        m.two_sided = r.boolean("two_sided", m.two_sided);
        r.finish();
        for (const auto& other : scene.materials)
            if (other.name == m.name) r.fail(&e, "name", "material \"" + m.name + "\" is defined twice");
        scene.materials.push_back(m);
    }, &origins);
    std::vector<std::string> materialNames;
    for (auto& m : scene.materials) materialNames.push_back(m.name);
    forEachArrayTable(root, "mesh", fileName, [&](TableReader& r, const toml::node& e) {
        MeshDesc m;
        auto path = r.string("path");
        if (!path || path->empty()) r.fail(&e, "path", "every mesh needs a path");
        m.pathAsWritten = *path;
        m.path = fs::path(*path).is_absolute() ? fs::path(*path) : baseDir / *path;
        m.material = r.string("material");
        if (m.material && std::find(materialNames.begin(), materialNames.end(), *m.material) ==
                              materialNames.end()) {
            std::string hint = didYouMean(*m.material, materialNames);
            r.fail(r.at("material"), "material",
                   "no [[material]] is named \"" + *m.material + "\"" +
                       (hint.empty() ? "" : " (did you mean \"" + hint + "\"?)"));
        }
        m.translate = r.point("translate", m.translate, kMaxCoordinateM);
        m.rotate_deg = r.vec3("rotate_deg", m.rotate_deg);
        m.scale = r.scalarOrVec3("scale", m.scale, kMinScale, kMaxScale);
        m.skip_nonfinite = r.boolean("skip_nonfinite", false);
        r.finish();
        m.where = fileName + ":" + std::to_string(e.source().begin.line) + " (" + r.context() +
                  ", " + m.pathAsWritten + ")";
        scene.meshes.push_back(m);
    });
    if (scene.meshes.empty())
        throw InputError(fileName + ": the scene has no [[mesh]]; add at least one, e.g.\n"
                         "  [[mesh]]\n  path = \"room.obj\"");
    { // [output]
        TableReader r(section("output"), "[output]", fileName, &origins, "output");
        if (auto d = r.string("dir")) {
            if (d->empty()) r.fail(section("output").get("dir"), "dir", "must not be empty");
            scene.output.dir = fs::path(*d).is_absolute() ? fs::path(*d) : baseDir / *d;
        } else {
            scene.output.dir = baseDir / scene.output.dir;
        }
        scene.output.timeseries = r.boolean("timeseries", scene.output.timeseries);
        scene.output.kij = r.boolean("kij", scene.output.kij);
        scene.output.images = r.boolean("images", scene.output.images);
        auto& o = scene.output;
        o.transient = r.boolean("transient", o.transient);
        const toml::table& t = section("output");
        o.transient_start = r.integer("transient_start", o.transient_start, 0, 10'000'000);
        if (o.transient_start >= scene.sim.timesteps)
            r.fail(t.get("transient_start"), "transient_start",
                   "must be below simulation.timesteps (" + std::to_string(scene.sim.timesteps) + ")");
        o.transient_bins = r.integer("transient_bins", o.transient_bins, 0, 10'000'000);
        if (std::uint64_t(o.transient_start) + o.transient_bins > scene.sim.timesteps)
            r.fail(t.get("transient_bins"), "transient_bins",
                   "transient_start + transient_bins must not pass simulation.timesteps (" +
                       std::to_string(scene.sim.timesteps) + "); 0 means to the end");
        if (o.transient && !o.images)
            spdlog::warn("[output] transient = true is ignored: the transients are pixel outputs, and images are "
                         "off (output.images = false or --no-images)");
        o.transient_roi = r.numbers("transient_roi", 4, 4, o.transient_roi);
        const auto& roi = o.transient_roi;
        for (double v : roi)
            if (!(v >= 0.0 && v == std::floor(v)))
                r.fail(t.get("transient_roi"), "transient_roi", "expected [x, y, width, height] in whole pixels");
        if (roi[2] > 0.0 && (roi[0] + roi[2] > scene.sensor.width || roi[1] + roi[3] > scene.sensor.height || roi[3] == 0.0))
            r.fail(t.get("transient_roi"), "transient_roi",
                   "[x, y, width, height] must lie inside the " + std::to_string(scene.sensor.width) + " x " +
                       std::to_string(scene.sensor.height) + " image (width 0: the whole image)");
        r.finish();
    }
    scene.tuning = readTuningTable(section("tuning"), fileName, &origins);
    forEachArrayTable(root, "pose", fileName, [&](TableReader& r, const toml::node& e) {
        PoseDesc p;
        auto name = r.string("name");
        if (!name || name->empty()) r.fail(&e, "name", "every pose needs a non-empty name");
        p.name = *name;
        if (!r.at("position")) r.fail(&e, "position", "every pose needs a position = [x, y, z]");
        if (!r.at("look_at")) r.fail(&e, "look_at", "every pose needs a look_at = [x, y, z]");
        p.position = r.point("position", p.position, kMaxCoordinateM);
        p.lookAt = r.vec3("look_at", p.lookAt);
        if (r.at("up")) p.up = r.vec3("up", glm::dvec3(0.0, 0.0, 1.0));
        r.finish();
        p.where = fileName + ":" + std::to_string(e.source().begin.line) + " (" + r.context() + ", \"" + p.name + "\")";
        scene.poses.push_back(p);
    });
    return scene;
}

} // namespace rsim
