// SPDX-License-Identifier: MIT
// Batches (issue 14, MODEL.md §9 "Poses"): the camera rig, the poses file, and the promise that
// a pose of a batch gets exactly what it would get alone: bit for bit on the CPU backend, to
// fp32 order on Vulkan, whatever the group size.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>

#include <glm/geometric.hpp>
#include <nlohmann/json.hpp>

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include "backends/backend_choice.h"
#include "pipeline/simulate.h"
#include "scene/poses.h"
#include "scene/scene_config.h"
#include "scene/scene_desc.h"
#include "support/h5_read.h"
#include "support/run_command.h"
#include "support/test_scenes.h"
#include "util/error.h"

using namespace rsim;
using namespace rsim::test;
using Catch::Matchers::ContainsSubstring;

namespace {

PreparedScene room() {
    SceneBuilder b;
    auto wall = b.material("wall", 0.7f);
    auto box = b.material("box", 0.5f);
    b.roomShell({0, 0, 0}, {3.0, 2.5, 2.2}, 2, wall);
    b.box({1.8, 1.2, 0.0}, {2.4, 1.8, 0.9}, 1, box);
    return b.prepare();
}

SceneDesc rig() {
    SceneDesc d = basicScene({0.3, 1.2, 1.2}, {2.9, 1.1, 0.8});
    d.light.position = {0.3, 1.16, 1.22}; // 4 cm beside the sensor, like a ToF camera
    d.light.direction = {1.0, -0.05, -0.1};
    d.light.half_angle_deg = 70.0;
    d.sensor.position = glm::dvec3(0.3, 1.2, 1.2);
    d.sim.timesteps = 300;
    d.sensor.width = 24;
    d.sensor.height = 18;
    return d;
}

std::vector<PoseDesc> threePoses() {
    std::vector<PoseDesc> p(3);
    p[0] = {"rig", {0.3, 1.2, 1.2}, {2.9, 1.1, 0.8}, std::nullopt, "test pose 1"};
    p[1] = {"corner", {0.4, 0.4, 1.5}, {2.5, 2.0, 0.5}, std::nullopt, "test pose 2"};
    p[2] = {"back", {2.7, 2.2, 1.0}, {0.5, 0.8, 1.0}, glm::dvec3(0.0, 0.0, 1.0), "test pose 3"};
    return p;
}

struct PoseRuns {
    std::vector<SimulationResult> results;
    BatchReport report;
    std::string kLayout; // as K was stored
};

PoseRuns runBatch(const std::string& backend, const PreparedScene& s, const std::vector<PoseDesc>& poses,
                  std::uint32_t maxGroup, bool timeseries = true,
                  const std::function<void(BackendChoice&)>& tune = {}, KLayout layout = KLayout::Auto) {
    const SceneDesc base = rig();
    std::vector<PoseConfig> configs;
    for (const PoseDesc& p : poses) configs.push_back({p.where, makeSimConfig(applyPose(base, p))});
    for (PoseConfig& c : configs) c.config.k.layout = layout;
    auto b = makeTestBackend(backend, tune);
    PhaseTimes times;
    RunMetadata meta;
    RunOptions opt;
    opt.images = true;
    opt.maxPoseGroup = maxGroup;
    opt.timeseries = timeseries;
    PoseRuns out;
    out.results.resize(poses.size());
    out.report = simulateBatch(PhaseBackends::all(*b), s, configs, opt, times, meta,
                               [&](std::size_t p, SimulationResult& r, const PhaseTimes&) { out.results[p] = std::move(r); });
    if (meta.validationErrors) FAIL(meta.validationErrors << " Vulkan validation error(s)");
    out.kLayout = meta.k.layout;
    return out;
}

bool sameBits(const std::vector<float>& a, const std::vector<float>& b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](float x, float y) {
               return std::memcmp(&x, &y, sizeof x) == 0;
           });
}

bool sameBits(const std::vector<double>& a, const std::vector<double>& b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](double x, double y) {
               return std::memcmp(&x, &y, sizeof x) == 0;
           });
}

// max |a - b| / max |a|, NaN in one only counting as a mismatch (returns infinity).
double relativeDifference(const std::vector<float>& a, const std::vector<float>& b) {
    REQUIRE(a.size() == b.size());
    double peak = 0.0, diff = 0.0;
    for (std::size_t k = 0; k < a.size(); ++k) {
        if (std::isnan(a[k]) != std::isnan(b[k])) return INFINITY;
        if (std::isnan(a[k])) continue;
        peak = std::max(peak, std::abs(double(a[k])));
        diff = std::max(diff, std::abs(double(a[k]) - double(b[k])));
    }
    return peak > 0.0 ? diff / peak : diff;
}

} // namespace

