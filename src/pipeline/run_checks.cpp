// SPDX-License-Identifier: MIT
#include "pipeline/run_checks.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <glm/geometric.hpp>

#include "rsim/shared/estimators.h"
#include "rsim/shared/physics.h"
#include "scene/scene_desc.h"
#include "util/error.h"

namespace rsim {

void checkDirectTerms(const DirectTerms& d, const SimConfig& c) {
    auto anyPositive = [](const std::vector<float>& v) {
        for (float x : v)
            if (x > 0.0f) return true;
        return false;
    };
    const glm::vec3 p = c.light.position, dir = c.light.direction;
    if (!anyPositive(d.irradiance))
        throw InputError(fmt::format(
            "the light at ({}, {}, {}) reaches no triangle: every triangle is outside its cone "
            "(half-angle {:.1f} deg around ({:.3f}, {:.3f}, {:.3f})), faces away from it, or is "
            "shadowed. Check [light] position, direction and half_angle_deg; if the light is inside a room whose "
            "triangles face outwards (a triangle's front is where its vertices run counter-clockwise), set "
            "two_sided = true on their [[material]], or reverse their vertex order.",
            p.x, p.y, p.z, std::acos(double(std::max(-1.0f, c.light.cosHalfAngle))) * 180.0 / M_PI,
            dir.x, dir.y, dir.z));
    const glm::vec3 q = c.sensor.position, f = c.sensor.forward;
    if (!anyPositive(d.importance))
        throw InputError(fmt::format(
            "the sensor at ({}, {}, {}) looking along ({:.3f}, {:.3f}, {:.3f}) sees no triangle: "
            "none is inside its field of view and facing it. Check [sensor] position, look_at "
            "and fov_deg; if the sensor is inside a room whose triangles face outwards (a triangle's front is "
            "where its vertices run counter-clockwise), set two_sided = true on their [[material]], or reverse "
            "their vertex order.",
            q.x, q.y, q.z, f.x, f.y, f.z));

    // Light reaches triangle i no earlier than tL_i (bin floor(tL_i)), directly or by way of
    // other triangles, and only after it has reached some lit triangle. When that is past the
    // window for every triangle the sensor sees, every distance would be NaN.
    double firstLit = INFINITY, firstSeen = INFINITY, firstLitSeen = INFINITY;
    for (std::size_t i = 0; i < d.tLight.size(); ++i) {
        const double t = std::floor(double(d.tLight[i]));
        const bool lit = d.irradiance[i] > 0.0f, seen = d.importance[i] > 0.0f;
        if (lit) firstLit = std::min(firstLit, t);
        if (seen) firstSeen = std::min(firstSeen, t);
        if (lit && seen) firstLitSeen = std::min(firstLitSeen, t);
    }
    const double first = c.indirect ? std::max(firstLit, firstSeen) : firstLitSeen;
    if (std::isfinite(first) && first >= double(c.timesteps)) {
        // rsimPulsedPeak needs the peak (at most one bin after `first`, the linear split) plus
        // the centroid's half-width inside the window.
        const double needed =
            first + 2.0 + double(shared::rsimCentroidHalfWidth(int(c.pulse.size())));
        // Beyond the longest window a scene file may ask for, more timesteps are not the cure:
        // the geometry is too far away (a mesh in mm read as m, a translate off by powers of ten).
        if (needed > double(kMaxTimesteps))
            throw InputError(fmt::format(
                "no light can return within any time window rsim can run: the nearest surface that the light "
                "reaches and the sensor sees takes {:.6g} ns ({:.6g} m of path), and the longest window is {} "
                "timesteps of {} ns. Check the scene's scale: the [[mesh]] units (scale), their translate, and "
                "the light's and sensor's positions",
                first * c.dtNs, first * c.cdtM, kMaxTimesteps, c.dtNs));
        throw InputError(fmt::format(
            "the time window is too short for any light to return: light first reaches a "
            "surface the sensor sees after {:.6g} ns, but the window ends at {:.6g} ns ({} "
            "timesteps of {} ns). Set simulation.timesteps to at least {:.0f} (--timesteps), or "
            "raise simulation.dt_ns.",
            first * c.dtNs, double(c.timesteps) * c.dtNs, c.timesteps, c.dtNs, needed));
    }
}

namespace {

// Gated mode measures a delay tau in [g, g + (gates - 1) W) bins (MODEL.md section 6): the direct
// light of a triangle farther than that arrives while the gates it needs are closed.
std::string gateRangeWarning(const DirectTerms& d, const SimConfig& c) {
    const double open = double(c.gateStart), last = open + double(c.gates - 1) * double(c.pulse.size());
    std::size_t seen = 0, outside = 0;
    double farthest = 0.0; // steps
    for (std::size_t i = 0; i < d.tLight.size(); ++i) {
        if (!(d.irradiance[i] > 0.0f && d.importance[i] > 0.0f)) continue;
        ++seen;
        const double path = double(d.tLight[i]) + double(d.tSensor[i]);
        farthest = std::max(farthest, path);
        outside += path < open || path >= last;
    }
    if (seen == 0 || outside == 0) return {};
    return fmt::format(
        "gated at sensor.gate_start_ns = {:.6g} with {} gates of {:.6g} ns measures light paths of {:.3g} to {:.3g} m "
        "(distances of about {:.3g} to {:.3g} m), but {} of the {} triangles the light reaches and the sensor sees are "
        "outside that (paths up to {:.3g} m): their pixels come out wrong or without a range. Move "
        "sensor.gate_start_ns, use sensor.gates = 3, or a longer pulse (light.pulse_width_ns)",
        open * c.dtNs, c.gates, double(c.pulse.size()) * c.dtNs, open * c.cdtM, last * c.cdtM, open * c.cdtM / 2.0,
        last * c.cdtM / 2.0, outside, seen, farthest * c.cdtM);
}

} // namespace

std::string ambiguityWarning(const DirectTerms& d, const SimConfig& c) {
    if (c.mode == SensorMode::Gated) return gateRangeWarning(d, c);
    if (c.mode != SensorMode::Amcw || c.modulationMhz.empty()) return {};
    double longest = 0.0; // steps
    for (std::size_t i = 0; i < d.tLight.size(); ++i)
        if (d.irradiance[i] > 0.0f && d.importance[i] > 0.0f)
            longest = std::max(longest, double(d.tLight[i]) + double(d.tSensor[i]));
    const double pathM = longest * c.cdtM;
    // The frequencies' greatest common divisor, in kHz.
    std::uint64_t g = 0;
    for (double f : c.modulationMhz) g = std::gcd(g, std::uint64_t(std::llround(f * 1000.0)));
    if (g == 0) return {};
    const double c0 = double(shared::RSIM_C_M_PER_NS) * 1e9; // m/s
    const double rangeM = c0 / (double(g) * 1e3);
    if (pathM <= rangeM) return {};
    std::string freqs;
    for (double f : c.modulationMhz) freqs += (freqs.empty() ? "" : ", ") + fmt::format("{:g}", f);
    return fmt::format(
        "AMCW at {} MHz tells light paths apart up to {:.3g} m (distances up to about {:.3g} m), but paths in "
        "this scene reach {:.3g} m: the phase of farther triangles wraps and their distances come out short. "
        "Use a lower frequency, or add one whose greatest common divisor with the others is smaller "
        "(sensor.modulation_mhz; docs/model-choices.md, AMCW)",
        freqs, rangeM, rangeM / 2.0, pathM);
}

std::string windowWarning(const std::vector<double>& s, const SimConfig& c) {
    const std::size_t T = s.size(), tenth = T / 10;
    if (tenth < 2) return {};
    double total = 0.0, last = 0.0, before = 0.0;
    for (std::size_t t = 0; t < T; ++t) {
        total += s[t];
        if (t >= T - tenth) last += s[t];
        else if (t >= T - 2 * tenth) before += s[t];
    }
    if (!(total > 0.0) || !(last > 0.0)) return {};
    const double windowNs = double(T) * c.dtNs;
    const std::string advice = fmt::format("Raise simulation.timesteps (--timesteps; now {} steps of {} ns, "
                                           "{:.6g} ns), or simulation.dt_ns",
                                           T, c.dtNs, windowNs);
    if (!(before > last))
        return fmt::format("the signal reaching the sensor does not decay at the end of the time window: much "
                           "of the light arrives after it, and distances and AMCW phases miss it. {}",
                           advice);
    const double q = last / before, tail = last * q / (1.0 - q), fraction = tail / (total + tail);
    if (fraction <= 0.01) return {};
    return fmt::format("about {:.1f}% of the light reaching the sensor arrives after the time window (estimated "
                       "from the decay of the signal's last tenth); distances and AMCW phases miss it. {}",
                       100.0 * fraction, advice);
}

std::string backFaceWarning(const PreparedScene& s, const SimConfig& c, const SensorImage& image) {
    std::uint64_t hits = 0, back = 0;
    std::vector<std::uint64_t> backByMesh(s.meshNames.size(), 0);
    const glm::dvec3 eye(c.sensor.position);
    for (std::int32_t t : image.triangle) {
        if (t < 0) continue;
        ++hits;
        const std::size_t i = std::size_t(t);
        // n . (x - eye) has one sign over the triangle's plane: positive means its back faces us.
        if (s.twin[i] != PreparedScene::kNoTwin || glm::dot(glm::dvec3(s.normal[i]), glm::dvec3(s.v0[i]) - eye) <= 0.0)
            continue;
        ++back;
        const std::uint32_t mesh = s.sourceMeshOfId[s.id[i]];
        if (mesh < backByMesh.size()) ++backByMesh[mesh];
    }
    if (hits == 0 || double(back) <= 0.2 * double(hits)) return {};
    const std::size_t worst =
        std::size_t(std::max_element(backByMesh.begin(), backByMesh.end()) - backByMesh.begin());
    return fmt::format("{:.0f}% of the pixels that hit the scene see the back of one-sided triangles (most of them "
                       "of mesh \"{}\"), which reflect nothing towards the sensor: is the room modelled facing "
                       "outwards (its triangles' vertices run clockwise seen from inside)? Set two_sided = true on "
                       "its [[material]], or reverse the triangles' vertex order",
                       100.0 * double(back) / double(hits), worst < s.meshNames.size() ? s.meshNames[worst] : "?");
}

std::size_t trianglesWithDistance(const std::vector<double>& distance) {
    return std::size_t(std::count_if(distance.begin(), distance.end(), [](double d) { return !std::isnan(d); }));
}

std::string cutOffWarning(std::uint32_t echoesCutOff, const SimConfig& c) {
    if (echoesCutOff == 0) return {};
    return fmt::format("{} triangle(s) have their echo peak too close to the end of the simulated time ({} steps of {} "
                       "ns) and get no distance; increase timesteps",
                       echoesCutOff, c.timesteps, c.dtNs);
}

void checkSomeDistance(std::size_t posesWithDistance, std::size_t poses, std::uint32_t echoesCutOff,
                       const SimConfig& c) {
    if (posesWithDistance > 0) return;
    if (c.transport == Transport::Paths)
        throw InputError(fmt::format("{}no pixel got a range: no camera path found the light within the time window "
                                     "({} timesteps of {} ns). Check [light] and [sensor], raise "
                                     "simulation.timesteps, or sensor.pixel_samples for a faint scene.",
                                     poses > 1 ? fmt::format("none of the {} poses got a range; ", poses) : "",
                                     c.timesteps, c.dtNs));
    const std::string what = poses > 1 ? fmt::format("none of the {} poses got a distance; the first: no triangle got "
                                                     "a distance",
                                                     poses)
                                       : std::string("no triangle got a distance");
    const double windowNs = double(c.timesteps) * c.dtNs;
    if (echoesCutOff > 0)
        throw InputError(fmt::format(
            "{}: the echoes of {} triangle(s) were cut off at the end of the time window ({} timesteps of {} ns = "
            "{:.6g} ns). Raise simulation.timesteps (--timesteps), e.g. to {}, or simulation.dt_ns.",
            what, echoesCutOff, c.timesteps, c.dtNs, windowNs, std::uint64_t(c.timesteps) * 2));
    throw InputError(fmt::format("{}: no triangle the sensor sees returned a usable echo within the time window ({} "
                                 "timesteps of {} ns = {:.6g} ns). Check [light] and [sensor], or raise "
                                 "simulation.timesteps.",
                                 what, c.timesteps, c.dtNs, windowNs));
}

void warnApproximatedMaterials(const PreparedScene& scene) {
    for (std::size_t m = 0; m < scene.materialModels.size(); ++m) {
        const MaterialModel& model = scene.materialModels[m];
        if (!approximatedByRadiosity(model)) continue;
        spdlog::warn("material \"{}\" ({}): the radiosity transport treats it as Lambertian with reflectance {:.4g}, "
                     "its albedo at normal incidence; simulation.transport = \"paths\" models its specular part "
                     "(MODEL.md §10)",
                     scene.materialNames[m], materialTypeName(model.type), radiosityAlbedo(model));
    }
}

} // namespace rsim
