// SPDX-License-Identifier: MIT
// Scene file (TOML) reader. Every value is checked for type and range, every unknown key is
// reported with a did-you-mean, and every message names the file and line. This file reads the
// file, its top level, [simulation], [[mesh]], [output], [tuning] and [[pose]];
// scene_file_camera.cpp the light and the sensor, scene_file_materials.cpp the [[material]]s.
#include "scene/scene_desc.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include <spdlog/spdlog.h>
#include <toml++/toml.h>

#include "scene/scene_file_tables.h"
#include "scene/toml_reader.h"
#include "scene/toml_text.h"
#include "scene/tuning_table.h"

#include "util/did_you_mean.h"
#include "util/error.h"

namespace rsim {
namespace fs = std::filesystem;

using namespace toml_reader;

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

namespace {

// The scene file's text as TOML; a syntax error names the file, line and column.
toml::table parseSceneText(const std::string& text, const fs::path& file, const std::string& fileName) {
    try {
        return toml::parse(text, file.string());
    } catch (const toml::parse_error& e) {
        std::ostringstream os;
        os << fileName << ":" << e.source().begin.line << ":" << e.source().begin.column
           << ": TOML syntax error: " << e.description();
        throw InputError(os.str());
    }
}

// Every top-level key is one of the scene file's tables, written [name] or [[name]] as it must be.
void checkTopLevel(const toml::table& root, const std::string& fileName) {
    for (auto&& [k, v] : root) {
        std::string key(k.str());
        if (std::find(kTopLevel.begin(), kTopLevel.end(), key) != kTopLevel.end()) {
            bool arrayOfTables = key == "material" || key == "mesh" || key == "pose";
            bool ok = arrayOfTables ? (v.is_array_of_tables()) : v.is_table() || (key == "light" && v.is_array_of_tables());
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
}

} // namespace

const toml::table& SceneTables::section(const char* name) const {
    static const toml::table empty;
    const toml::node* n = root_.get(name);
    return n ? *n->as_table() : empty;
}

// [simulation]: the time grid, the samples of K and of the direct terms.
void SceneTables::readSimulation(SceneDesc& scene) const {
    TableReader r(section("simulation"), "[simulation]", fileName_, &origins_, "simulation");
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
    const std::string layout = r.choice("k_layout", kLayoutName(s.k_layout), {"auto", "dense", "segments"});
    s.k_layout = layout == "dense" ? KLayout::Dense : layout == "segments" ? KLayout::Segments : KLayout::Auto;
    s.direct_samples = r.integer("direct_samples", s.direct_samples, 1, 1 << 20);
    s.seed = r.integer("seed", s.seed, 0, 0xffffffffLL);
    s.indirect = r.boolean("indirect", s.indirect);
    s.max_edge_m = r.number("max_edge_m", s.max_edge_m, 0.0, 1e9);
    const std::string transport = r.choice("transport", "radiosity", {"radiosity", "paths", "phasors"});
    s.transport = transport == "paths"     ? Transport::Paths
                  : transport == "phasors" ? Transport::Phasors
                                           : Transport::Radiosity;
    s.max_bounces = r.integer("max_bounces", s.max_bounces, 0, 1 << 16);
    s.phasor_tolerance = r.number("phasor_tolerance", s.phasor_tolerance, 1e-12, 0.1);
    s.phasor_max_iterations = r.integer("phasor_max_iterations", s.phasor_max_iterations, 1, 1 << 20);
    s.phasor_rounded_delays = r.choice("phasor_delays", "exact", {"exact", "rounded"}) == "rounded";
    r.finish();
}

// [[mesh]]: the mesh files (relative to the scene file), each with its transform and [[material]].
void SceneTables::readMeshes(SceneDesc& scene) const {
    std::vector<std::string> materialNames;
    for (auto& m : scene.materials) materialNames.push_back(m.name);
    forEachArrayTable(root_, "mesh", fileName_, [&](TableReader& r, const toml::node& e) {
        MeshDesc m;
        auto path = r.string("path");
        if (!path || path->empty()) r.fail(&e, "path", "every mesh needs a path");
        m.pathAsWritten = *path;
        m.path = fs::path(*path).is_absolute() ? fs::path(*path) : baseDir_ / *path;
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
        m.where = fileName_ + ":" + std::to_string(e.source().begin.line) + " (" + r.context() +
                  ", " + m.pathAsWritten + ")";
        scene.meshes.push_back(m);
    });
    if (scene.meshes.empty())
        throw InputError(fileName_ + ": the scene has no [[mesh]]; add at least one, e.g.\n"
                         "  [[mesh]]\n  path = \"room.obj\"");
}

// [output]: what is written where (relative to the scene file); the transient within the image.
void SceneTables::readOutput(SceneDesc& scene) const {
    TableReader r(section("output"), "[output]", fileName_, &origins_, "output");
    if (auto d = r.string("dir")) {
        if (d->empty()) r.fail(section("output").get("dir"), "dir", "must not be empty");
        scene.output.dir = fs::path(*d).is_absolute() ? fs::path(*d) : baseDir_ / *d;
    } else {
        scene.output.dir = baseDir_ / scene.output.dir;
    }
    // The phasors transport has no time series to write (MODEL.md §11): off unless asked for.
    scene.output.timeseries =
        r.boolean("timeseries", scene.output.timeseries && scene.sim.transport != Transport::Phasors);
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
    if (scene.sim.transport == Transport::Phasors && o.timeseries)
        r.fail(t.get("timeseries"), "timeseries",
               "simulation.transport = \"phasors\" solves phasors, not time series (no B or Z: MODEL.md §11); drop it "
               "or use simulation.transport = \"radiosity\"");
    if (scene.sim.transport == Transport::Phasors && o.transient)
        r.fail(t.get("transient"), "transient",
               "simulation.transport = \"phasors\" computes no per-pixel transients (MODEL.md §11); drop it or use "
               "simulation.transport = \"radiosity\"");
    r.finish();
}

// [tuning]: the tuning switches (scene/tuning_table.h).
void SceneTables::readTuning(SceneDesc& scene) const {
    scene.tuning = readTuningTable(section("tuning"), fileName_, &origins_);
}

// [[pose]]: the sensor's positions of a batch.
void SceneTables::readPoses(SceneDesc& scene) const {
    forEachArrayTable(root_, "pose", fileName_, [&](TableReader& r, const toml::node& e) {
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
        p.where = fileName_ + ":" + std::to_string(e.source().begin.line) + " (" + r.context() + ", \"" + p.name + "\")";
        scene.poses.push_back(p);
    });
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

    toml::table root = parseSceneText(text, scene.file, fileName);
    const OverrideOrigins origins = applyOverrides(root, overrides);
    // Relative paths are the scene file's; a scene read from a pipe has no folder: the
    // working directory's.
    const fs::path baseDir = fs::is_regular_file(scene.file, ec) ? scene.file.parent_path() : fs::current_path();
    checkTopLevel(root, fileName);

    const SceneTables tables(root, fileName, origins, baseDir);
    tables.readSimulation(scene);
    tables.readLight(scene);
    tables.readSensor(scene);
    tables.placeLightsOnCamera(scene);
    tables.readSensorModel(scene);
    tables.readMaterials(scene);
    tables.readMeshes(scene);
    tables.readOutput(scene);
    tables.readTuning(scene);
    tables.readPoses(scene);
    return scene;
}

} // namespace rsim