TEST_CASE("a pose moves the sensor and the light as one rigid body", "[batch]") {
    const SceneDesc base = rig();
    SECTION("the scene's own pose changes nothing") {
        const SceneDesc same = applyPose(base, {"same", base.sensorPosition(), base.sensor.look_at, std::nullopt, "x"});
        CHECK(glm::length(same.light.position - base.light.position) < 1e-12);
        CHECK(glm::length(same.light.direction - glm::normalize(base.light.direction)) < 1e-12);
    }
    SECTION("turning the camera a quarter turn about z turns the light's offset and direction with it") {
        SceneDesc level = base;
        level.sensor.look_at = {2.9, 1.2, 1.2}; // looking along +x
        level.light.direction = {1.0, 0.0, 0.0};
        const PoseDesc turned{"turned", {1.0, 1.0, 1.0}, {1.0, 2.0, 1.0}, std::nullopt, "x"}; // along +y
        const SceneDesc t = applyPose(level, turned);
        // Offset light - sensor was (0, -0.04, 0.02) looking along +x; along +y it is (0.04, 0, 0.02).
        CHECK(glm::length(t.light.position - glm::dvec3(1.04, 1.0, 1.02)) < 1e-12);
        CHECK(glm::length(t.light.direction - glm::dvec3(0.0, 1.0, 0.0)) < 1e-12);
        CHECK(t.sensorPosition() == glm::dvec3(1.0, 1.0, 1.0));
    }
    SECTION("the distance between light and sensor is kept for any pose") {
        for (const PoseDesc& p : threePoses()) {
            const SceneDesc t = applyPose(base, p);
            CHECK(std::abs(glm::length(t.light.position - t.sensorPosition()) -
                           glm::length(base.light.position - base.sensorPosition())) < 1e-12);
        }
    }
}

TEST_CASE("the poses file is read with errors that name the line and the column", "[batch]") {
    TempDir dir;
    const auto file = dir / "poses.csv";
    auto errorOf = [&](const std::string& text) -> std::string {
        writeFile(file, text);
        try {
            (void)readPosesCsv(file);
        } catch (const InputError& e) {
            return e.what();
        }
        return "";
    };
    writeFile(file, "# a comment\nname,x,y,z,look_x,look_y,look_z,up_x,up_y,up_z\n\nA,1,2,3,4,5,6,0,0,1\nB, 1.5 ,2,3,4,5,6,0,1,0\n");
    const auto poses = readPosesCsv(file);
    REQUIRE(poses.size() == 2);
    CHECK(poses[1].name == "B");
    CHECK(poses[1].position == glm::dvec3(1.5, 2, 3));
    REQUIRE(poses[1].up);
    CHECK(*poses[1].up == glm::dvec3(0, 1, 0));
    CHECK_THAT(poses[1].where, ContainsSubstring("poses.csv:5"));

    CHECK_THAT(errorOf("name,x,y,z,look_x,look_y,look_z\nA,1,2,oops,4,5,6\n"),
               ContainsSubstring("poses.csv:2: column 4 (z): expected a finite number, got \"oops\""));
    CHECK_THAT(errorOf("name,x,y,z,look_x,look_y,look_z\nA,1,2,3,4,5,nan\n"), ContainsSubstring("column 7 (look_z)"));
    CHECK_THAT(errorOf("name,x,y,z,look_x,look_y\nA,1,2,3,4,5\n"), ContainsSubstring("no \"look_z\" column"));
    CHECK_THAT(errorOf("name,x,y,z,lok_x,look_y,look_z\n"),
               ContainsSubstring("column 5: unknown column \"lok_x\" (did you mean \"look_x\"?)"));
    CHECK_THAT(errorOf("name,x,y,z,look_x,look_y,look_z\nA,1,2,3,4,5\n"), ContainsSubstring("poses.csv:2: expected 7 fields"));
    CHECK_THAT(errorOf("name,x,y,z,look_x,look_y,look_z,up_x\n"), ContainsSubstring("give all three or none"));
    CHECK_THAT(errorOf("name,x,y,z,look_x,look_y,look_z\n"), ContainsSubstring("no poses"));

    const SceneDesc base = rig();
    auto checkError = [&](std::vector<PoseDesc> p) -> std::string {
        try {
            checkPoses(p, base);
        } catch (const InputError& e) {
            return e.what();
        }
        return "";
    };
    auto ok = threePoses();
    CHECK(checkError(ok).empty());
    auto twice = ok;
    twice[2].name = "rig";
    CHECK_THAT(checkError(twice), ContainsSubstring("test pose 3: the name \"rig\" is used by an earlier pose"));
    auto slash = ok;
    slash[1].name = "../x";
    CHECK_THAT(checkError(slash), ContainsSubstring("letters, digits"));
    auto reserved = ok;
    reserved[0].name = "batch.csv";
    CHECK_THAT(checkError(reserved), ContainsSubstring("cannot name a pose's results directory"));
    auto blind = ok;
    blind[0].lookAt = blind[0].position;
    CHECK_THAT(checkError(blind), ContainsSubstring("test pose 1: the look-at point must differ"));
    auto parallel = ok;
    parallel[1].up = parallel[1].lookAt - parallel[1].position;
    CHECK_THAT(checkError(parallel), ContainsSubstring("parallel"));
}

