// SPDX-License-Identifier: MIT
// The scene file's emitters: [light], or any number of [[light]] tables (issue 60), each placed in
// the world or in the camera's frame, with its power, cone and delay; the pulse's shape is the
// first light's (scene_file_tables.h).
#include "scene/scene_file_tables.h"

#include <cmath>
#include <optional>
#include <sstream>

#include <glm/geometric.hpp>
#include <glm/mat3x3.hpp>

#include "scene/light_profile.h"
#include "scene/unit_vector.h"
#include "util/error.h"

namespace rsim {

using namespace toml_reader;

namespace {

// The pulse: its shape and length, which must fit [simulation]'s time window.
void readPulse(TableReader& r, SceneDesc& scene) {
    auto& l = scene.light;
    const std::string pulse = r.choice("pulse", "delta", {"delta", "gaussian", "rectangular"});
    l.pulse = pulse == "gaussian" ? PulseShape::Gaussian
              : pulse == "rectangular" ? PulseShape::Rectangular
                                       : PulseShape::Delta;
    l.pulse_width_ns = r.number("pulse_width_ns", l.pulse_width_ns, 0.0, 1e6);
    if (l.pulse == PulseShape::Rectangular) {
        const double bins = l.pulse_width_ns / scene.sim.dt_ns;
        if (!(bins >= 1.0 && std::abs(bins - std::round(bins)) <= 1e-6 * bins))
            r.fail(r.at("pulse_width_ns"), "pulse_width_ns",
                   "a rectangular pulse needs pulse_width_ns, a whole number (at least 1) of timesteps of " +
                       fmtNumber(scene.sim.dt_ns) + " ns");
        if (std::round(bins) > double(scene.sim.timesteps))
            r.fail(r.at("pulse_width_ns"), "pulse_width_ns",
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
            r.fail(r.at("pulse_fwhm_ns"), "pulse_fwhm_ns", os.str());
        }
    }
}

// A light's angular profile: a CSV table's path (relative to the scene file) under `profile`
// (against the angle to the axis) or `profile_2d` (horizontal x vertical), instead of the cone.
void readProfile(TableReader& r, const std::filesystem::path& baseDir, LightDesc& l) {
    r.find("profile"); // known keys, for the messages about unknown ones
    r.find("profile_2d");
    if (r.at("profile") && r.at("profile_2d"))
        r.fail(r.at("profile_2d"), "profile_2d", "give profile or profile_2d, not both");
    const char* key = r.at("profile") ? "profile" : "profile_2d";
    const std::optional<std::string> path = r.string(key);
    if (!path) return;
    for (const char* cone : {"half_angle_deg", "falloff_exponent"})
        if (r.at(cone))
            r.fail(r.at(cone), cone, std::string("a light with a ") + key + " has no cone: the table gives its shape");
    const std::filesystem::path file = baseDir / *path;
    const std::string where = r.context() + " " + key;
    try {
        std::shared_ptr<LightProfile> p =
            key == std::string("profile") ? readRadialProfile(file, where) : readGridProfile(file, where);
        finishProfile(*p, file.string());
        l.profile = std::move(p);
        l.profile_file = std::string(key) + " = " + *path;
    } catch (const InputError& e) {
        r.fail(r.at(key), key, e.what());
    }
}

// One light's place, aim, power, cone or profile, and delay into `l`.
void readEmitter(TableReader& r, const SceneDesc& scene, const std::filesystem::path& baseDir, LightDesc& l) {
    r.find("offset_camera"); // known keys, for the messages about unknown ones
    r.find("direction_camera");
    if (r.at("position") && r.at("offset_camera"))
        r.fail(r.at("offset_camera"), "offset_camera", "give position or offset_camera, not both");
    if (r.at("direction") && r.at("direction_camera"))
        r.fail(r.at("direction_camera"), "direction_camera", "give direction or direction_camera, not both");
    l.position = r.point("position", l.position, kMaxCoordinateM);
    if (r.at("offset_camera")) l.offset_camera = r.point("offset_camera", glm::dvec3(0.0), kMaxCoordinateM);
    const char* aimKey = r.at("direction_camera") ? "direction_camera" : "direction";
    const glm::dvec3 aim = r.vec3(aimKey, l.direction_camera.value_or(l.direction));
    if (!hasDirection(aim)) r.fail(r.at(aimKey), aimKey, "must be a finite, non-zero vector");
    if (r.at("direction_camera")) l.direction_camera = unitOf(aim);
    else l.direction = unitOf(aim);
    l.half_angle_deg = r.number("half_angle_deg", l.half_angle_deg, 0.0, 180.0, true);
    l.power_w = r.number("power_w", l.power_w, kMinPowerW, kMaxPowerW);
    l.falloff_exponent = r.number("falloff_exponent", l.falloff_exponent, 0.0, 1e4);
    const double windowNs = double(scene.sim.timesteps) * scene.sim.dt_ns;
    l.delay_ns = r.number("delay_ns", l.delay_ns, 0.0, windowNs);
    readProfile(r, baseDir, l);
}

} // namespace

// [light] or [[light]]: the emitters, and the pulse (the first light's, or [light]'s).
void SceneTables::readLight(SceneDesc& scene) const {
    const toml::node* n = root_.get("light");
    if (!n || n->is_table()) {
        TableReader r(section("light"), "[light]", fileName_, &origins_, "light");
        readEmitter(r, scene, baseDir_, scene.light);
        readPulse(r, scene);
        r.finish();
        return;
    }
    std::size_t index = 0;
    forEachArrayTable(root_, "light", fileName_, [&](TableReader& r, const toml::node&) {
        if (index++ == 0) {
            readEmitter(r, scene, baseDir_, scene.light);
            readPulse(r, scene);
        } else {
            for (const char* key : {"pulse", "pulse_width_ns", "pulse_fwhm_ns"})
                if (r.at(key))
                    r.fail(r.at(key), key,
                           "the pulse's shape is the first [[light]]'s for every light (one driver fires them); "
                           "give a later light delay_ns instead");
            LightDesc l;
            readEmitter(r, scene, baseDir_, l);
            scene.moreLights.push_back(l);
        }
        r.finish();
    });
    if (index == 0) throw InputError(fileName_ + ": [[light]] is empty; give at least one light");
    if (scene.sim.transport == Transport::Phasors && !scene.moreLights.empty())
        throw InputError(fileName_ + ": several [[light]] tables need simulation.transport = \"radiosity\" for now "
                                     "(the phasors transport solves one light)");
    if (scene.sim.transport == Transport::Paths && !scene.moreLights.empty())
        throw InputError(fileName_ + ": several [[light]] tables need simulation.transport = \"radiosity\" for now "
                                     "(the paths transport's camera paths meet one light)");
}

// The lights placed in the camera's frame (offset_camera, direction_camera), in the world's, now
// that the sensor is known: x right, y down, z forward (OpenCV's camera frame).
void SceneTables::placeLightsOnCamera(SceneDesc& scene) const {
    const glm::dvec3 fwd = unitOf(scene.sensor.look_at - scene.sensorPosition());
    const glm::dvec3 right = glm::normalize(glm::cross(fwd, unitOf(scene.sensor.up)));
    const glm::dvec3 down = glm::cross(fwd, right);
    const glm::dmat3 worldFromCamera(right, down, fwd);
    auto place = [&](LightDesc& l) {
        if (l.offset_camera) l.position = scene.sensorPosition() + worldFromCamera * *l.offset_camera;
        if (l.direction_camera) l.direction = glm::normalize(worldFromCamera * *l.direction_camera);
    };
    if (scene.light.offset_camera && !scene.sensor.position)
        throw InputError(fileName_ + ": [sensor] position is required when the first light is placed by "
                                     "offset_camera (the sensor's position defaults to that light's)");
    place(scene.light);
    for (LightDesc& l : scene.moreLights) place(l);
}

} // namespace rsim
