// SPDX-License-Identifier: MIT
// Scene-file and mesh errors: each must name the file, the key or line, and what was expected.
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include "geometry/prepare.h"
#include "pipeline/run_simulation.h"
#include "scene/mesh_loader.h"
#include "support/test_scenes.h"
#include "util/did_you_mean.h"
#include "util/error.h"

using namespace rsim;
using namespace rsim::test;
using Catch::Matchers::ContainsSubstring;

namespace {

const char* kCubeObj = R"(# a 1 m box seen from inside, normals inward
v 0 0 0
v 1 0 0
v 1 1 0
v 0 1 0
v 0 0 1
v 1 0 1
v 1 1 1
v 0 1 1
usemtl wall
f 1 2 3
f 1 3 4
f 5 7 6
f 5 8 7
f 1 5 6
f 1 6 2
f 2 6 7
f 2 7 3
f 3 7 8
f 3 8 4
f 4 8 5
f 4 5 1
)";

const char* kScene = R"([simulation]
dt_ns = 0.1
timesteps = 200
samples = 4
direct_samples = 4

[light]
position = [0.5, 0.5, 0.5]
direction = [1.0, 0.0, 0.0]

[sensor]
look_at = [1.0, 0.5, 0.5]
resolution = [8, 6]

[[material]]
name = "wall"
reflectance = 0.6

[[mesh]]
path = "cube.obj"
)";

// Writes the scene with `from` replaced by `to` and returns the error message of loading it.
std::string errorOf(const TempDir& dir, const std::string& from, const std::string& to,
                    bool loadMeshesToo = false) {
    std::string text = kScene;
    if (!from.empty()) {
        auto pos = text.find(from);
        REQUIRE(pos != std::string::npos);
        text.replace(pos, from.size(), to);
    }
    writeFile(dir / "scene.toml", text);
    try {
        SceneDesc s = loadSceneFile(dir / "scene.toml");
        if (loadMeshesToo) loadMeshes(s);
    } catch (const InputError& e) {
        return e.what();
    }
    return "(no error)";
}

// Runs the CPU backend on the scene with `from` replaced by `to` (output in dir/out) and returns
// its input error, or "(no error)".
std::string runError(const TempDir& dir, const std::string& from, const std::string& to) {
    std::string text = kScene;
    text.replace(text.find(from), from.size(), to);
    writeFile(dir / "scene.toml", text);
    RunRequest req;
    req.sceneFile = dir / "scene.toml";
    req.backend.backend = "cpu";
    req.outputDir = dir / "out";
    try {
        runSimulation(req);
    } catch (const InputError& e) {
        return e.what();
    }
    return "(no error)";
}

} // namespace

TEST_CASE("a valid scene file loads with its values", "[scene]") {
    TempDir dir;
    writeFile(dir / "cube.obj", kCubeObj);
    writeFile(dir / "scene.toml", kScene);
    SceneDesc s = loadSceneFile(dir / "scene.toml");
    CHECK(s.sim.timesteps == 200);
    CHECK(s.sim.samples == 4);
    CHECK(s.sensorPosition() == glm::dvec3(0.5, 0.5, 0.5)); // defaults to the light's
    CHECK(s.meshes.size() == 1);
    CHECK(s.output.dir == dir.path() / "results");
    LoadedGeometry g = loadMeshes(s);
    CHECK(g.v0.size() == 12);
    CHECK(g.materials[g.material[0]].name == "wall");
    // Overrides are validated like file values.
    SceneDesc o = loadSceneFile(dir / "scene.toml", {{"simulation.samples", "32"},
                                                     {"sensor.mode", "amcw"}});
    CHECK(o.sim.samples == 32);
    CHECK(o.sensor.mode == SensorMode::Amcw);
    CHECK_THROWS_WITH(loadSceneFile(dir / "scene.toml", {{"simulation.samples", "0"}}),
                      ContainsSubstring("samples") && ContainsSubstring("[1, "));
    CHECK_THROWS_WITH(loadSceneFile(dir / "scene.toml", {{"simulaton.samples", "3"}}),
                      ContainsSubstring("did you mean \"simulation\""));
    // A material by its name (albedo sweeps without templated scene files).
    SceneDesc m = loadSceneFile(dir / "scene.toml", {{"material.wall.reflectance", "0.25"}});
    REQUIRE(m.materials.size() == 1);
    CHECK(m.materials[0].model.reflectance == 0.25);
    CHECK_THROWS_WITH(loadSceneFile(dir / "scene.toml", {{"material.wal.reflectance", "0.3"}}),
                      ContainsSubstring("no [[material]] is named \"wal\" (did you mean \"wall\"?)"));
    CHECK_THROWS_WITH(loadSceneFile(dir / "scene.toml", {{"material.wall.reflectance", "1.5"}}),
                      ContainsSubstring("--set material.wall.reflectance=1.5") && ContainsSubstring("[0, 1]"));
    CHECK_THROWS_WITH(loadSceneFile(dir / "scene.toml", {{"material.wall.albedo", "0.5"}}),
                      ContainsSubstring("albedo"));
    CHECK_THROWS_WITH(loadSceneFile(dir / "scene.toml", {{"material.wall.name", "x"}}),
                      ContainsSubstring("cannot be overridden"));
}