TEST_CASE("[[pose]] tables in the scene file are read like the poses file", "[batch]") {
    TempDir dir;
    const std::string mesh = std::string(RSIM_SOURCE_DIR) + "/scenes/tiny-room/room.obj";
    const std::string head = "[[mesh]]\npath = \"" + mesh + "\"\n";
    writeFile(dir / "ok.toml", head + "[[pose]]\nname = \"door\"\nposition = [0.5, 1.0, 1.5]\nlook_at = [3.0, 1.5, 1.0]\n"
                                      "[[pose]]\nname = \"up\"\nposition = [1, 1, 1]\nlook_at = [2, 1, 1]\nup = [0, 1, 0]\n");
    const SceneDesc scene = loadSceneFile(dir / "ok.toml");
    REQUIRE(scene.poses.size() == 2);
    CHECK(scene.poses[0].name == "door");
    CHECK(scene.poses[0].lookAt == glm::dvec3(3.0, 1.5, 1.0));
    CHECK(!scene.poses[0].up);
    CHECK(*scene.poses[1].up == glm::dvec3(0, 1, 0));
    CHECK_THAT(scene.poses[1].where, ContainsSubstring("ok.toml:7 ([[pose]] #2, \"up\")"));
    auto errorOf = [&](const std::string& text) -> std::string {
        writeFile(dir / "bad.toml", head + text);
        try {
            (void)loadSceneFile(dir / "bad.toml");
        } catch (const InputError& e) {
            return e.what();
        }
        return "";
    };
    CHECK_THAT(errorOf("[[pose]]\nname = \"a\"\nlook_at = [1, 2, 3]\n"), ContainsSubstring("needs a position"));
    CHECK_THAT(errorOf("[[pose]]\nname = \"a\"\nposition = [0, 0, 1]\nlook_at = [1, 2, 3]\nlook = 1\n"),
               ContainsSubstring("look"));
    CHECK_THAT(errorOf("[pose]\nname = \"a\"\n"), ContainsSubstring("must be written [[pose]]"));
}

TEST_CASE("a pose of a batch gets bit for bit what it gets alone on the CPU backend", "[batch]") {
    const PreparedScene s = room();
    const auto poses = threePoses();
    for (std::uint32_t group : {3u, 2u}) {
        const PoseRuns batch = runBatch("cpu", s, poses, group);
        CHECK(batch.report.groupSize == group);
        for (std::size_t p = 0; p < poses.size(); ++p) {
            INFO("pose " << poses[p].name << ", groups of " << group);
            const PoseRuns alone = runBatch("cpu", s, {poses[p]}, 0);
            const SimulationResult& a = alone.results[0];
            const SimulationResult& b = batch.results[p];
            CHECK(sameBits(a.B, b.B));
            CHECK(sameBits(a.Z, b.Z));
            CHECK(sameBits(a.distance, b.distance));
            CHECK(sameBits(a.image.depth, b.image.depth));
            CHECK(sameBits(a.signalFwd, b.signalFwd));
        }
    }
    // The poses see different things: a batch that gave every pose pose 0's light would pass
    // the checks above only if the poses were alike.
    const PoseRuns batch = runBatch("cpu", s, poses, 0);
    CHECK(!sameBits(batch.results[0].B, batch.results[1].B));
    CHECK(!sameBits(batch.results[1].Z, batch.results[2].Z));
}