TEST_CASE("a mesh's scale may be one number, and scenes/example.toml loads as it says", "[scene]") {
    TempDir dir;
    writeFile(dir / "cube.obj", kCubeObj);
    // One number scales all three axes (it was reported as an unknown key before).
    CHECK(errorOf(dir, "path = \"cube.obj\"", "path = \"cube.obj\"\nscale = 2.0", true) == "(no error)");
    std::string text = kScene;
    text.replace(text.find("path = \"cube.obj\""), 17, "path = \"cube.obj\"\nscale = 2.0");
    writeFile(dir / "scene.toml", text);
    const SceneDesc s = loadSceneFile(dir / "scene.toml");
    REQUIRE(s.meshes.size() == 1);
    CHECK(s.meshes[0].scale == glm::dvec3(2.0, 2.0, 2.0));
    // The documented example, every key written out, loads with its mesh.
    SceneDesc example = loadSceneFile(std::filesystem::path(RSIM_SOURCE_DIR) / "scenes/example.toml");
    CHECK_NOTHROW(loadMeshes(example));
}

TEST_CASE("scene file errors are precise", "[scene][errors]") {
    TempDir dir;
    writeFile(dir / "cube.obj", kCubeObj);
    SECTION("unknown key with did-you-mean, and its line") {
        auto e = errorOf(dir, "samples = 4", "sample = 4");
        CHECK_THAT(e, ContainsSubstring("scene.toml:4") && ContainsSubstring("unknown key \"sample\"") &&
                          ContainsSubstring("did you mean \"samples\""));
    }
    SECTION("unknown table") {
        CHECK_THAT(errorOf(dir, "[light]", "[lights]"),
                   ContainsSubstring("\"lights\"") && ContainsSubstring("did you mean \"light\""));
    }
    SECTION("wrong type") {
        CHECK_THAT(errorOf(dir, "timesteps = 200", "timesteps = \"200\""),
                   ContainsSubstring("timesteps") && ContainsSubstring("expected an integer"));
        CHECK_THAT(errorOf(dir, "timesteps = 200", "timesteps = 200.5"),
                   ContainsSubstring("expected an integer"));
        CHECK_THAT(errorOf(dir, "position = [0.5, 0.5, 0.5]", "position = [0.5, 0.5]"),
                   ContainsSubstring("position") && ContainsSubstring("expected 3 numbers"));
    }
    SECTION("values out of range") {
        CHECK_THAT(errorOf(dir, "reflectance = 0.6", "reflectance = 1.5"),
                   ContainsSubstring("[[material]] #1 reflectance") && ContainsSubstring("[0, 1]"));
        CHECK_THAT(errorOf(dir, "dt_ns = 0.1", "dt_ns = 0.0"), ContainsSubstring("dt_ns"));
        CHECK_THAT(errorOf(dir, "dt_ns = 0.1", "dt_ns = -1.0"), ContainsSubstring("dt_ns"));
        CHECK_THAT(errorOf(dir, "timesteps = 200", "timesteps = 0"), ContainsSubstring("timesteps"));
        CHECK_THAT(errorOf(dir, "samples = 4", "samples = 0"), ContainsSubstring("samples"));
        CHECK_THAT(errorOf(dir, "samples = 4", "samples = 4\nnear_pair_factor = 0"),
                   ContainsSubstring("near_pair_factor"));
        CHECK_THAT(errorOf(dir, "samples = 4", "samples = 4\ntile_list_max = 300"),
                   ContainsSubstring("tile_list_max") && ContainsSubstring("256"));
        CHECK_THAT(errorOf(dir, "dt_ns = 0.1", "dt_ns = nan"), ContainsSubstring("finite"));
    }
    SECTION("bad choice, bad syntax, missing pieces") {
        CHECK_THAT(errorOf(dir, "[light]", "[light]\npulse = \"gausian\""),
                   ContainsSubstring("did you mean \"gaussian\""));
        CHECK_THAT(errorOf(dir, "samples = 4", "samples = 4\nk_estimator = \"solid_angle\""),
                   ContainsSubstring("k_estimator") && ContainsSubstring("did you mean \"solid-angle\""));
        CHECK_THAT(errorOf(dir, "timesteps = 200", "timesteps = = 200"),
                   ContainsSubstring("scene.toml:3") && ContainsSubstring("syntax"));
        CHECK_THAT(errorOf(dir, "path = \"cube.obj\"", "material = \"wall\""),
                   ContainsSubstring("needs a path"));
        CHECK_THAT(errorOf(dir, "path = \"cube.obj\"", "path = \"cube.obj\"\nmaterial = \"wal\""),
                   ContainsSubstring("did you mean \"wall\""));
        CHECK_THAT(errorOf(dir, "look_at = [1.0, 0.5, 0.5]", "look_at = [0.5, 0.5, 0.5]"),
                   ContainsSubstring("look_at"));
    }
    SECTION("missing scene file") {
        CHECK_THROWS_WITH(loadSceneFile(dir / "nope.toml"), ContainsSubstring("not found"));
    }
}

TEST_CASE("mesh file errors are precise", "[scene][errors]") {
    TempDir dir;
    SECTION("missing mesh file names the scene line and the path") {
        auto e = errorOf(dir, "", "", true);
        CHECK_THAT(e, ContainsSubstring("[[mesh]] #1") && ContainsSubstring("not found") &&
                          ContainsSubstring("cube.obj"));
    }
    SECTION("corrupt mesh file") {
        writeFile(dir / "cube.obj", "this is not a mesh\n\x01\x02\x03 garbage\n");
        auto e = errorOf(dir, "", "", true);
        CHECK_THAT(e, ContainsSubstring("cube.obj"));
        CHECK(e != "(no error)");
    }
    SECTION("corrupt binary STL") {
        std::string stl(80, 'x');
        stl += std::string("\x10\x00\x00\x00", 4); // claims 16 triangles, holds none
        writeFile(dir / "cube.stl", stl);
        auto e = errorOf(dir, "cube.obj", "cube.stl", true);
        CHECK_THAT(e, ContainsSubstring("cube.stl"));
        CHECK(e != "(no error)");
    }
    SECTION("empty mesh file") {
        writeFile(dir / "cube.obj", "");
        CHECK_THAT(errorOf(dir, "", "", true), ContainsSubstring("empty"));
    }
    SECTION("non-finite vertices") {
        std::string obj = kCubeObj;
        obj.replace(obj.find("v 1 1 1"), 7, "v 1 nan 1");
        writeFile(dir / "cube.obj", obj);
        CHECK_THAT(errorOf(dir, "", "", true),
                   ContainsSubstring("non-finite vertex") && ContainsSubstring("skip_nonfinite"));
        // Opting in drops them and counts them.
        writeFile(dir / "scene.toml", std::string(kScene) + "skip_nonfinite = true\n");
        LoadedGeometry g = loadMeshes(loadSceneFile(dir / "scene.toml"));
        CHECK(g.droppedNonFinite > 0);
        CHECK(g.v0.size() + g.droppedNonFinite == 12);
    }
    SECTION("no usable triangles") {
        writeFile(dir / "cube.obj", "v 0 0 0\nv 1 0 0\nv 2 0 0\nf 1 2 3\n");
        CHECK_THAT(errorOf(dir, "", "", true), ContainsSubstring("no usable triangles"));
    }
}