TEST_CASE("a pose of a batch gets what it gets alone on Vulkan, to fp32 order", "[batch][vulkan]") {
    const auto paths = vulkanPathsAvailable();
    if (paths.empty()) SKIP("no Vulkan device with ray tracing");
    const PreparedScene s = room();
    const auto poses = threePoses();
    const PoseRuns batch = runBatch(paths.back(), s, poses, 0);
    CHECK(batch.report.groupSize == 3);
    const PoseRuns cpu = runBatch("cpu", s, poses, 0);
    for (std::size_t p = 0; p < poses.size(); ++p) {
        INFO("pose " << poses[p].name);
        const PoseRuns alone = runBatch(paths.back(), s, {poses[p]}, 0);
        // Same K (computed by the same device, same seed), same arithmetic per pose: the only
        // differences allowed are the order of fp32 sums.
        CHECK(relativeDifference(alone.results[0].B, batch.results[p].B) < 1e-5);
        CHECK(relativeDifference(alone.results[0].Z, batch.results[p].Z) < 1e-5);
        CHECK(relativeDifference(alone.results[0].image.depth, batch.results[p].image.depth) < 1e-5);
        // And against the CPU reference's batch, as invariant 8 allows (K's own sampling).
        CHECK(relativeDifference(cpu.results[p].B, batch.results[p].B) < 0.02);
    }

    // Without the time series in host memory, the sensor signals and energies come from the
    // device: the same values to fp32 rounding, and s_fwd == s_adj (MODEL.md §5) still holds.
    const PoseRuns onDevice = runBatch(paths.back(), s, poses, 0, false);
    for (std::size_t p = 0; p < poses.size(); ++p) {
        INFO("pose " << poses[p].name);
        const SimulationResult& host = batch.results[p];
        const SimulationResult& dev = onDevice.results[p];
        CHECK(dev.B.empty());
        double peak = 0.0, dFwd = 0.0, dAdj = 0.0, identity = 0.0;
        for (std::size_t t = 0; t < host.signalFwd.size(); ++t) {
            peak = std::max(peak, std::abs(host.signalFwd[t]));
            dFwd = std::max(dFwd, std::abs(host.signalFwd[t] - dev.signalFwd[t]));
            dAdj = std::max(dAdj, std::abs(host.signalAdj[t] - dev.signalAdj[t]));
            identity = std::max(identity, std::abs(dev.signalFwd[t] - dev.signalAdj[t]));
        }
        REQUIRE(peak > 0.0);
        CHECK(dFwd / peak < 1e-5);
        CHECK(dAdj / peak < 1e-5);
        CHECK(identity / peak < 1e-4);
        CHECK(sameBits(host.distance, dev.distance));
        CHECK(sameBits(host.totalEnergy, dev.totalEnergy));
        CHECK(sameBits(host.directEnergy, dev.directEnergy));
    }
}