TEST_CASE("a light that reaches nothing or a blind sensor stop the run", "[scene][errors]") {
    TempDir dir;
    writeFile(dir / "cube.obj", kCubeObj);
    auto run = [&](const std::string& from, const std::string& to) { return runError(dir, from, to); };
    // Light outside the box: every inward-facing wall faces away from it.
    CHECK_THAT(run("position = [0.5, 0.5, 0.5]", "position = [5.0, 0.5, 0.5]"),
               ContainsSubstring("reaches no triangle"));
    CHECK_THAT(run("look_at = [1.0, 0.5, 0.5]",
                   "position = [3.0, 0.5, 0.5]\nlook_at = [4.0, 0.5, 0.5]"),
               ContainsSubstring("sees no triangle"));
    CHECK_FALSE(std::filesystem::exists(dir / "out"));
}

TEST_CASE("a time window too short for any echo stops the run with a plain message",
          "[scene][errors]") {
    TempDir dir;
    writeFile(dir / "cube.obj", kCubeObj);
    auto run = [&](const std::string& from, const std::string& to) { return runError(dir, from, to); };
    // Every triangle's centroid is 0.553 m from the light: 18.4 timesteps of 0.1 ns.
    for (const char* t : {"timesteps = 1", "timesteps = 10"}) {
        auto e = run("timesteps = 200", t);
        INFO(e);
        CHECK_THAT(e, ContainsSubstring("too short") && ContainsSubstring("after 1.8 ns") &&
                          ContainsSubstring("simulation.timesteps to at least 22") &&
                          ContainsSubstring("dt_ns"));
    }
    CHECK_THAT(run("dt_ns = 0.1", "dt_ns = 1e-4"),
               ContainsSubstring("too short") && ContainsSubstring("window ends at 0.02 ns"));
    // Light arrives inside the window, but every echo's peak is cut off at its end.
    auto cut = run("timesteps = 200", "timesteps = 20");
    CHECK_THAT(cut, ContainsSubstring("no triangle got a distance") &&
                        ContainsSubstring("cut off") && ContainsSubstring("timesteps"));
    CHECK_FALSE(std::filesystem::exists(dir / "out"));
    CHECK(run("timesteps = 200", "timesteps = 22") == "(no error)");
}

TEST_CASE("a batch none of whose poses gets a distance fails like a run of one pose, and writes nothing",
          "[scene][errors][batch]") {
    TempDir dir;
    writeFile(dir / "cube.obj", kCubeObj);
    // Two poses inside the box whose echoes all peak after a 2 ns window (as above, where one
    // pose fails with "no triangle got a distance").
    std::string text = kScene;
    text.replace(text.find("timesteps = 200"), 15, "timesteps = 20");
    text += "\n[[pose]]\nname = \"a\"\nposition = [0.5, 0.5, 0.5]\nlook_at = [1.0, 0.5, 0.5]\n"
            "[[pose]]\nname = \"b\"\nposition = [0.5, 0.5, 0.5]\nlook_at = [1.0, 0.52, 0.5]\n";
    writeFile(dir / "batch.toml", text);
    RunRequest req;
    req.sceneFile = dir / "batch.toml";
    req.backend.backend = "cpu";
    req.outputDir = dir / "batch-out";
    std::string error = "(no error)";
    try {
        runSimulation(req);
    } catch (const InputError& x) {
        error = x.what();
    }
    CHECK_THAT(error, ContainsSubstring("none of the 2 poses got a distance") && ContainsSubstring("cut off") &&
                          ContainsSubstring("simulation.timesteps"));
    CHECK_FALSE(std::filesystem::exists(dir / "batch-out"));
}