TEST_CASE("a batch in pose lanes gets what one pose per invocation gets, to fp32 order", "[batch][vulkan]") {
    const auto paths = vulkanPathsAvailable();
    if (paths.empty()) SKIP("no Vulkan device with ray tracing");
    const PreparedScene s = room();
    // 40 poses on a circle in the room: a group of 32 in pose lanes, then 8 one per invocation.
    std::vector<PoseDesc> poses;
    for (int k = 0; k < 40; ++k) {
        const double a = 2.0 * 3.141592653589793 * k / 40.0;
        poses.push_back({"p" + std::to_string(k), {1.5 + 0.8 * std::cos(a), 1.25 + 0.6 * std::sin(a), 1.2 + 0.01 * k},
                         {1.5 - std::cos(a), 1.25 - std::sin(a), 0.9}, std::nullopt, "test pose " + std::to_string(k)});
    }
    const PoseRuns plain = runBatch(paths.back(), s, poses, 0, true, [](BackendChoice& c) { c.radiosityLanes = "off"; });
    CHECK(plain.report.groupSize == 40);
    const std::vector<std::pair<std::string, std::function<void(BackendChoice&)>>> lanes = {
        {"lanes", [](BackendChoice&) {}},
        // Several receivers and source slices per workgroup: the slices' sums and the barriers.
        {"4 receivers x 3 slices", [](BackendChoice& c) { c.laneReceivers = 4; c.radiositySplit = 3; }},
        // One and three sources per loop trip (four by default), a trip's last ones repeating its first.
        {"1 source per trip", [](BackendChoice& c) { c.radiosityUnroll = 1; }},
        {"3 sources per trip", [](BackendChoice& c) { c.radiosityUnroll = 3; }},
        // K's rows on two devices (slots of one): far sums combined through the host.
        {"two devices", [](BackendChoice& c) { c.devices = "0,0"; }}};
    for (const auto& [name, tune] : lanes) {
        INFO(name);
        const PoseRuns run = runBatch(paths.back(), s, poses, 0, true, tune);
        CHECK(run.report.groupSize == 32);
        CHECK(run.report.groups == 2);
        for (std::size_t p = 0; p < poses.size(); ++p) {
            INFO("pose " << poses[p].name);
            REQUIRE(!run.results[p].B.empty());
            CHECK(relativeDifference(plain.results[p].B, run.results[p].B) < 1e-5);
            CHECK(relativeDifference(plain.results[p].Z, run.results[p].Z) < 1e-5);
            CHECK(relativeDifference(plain.results[p].image.depth, run.results[p].image.depth) < 1e-5);
        }
    }
    // K stored as segments: a workgroup's receivers in one tile, its batches the tile's segments.
    for (const auto& [name, tune] : {lanes[0], lanes[1]}) {
        INFO(name << ", K stored as segments");
        const PoseRuns run = runBatch(paths.back(), s, poses, 0, true, tune, KLayout::Segments);
        CHECK(run.kLayout == "segments");
        CHECK(run.report.groupSize == 32);
        for (std::size_t p = 0; p < poses.size(); ++p) {
            INFO("pose " << poses[p].name);
            CHECK(relativeDifference(plain.results[p].B, run.results[p].B) < 1e-5);
            CHECK(relativeDifference(plain.results[p].Z, run.results[p].Z) < 1e-5);
        }
    }
    // Without the time series on the host, the sensor signals come from the device too, each
    // pose read out of the lanes first.
    const PoseRuns onDevice = runBatch(paths.back(), s, poses, 0, false);
    for (std::size_t p = 0; p < poses.size(); ++p) {
        INFO("pose " << poses[p].name);
        const std::vector<double>& a = plain.results[p].signalFwd;
        const std::vector<double>& b = onDevice.results[p].signalFwd;
        REQUIRE(a.size() == b.size());
        double peak = 0.0, diff = 0.0;
        for (std::size_t t = 0; t < a.size(); ++t) {
            peak = std::max(peak, std::abs(a[t]));
            diff = std::max(diff, std::abs(a[t] - b[t]));
        }
        REQUIRE(peak > 0.0);
        CHECK(diff / peak < 1e-5);
        CHECK(relativeDifference(plain.results[p].image.depth, onDevice.results[p].image.depth) < 1e-5);
    }
}