TEST_CASE("absurd time steps, pulses, up vectors and coordinates are rejected",
          "[scene][errors]") {
    TempDir dir;
    writeFile(dir / "cube.obj", kCubeObj);
    CHECK_THAT(errorOf(dir, "dt_ns = 0.1", "dt_ns = 1e-300"),
               ContainsSubstring("dt_ns") && ContainsSubstring("[1e-06, 1e+06]"));
    CHECK_THAT(errorOf(dir, "[light]", "[light]\npulse = \"gaussian\"\npulse_fwhm_ns = 1e5"),
               ContainsSubstring("pulse_fwhm_ns") && ContainsSubstring("longer than the time window") &&
                   ContainsSubstring("200 timesteps"));
    CHECK(errorOf(dir, "[light]", "[light]\npulse = \"gaussian\"\npulse_fwhm_ns = 1.0") ==
          "(no error)");
    CHECK_THAT(errorOf(dir, "resolution = [8, 6]", "resolution = [8, 6]\nup = [0.0, 0.0, 0.0]"),
               ContainsSubstring("up") && ContainsSubstring("must be a finite, non-zero vector"));
    CHECK(errorOf(dir, "resolution = [8, 6]", "resolution = [8, 6]\nup = [0.0, 0.0, 1e-7]") ==
          "(no error)");
    CHECK_THAT(errorOf(dir, "resolution = [8, 6]", "resolution = [8, 6]\nup = [1.0, 0.0, 0.0]"),
               ContainsSubstring("parallel"));
    CHECK_THAT(errorOf(dir, "path = \"cube.obj\"", "path = \"cube.obj\"\nscale = [1e31, 1.0, 1.0]"),
               ContainsSubstring("scale") && ContainsSubstring("[1e-09, 1e+09]"));
    // A vertex beyond +-1e18 m after the transform (here: in the file itself; in float its
    // squared distances would be inf).
    writeFile(dir / "far.obj", "v 1e25 0 0\nv 1e25 1 0\nv 1e25 0 1\nf 1 2 3\n");
    auto e = errorOf(dir, "path = \"cube.obj\"", "path = \"far.obj\"\nscale = [1e3, 1.0, 1.0]", true);
    CHECK_THAT(e, ContainsSubstring("far.obj") && ContainsSubstring("vertex") &&
                      ContainsSubstring("face") && ContainsSubstring("scale"));
}

TEST_CASE("errors in --set values name the override, not a scene-file line", "[scene][errors]") {
    TempDir dir;
    writeFile(dir / "cube.obj", kCubeObj);
    writeFile(dir / "scene.toml", kScene);
    auto errorWith = [&](std::vector<SceneOverride> overrides) {
        try {
            loadSceneFile(dir / "scene.toml", overrides);
        } catch (const InputError& e) {
            return std::string(e.what());
        }
        return std::string("(no error)");
    };
    auto e = errorWith({{"simulation.samples", "0"}});
    CHECK_THAT(e, ContainsSubstring("--set simulation.samples=0: [simulation] samples: expected"));
    CHECK_THAT(e, !ContainsSubstring("scene.toml"));
    e = errorWith({{"sensor.fov", "[1.0, 2.0]"}});
    CHECK_THAT(e, ContainsSubstring("--set sensor.fov=[1.0, 2.0]: [sensor]: unknown key \"fov\""));
    CHECK_THAT(e, !ContainsSubstring("scene.toml"));
    // Options such as --dt-ns pass the option as written.
    e = errorWith({{"simulation.dt_ns", "1e-300", "--dt-ns 1e-300"}});
    CHECK_THAT(e, ContainsSubstring("--dt-ns 1e-300: [simulation] dt_ns"));
    // A bad value in the file still names its line.
    CHECK_THAT(errorOf(dir, "samples = 4", "samples = 0"), ContainsSubstring("scene.toml:4"));
}

TEST_CASE("did-you-mean catches transposed letters", "[scene][errors]") {
    CHECK(didYouMean("scael", {"path", "material", "translate", "rotate_deg", "scale"}) == "scale");
    CHECK(didYouMean("smaples", {"samples", "seed"}) == "samples");
    CHECK(didYouMean("xyz", {"samples", "seed"}).empty());
    TempDir dir;
    writeFile(dir / "cube.obj", kCubeObj);
    CHECK_THAT(errorOf(dir, "path = \"cube.obj\"", "path = \"cube.obj\"\nscael = 2.0"),
               ContainsSubstring("did you mean \"scale\""));
}