TEST_CASE("rsim run --poses writes a results directory per pose, batch.csv and batch.h5", "[batch][cli]") {
    TempDir dir;
    writeFile(dir / "poses.csv", "name,x,y,z,look_x,look_y,look_z\n"
                                 "front,0.25,1.52,1.5,4.0,1.5,1.0\n"
                                 "side,1.0,1.0,1.2,3.0,2.5,1.0\n");
    const std::string scene = std::string(RSIM_SOURCE_DIR) + "/scenes/tiny-room/scene.toml";
    const auto run = runRsim("run " + scene + " --backend cpu --timesteps 400 --samples 4 --no-progress --poses " +
                             (dir / "poses.csv").string() + " -o " + (dir / "out").string());
    INFO(run.output);
    REQUIRE(run.exitCode == 0);
    for (const char* f : {"batch.csv", "batch.h5", "summary.json", "front/summary.json", "front/triangles.csv",
                          "front/depth.pfm", "side/triangles.csv", "side/timeseries.h5"})
        CHECK(std::filesystem::is_regular_file(dir / "out" / f));
    const std::string csv = readFile(dir / "out" / "batch.csv");
    CHECK_THAT(csv, ContainsSubstring("\nfront,0.25,1.52,1.5,4,1.5,1,"));
    CHECK_THAT(csv, ContainsSubstring("\nside,1,1,1.2,3,2.5,1,"));
    // batch.h5's rows are the poses' own results, in the poses file's order (the writers fill
    // them in whatever order they finish).
    std::vector<hsize_t> dims;
    const auto signals = readAll<double>(dir / "out" / "batch.h5", "signal", H5T_NATIVE_DOUBLE, &dims);
    REQUIRE(dims.size() == 2);
    REQUIRE(dims[0] == 2);
    const char* order[] = {"front", "side"};
    for (std::size_t k = 0; k < 2; ++k) {
        const auto own = nlohmann::json::parse(readFile(dir / "out" / order[k] / "summary.json"))["sensor_signal_fwd"]
                             .get<std::vector<double>>();
        REQUIRE(own.size() == dims[1]);
        double peak = 0.0, diff = 0.0;
        for (std::size_t t = 0; t < own.size(); ++t) {
            peak = std::max(peak, std::abs(own[t]));
            diff = std::max(diff, std::abs(own[t] - signals[k * dims[1] + t]));
        }
        INFO(order[k]);
        CHECK(peak > 0.0);
        CHECK(diff <= 1e-6 * peak);
    }
    // A second run replaces the batch directory it wrote.
    const auto again = runRsim("run " + scene + " --backend cpu --timesteps 400 --samples 4 --no-progress -q --poses " +
                               (dir / "poses.csv").string() + " -o " + (dir / "out").string());
    CHECK(again.exitCode == 0);

    writeFile(dir / "bad.csv", "name,x,y,z,look_x,look_y,look_z\nfront,0.25,1.52,1.5,4.0,1.5,1.0\nside,1.0,x1,1.2,3.0,2.5,1.0\n");
    const auto bad = runRsim("run " + scene + " --backend cpu --poses " + (dir / "bad.csv").string() + " -o " +
                             (dir / "bad").string());
    CHECK(bad.exitCode == 2);
    CHECK_THAT(bad.output, ContainsSubstring("bad.csv:3: column 3 (y): expected a finite number, got \"x1\""));
    CHECK(!std::filesystem::exists(dir / "bad"));
}

TEST_CASE("one or four poses per far-gather invocation, on one device or two, give the same results",
          "[batch][vulkan][cli]") {
    if (vulkanPathsAvailable().empty()) SKIP("no Vulkan device with ray tracing");
    TempDir dir;
    writeFile(dir / "poses.csv", "name,x,y,z,look_x,look_y,look_z\n"
                                 "front,0.25,1.52,1.5,4.0,1.5,1.0\n"
                                 "side,1.0,1.0,1.2,3.0,2.5,1.0\n"
                                 "back,3.5,2.5,1.6,0.0,0.5,1.0\n");
    const std::string scene = std::string(RSIM_SOURCE_DIR) + "/scenes/tiny-room/scene.toml";
    // Each invocation width on one device and on two (K's rows split, far sums combined through the host).
    const std::vector<std::pair<std::string, std::string>> runs = {
        {"1", "--radiosity-poses 1"}, {"4", "--radiosity-poses 4"},
        {"1-two", "--radiosity-poses 1 --devices 0,0"}, {"4-two", "--radiosity-poses 4 --devices 0,0"},
        {"groups", "--pose-group 2"}};
    for (const auto& [name, options] : runs) {
        const auto run = runRsim("run " + scene + " --backend vulkan --timesteps 300 --samples 4 --no-progress -q " +
                                 "--no-timeseries --chunk-mb 0.05 " + options + " --poses " +
                                 (dir / "poses.csv").string() + " -o " + (dir / name).string());
        INFO(name << ": " << run.output);
        REQUIRE(run.exitCode == 0);
    }
    auto signal = [&](const std::string& run, const char* pose) {
        const auto j = nlohmann::json::parse(readFile(dir / run / pose / "summary.json"));
        return j["sensor_signal_fwd"].get<std::vector<double>>();
    };
    for (const char* other : {"4", "1-two", "4-two", "groups"})
        for (const char* pose : {"front", "side", "back"}) {
            const auto cmp = runRsim("compare " + (dir / "1" / pose).string() + " " + (dir / other / pose).string() +
                                     " --max-fraction 0 --tol-m 1e-5");
            INFO(other << " " << pose << ": " << cmp.output);
            CHECK(cmp.exitCode == 0);
            // The whole sensor signal, indirect light included, to fp32 summation order.
            const auto a = signal("1", pose), b = signal(other, pose);
            REQUIRE(a.size() == b.size());
            double peak = 0.0, diff = 0.0;
            for (std::size_t t = 0; t < a.size(); ++t) {
                peak = std::max(peak, std::abs(a[t]));
                diff = std::max(diff, std::abs(a[t] - b[t]));
            }
            CHECK(diff <= 1e-5 * peak);
        }
}
