// SPDX-License-Identifier: MIT
// Reproductions of issue 19's defects: inputs that crashed, hung or silently misled rsim. Each
// runs the CLI under `timeout`, so that a hang fails the test in seconds, and checks the exit
// code (2: input error), the message and that nothing is left on disk.
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <catch2/catch_test_macros.hpp>

#include <sys/stat.h>

#include "support/run_command.h"
#include "support/test_scenes.h"

using namespace rsim::test;
namespace fs = std::filesystem;

namespace {

// A scene of one mesh file `mesh` beside it, with the settings that keep a run short.
void writeScene(const TempDir& dir, const std::string& mesh, const std::string& sensorExtra = "",
                const std::string& lightExtra = "", const std::string& lightAt = "[0, 0, 1]") {
    writeFile(dir / "scene.toml", "[simulation]\ntimesteps = 200\nsamples = 2\ndirect_samples = 2\n"
                                  "[light]\nposition = " + lightAt + "\n" + lightExtra +
                                      "[sensor]\nresolution = [16, 12]\n" + sensorExtra +
                                      "[[material]]\nname = \"default\"\nreflectance = 0.5\n"
                                      "[[mesh]]\npath = \"" + mesh + "\"\n");
}

// `rsim run` of dir/scene.toml under a 20 s timeout (a hang exits 124).
CommandResult runScene(const TempDir& dir, const std::string& extra = "") {
    return runCommand("timeout 20 " + std::string(RSIM_BINARY) + " run '" + (dir / "scene.toml").string() +
                      "' --backend cpu --no-progress --no-k-cache --output '" + (dir / "out").string() + "' " +
                      extra);
}

// Runs dir/scene.toml and checks that rsim refuses it: exit code 2, a message that holds
// `expected`, and nothing written.
void checkRefused(const TempDir& dir, const std::string& expected, const std::string& extra = "") {
    const CommandResult r = runScene(dir, extra);
    CAPTURE(r.output);
    CHECK(r.exitCode == 2);
    CHECK(r.output.find(expected) != std::string::npos);
    CHECK_FALSE(fs::exists(dir / "out"));
}

// A closed box's 12 triangles as a binary little-endian PLY.
std::string binaryPly() {
    const float v[8][3] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}, {0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1}};
    const int f[12][3] = {{0, 1, 2}, {0, 2, 3}, {4, 6, 5}, {4, 7, 6}, {0, 4, 5}, {0, 5, 1},
                          {1, 5, 6}, {1, 6, 2}, {2, 6, 7}, {2, 7, 3}, {3, 7, 4}, {3, 4, 0}};
    std::string s = "ply\nformat binary_little_endian 1.0\nelement vertex 8\nproperty float x\nproperty float y\n"
                    "property float z\nelement face 12\nproperty list uchar int vertex_indices\nend_header\n";
    s.append(reinterpret_cast<const char*>(v), sizeof v);
    for (const auto& face : f) {
        s.push_back(char(3));
        s.append(reinterpret_cast<const char*>(face), sizeof face);
    }
    return s;
}

std::string asciiStl(int facets) {
    std::string s = "solid t\n";
    for (int k = 0; k < facets; ++k) {
        const std::string x = std::to_string(k);
        s += "facet normal 0 0 1\nouter loop\nvertex " + x + " 0 0\nvertex " + x + ".5 0 0\nvertex " + x +
             " 1 0\nendloop\nendfacet\n";
    }
    return s + "endsolid t\n";
}

} // namespace

TEST_CASE("bad mesh files are input errors, never crashes or hangs", "[bad-input][scene]") {
    TempDir dir;
    const std::string whole = binaryPly();
    const std::size_t header = whole.find("end_header\n") + 11;
    SECTION("a binary PLY cut in half (assimp crashed in its post-processing)") {
        // The vertices are there, the faces point past them: assimp's validation step says so.
        writeFile(dir / "m.ply", whole.substr(0, header + (whole.size() - header) / 2));
        writeScene(dir, "m.ply");
        const CommandResult r = runScene(dir);
        CAPTURE(r.output);
        CHECK(r.exitCode == 2);
        CHECK(r.output.find("m.ply") != std::string::npos);
        CHECK(r.output.find("out of range") != std::string::npos);
        CHECK_FALSE(fs::exists(dir / "out"));
    }
    SECTION("a binary PLY cut short of its header's elements") {
        writeFile(dir / "m.ply", whole.substr(0, header + (whole.size() - header) / 4));
        writeScene(dir, "m.ply");
        checkRefused(dir, "is truncated: its header declares 8 vertex, 12 face");
    }
    SECTION("a PLY cut inside its header (assimp spun forever)") {
        writeFile(dir / "m.ply", "ply\nformat binary_little_endian 1.0\nelement vertex 54\nproper");
        writeScene(dir, "m.ply");
        checkRefused(dir, "ends inside its header");
    }
    SECTION("a PLY whose end_header runs on into the body (found by fuzzing: assimp spun forever)") {
        writeFile(dir / "m.ply", "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\n"
                                 "property float z\nend_header\x06OFF\n0 0 0\n1 0 0\n0 1 0\n");
        writeScene(dir, "m.ply");
        checkRefused(dir, "end_header that is not a line of its own");
    }
    SECTION("the whole binary PLY still loads") {
        writeFile(dir / "m.ply", binaryPly());
        writeScene(dir, "m.ply", "position = [0.5, 0.5, 0.5]\nlook_at = [0.5, 0.5, 0]\nup = [0, 1, 0]\n", "",
                   "[0.4, 0.5, 0.5]");
        const CommandResult r = runScene(dir, "--no-images");
        CAPTURE(r.output);
        CHECK(r.exitCode == 0);
    }
    SECTION("an ASCII STL without endsolid (a third of it loaded silently)") {
        const std::string stl = asciiStl(30);
        writeFile(dir / "m.stl", stl.substr(0, stl.size() / 3));
        writeScene(dir, "m.stl");
        checkRefused(dir, "does not end with endsolid");
    }
    SECTION("an OFF header with absurd counts (found by fuzzing: assimp took 16 GB and 17 s)") {
        writeFile(dir / "m.off", "OFF\n353535235358 6 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n");
        writeScene(dir, "m.off");
        const CommandResult r = runScene(dir);
        CAPTURE(r.output);
        CHECK(r.exitCode == 2);
        CHECK(r.output.find("OFF file") != std::string::npos);
        CHECK(r.output.find("declares 3.53535e+11 vertices") != std::string::npos);
        CHECK_FALSE(fs::exists(dir / "out"));
    }
    SECTION("a FIFO as the mesh (blocked forever)") {
        REQUIRE(::mkfifo((dir / "m.obj").c_str(), 0600) == 0);
        writeScene(dir, "m.obj");
        checkRefused(dir, "not a regular file");
    }
}

TEST_CASE("vectors of any finite size give directions; others are errors naming their key",
          "[bad-input][scene]") {
    TempDir dir;
    // A 2 x 2 m floor (front side up), the light 1 m above it.
    writeFile(dir / "m.obj", "v -1 -1 0\nv 1 -1 0\nv 1 1 0\nv -1 1 0\nf 1 2 3\nf 1 3 4\n");
    SECTION("sensor.up = [0, 0, 1e-200] (Embree aborted; the GPU drew NaN)") {
        writeScene(dir, "m.obj", "position = [0.1, 0, 1]\nlook_at = [0, 0, 0]\nup = [0, 1e-200, 0]\n");
        const CommandResult r = runScene(dir, "--no-images");
        CAPTURE(r.output);
        CHECK(r.exitCode == 0);
    }
    SECTION("light.direction = [1e200, 0, 0] with a cone (stored as zero: every triangle lit)") {
        writeScene(dir, "m.obj", "position = [0.1, 0, 1]\nlook_at = [0, 0, 0]\nup = [0, 1, 0]\n",
                   "direction = [0, 0, -1e200]\nhalf_angle_deg = 20\n");
        const CommandResult r = runScene(dir, "--no-images");
        CAPTURE(r.output);
        REQUIRE(r.exitCode == 0);
        // The same light with a unit direction gives the same results.
        const std::string big = readFile(dir / "out" / "triangles.csv");
        writeScene(dir, "m.obj", "position = [0.1, 0, 1]\nlook_at = [0, 0, 0]\nup = [0, 1, 0]\n",
                   "direction = [0, 0, -1]\nhalf_angle_deg = 20\n");
        REQUIRE(runScene(dir, "--no-images").exitCode == 0);
        CHECK(readFile(dir / "out" / "triangles.csv") == big);
    }
    SECTION("look_at = [0, 0, -1e200] looks straight down (the error blamed up)") {
        writeScene(dir, "m.obj", "position = [0.1, 0, 1]\nlook_at = [0, 0, -1e200]\nup = [0, 1, 0]\n");
        const CommandResult r = runScene(dir, "--no-images");
        CAPTURE(r.output);
        CHECK(r.exitCode == 0);
    }
    SECTION("light.direction = [0, 0, 0] names its key") {
        writeScene(dir, "m.obj", "", "direction = [0, 0, 0]\n");
        checkRefused(dir, "direction");
    }
}

TEST_CASE("rsim generate never replaces files it did not write, unless --force", "[bad-input][generate]") {
    TempDir dir;
    writeFile(dir / "scene.toml", "# my own scene\n");
    const CommandResult r = runRsim("generate tiny-room --output '" + dir.path().string() + "'");
    CAPTURE(r.output);
    CHECK(r.exitCode == 2);
    CHECK(r.output.find("refusing to overwrite") != std::string::npos);
    CHECK(readFile(dir / "scene.toml") == "# my own scene\n");
    CHECK_FALSE(fs::exists(dir / "room.obj"));
    // Its own files it replaces; the user's with --force.
    CHECK(runRsim("generate tiny-room --output '" + dir.path().string() + "' --force").exitCode == 0);
    CHECK(runRsim("generate tiny-room --output '" + dir.path().string() + "'").exitCode == 0);
}

TEST_CASE("an unwritable output is an error before any work, and stale partial results are removed",
          "[bad-input][output]") {
    TempDir dir;
    writeFile(dir / "m.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n");
    writeScene(dir, "m.obj", "position = [0.3, 0.2, 0.5]\nlook_at = [0.3, 0.2, 0]\nup = [0, 1, 0]\n");
    SECTION("/proc") {
        const CommandResult r = runCommand("timeout 20 " + std::string(RSIM_BINARY) + " run '" +
                                           (dir / "scene.toml").string() + "' --backend cpu --output /proc/rsim-out");
        CAPTURE(r.output);
        CHECK(r.exitCode == 2);
        CHECK(r.output.find("cannot be written") != std::string::npos);
        // Before the simulation: no phase ran.
        CHECK(r.output.find("visibility") == std::string::npos);
    }
    // Which leftovers beside the output go and which stay: tests/test_users_files.cpp.
}

TEST_CASE("rsim compare fails on data in one directory only and on an unreadable HDF5 file; other files are notes",
          "[bad-input][compare]") {
    TempDir dir;
    writeFile(dir / "m.obj", "v -1 -1 0\nv 1 -1 0\nv 1 1 0\nv -1 1 0\nf 1 2 3\nf 1 3 4\n");
    writeScene(dir, "m.obj", "position = [0.1, 0, 1]\nlook_at = [0, 0, 0]\nup = [0, 1, 0]\n");
    REQUIRE(runScene(dir).exitCode == 0);
    const std::string a = (dir / "out").string(), b = (dir / "copy").string();
    fs::copy(dir / "out", dir / "copy", fs::copy_options::recursive);
    auto compare = [&](const std::string& extra = "") {
        return runRsim("compare '" + a + "' '" + b + "' " + extra);
    };
    REQUIRE(compare().exitCode == 0);
    // A file compare does not read: a note under the table, not in it, and no failure.
    fs::remove(dir / "copy" / "images.h5");
    const CommandResult note = compare();
    CAPTURE(note.output);
    CHECK(note.exitCode == 0);
    CHECK(note.output.find("note: only in A, not compared: images.h5") != std::string::npos);
    // Data both runs were asked to write (depth.pfm: both had [output] images): a failure.
    fs::rename(dir / "copy" / "depth.pfm", dir / "depth.pfm");
    const CommandResult missing = compare();
    CAPTURE(missing.output);
    CHECK(missing.exitCode == 3);
    CHECK(missing.output.find("depth.pfm (only in A): data compare reads, which both runs were asked to write") != std::string::npos);
    CHECK(compare("--exclude depth.pfm").exitCode == 0);
    fs::rename(dir / "depth.pfm", dir / "copy" / "depth.pfm");
    // A timeseries.h5 cut short was never read: now it is checked.
    const std::string whole = readFile(dir / "out" / "timeseries.h5");
    writeFile(dir / "copy" / "timeseries.h5", whole.substr(0, whole.size() / 2));
    const CommandResult cut = compare();
    CAPTURE(cut.output);
    CHECK(cut.exitCode == 3);
    CHECK(cut.output.find("timeseries.h5 in B") != std::string::npos);
}

TEST_CASE("duplicated faces are dropped with a warning; a reversed copy is kept", "[bad-input][scene]") {
    TempDir dir;
    // The floor's two triangles, the first again (listed from another vertex, and moved by far
    // less than the grid), and the second reversed (a two-sided floor).
    writeFile(dir / "m.obj", "v -1 -1 0\nv 1 -1 0\nv 1 1 0\nv -1 1 0\nv 1.0000000001 -1 0\n"
                             "f 1 2 3\nf 1 3 4\nf 3 1 5\nf 1 4 3\n");
    writeScene(dir, "m.obj", "position = [0.1, 0, 1]\nlook_at = [0, 0, 0]\nup = [0, 1, 0]\n");
    const CommandResult r = runScene(dir, "--no-images");
    CAPTURE(r.output);
    REQUIRE(r.exitCode == 0);
    CHECK(r.output.find("dropped 1 duplicated triangle") != std::string::npos);
    const std::string summary = readFile(dir / "out" / "summary.json");
    CHECK(summary.find("\"triangles_dropped_duplicate\": 1") != std::string::npos);
    CHECK(summary.find("\"triangles\": 3") != std::string::npos);
}

TEST_CASE("a run the host memory cannot hold is refused before it starts, with the numbers", "[bad-input][memory]") {
    TempDir dir;
    // A floor of 100 x 100 quads (20,000 triangles): 10 million timesteps of its histories
    // would take 3 TB.
    std::string obj;
    for (int y = 0; y <= 100; ++y)
        for (int x = 0; x <= 100; ++x) obj += "v " + std::to_string(x * 0.02 - 1) + " " + std::to_string(y * 0.02 - 1) + " 0\n";
    for (int y = 0; y < 100; ++y)
        for (int x = 0; x < 100; ++x) {
            const int a = y * 101 + x + 1, b = a + 1, c = a + 102, d = a + 101;
            obj += "f " + std::to_string(a) + " " + std::to_string(b) + " " + std::to_string(c) + "\nf " +
                   std::to_string(a) + " " + std::to_string(c) + " " + std::to_string(d) + "\n";
        }
    writeFile(dir / "m.obj", obj);
    writeScene(dir, "m.obj", "position = [0.1, 0, 1]\nlook_at = [0, 0, 0]\nup = [0, 1, 0]\n");
    const CommandResult r = runScene(dir, "--timesteps 10000000");
    CAPTURE(r.output);
    CHECK(r.exitCode == 2);
    CHECK(r.output.find("GiB of host memory") != std::string::npos);
    CHECK(r.output.find("(10000000 timesteps)") != std::string::npos);
    CHECK(r.output.find("visibility:") == std::string::npos); // no phase ran
    CHECK_FALSE(fs::exists(dir / "out"));
}

TEST_CASE("options that would not apply are errors, not silently ignored", "[bad-input][cli]") {
    TempDir dir;
    writeFile(dir / "m.obj", "v -1 -1 0\nv 1 -1 0\nv 1 1 0\nv -1 1 0\nf 1 2 3\nf 1 3 4\n");
    writeScene(dir, "m.obj", "position = [0.1, 0, 1]\nlook_at = [0, 0, 0]\nup = [0, 1, 0]\n");
    for (const std::string option : {"--visibility pipeline", "--stream always", "--max-device-mb 100", "--validation"}) {
        const CommandResult r = runScene(dir, option); // runScene passes --backend cpu
        CAPTURE(option, r.output);
        CHECK(r.exitCode == 2);
        CHECK(r.output.find("only the Vulkan backend uses it") != std::string::npos);
    }
    const CommandResult errors = runScene(dir, "--kij lut8-log --kij-errors");
    CAPTURE(errors.output);
    CHECK(errors.exitCode == 2);
    CHECK(errors.output.find("needs --kij fp32") != std::string::npos);
    const CommandResult split = runScene(dir, "--mpi-split rows"); // one process, not under mpirun
    CAPTURE(split.output);
    CHECK(split.exitCode == 2);
    CHECK(split.output.find("--mpi-split: this is one process") != std::string::npos);
    const CommandResult quiet = runScene(dir, "-q --log-level debug");
    CAPTURE(quiet.output);
    CHECK(quiet.exitCode == 2);
    CHECK(quiet.output.find("choose one") != std::string::npos);
    const CommandResult newline = runScene(dir, "--set \"$(printf 'simulation.samples=4\\nseed=3')\""); // /bin/sh: printf makes the newline
    CAPTURE(newline.output);
    CHECK(newline.exitCode == 2);
    CHECK(newline.output.find("must be on one line") != std::string::npos);
    CHECK_FALSE(fs::exists(dir / "out"));
}

TEST_CASE("a mesh file that makes assimp abort is an input error, not a crash", "[bad-input][scene]") {
    // A binary PLY found by fuzzing (fuzz/corpus/mesh_file; the first byte picks the format):
    // assimp 5.2's triangulation asserts on it and aborts the process that reads it.
    std::ifstream in(fs::path(RSIM_SOURCE_DIR) / "fuzz/corpus/mesh_file/finding-ply-assimp-abort-triangulate",
                     std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    REQUIRE(bytes.size() > 1);
    TempDir dir;
    writeFile(dir / "m.ply", bytes.substr(1));
    writeScene(dir, "m.ply");
    const CommandResult r = runScene(dir);
    CAPTURE(r.output);
    CHECK(r.exitCode == 2);
    CHECK(r.output.find("m.ply") != std::string::npos);
    CHECK(r.output.find("assimp, the mesh reader, stopped with signal 6 (SIGABRT)") != std::string::npos);
    CHECK_FALSE(fs::exists(dir / "out"));
}

TEST_CASE("values fp32 cannot carry are errors that name their own key", "[bad-input][scene]") {
    TempDir dir;
    writeFile(dir / "m.obj", "v -1 -1 0\nv 1 -1 0\nv 1 1 0\nv -1 1 0\nf 1 2 3\nf 1 3 4\n");
    const std::string aim = "position = [0.1, 0, 1]\nlook_at = [0, 0, 0]\nup = [0, 1, 0]\n";
    struct Case {
        std::string what, sensor, light, lightAt, mesh, expected;
    };
    const Case cases[] = {
        {"light position 1e39 (blamed the cone)", aim, "", "[1e39, 0, 1]", "", "position: coordinates must be within"},
        {"power 1e-300 W (blamed the cone)", aim, "power_w = 1e-300\n", "[0, 0, 1]", "", "power_w: expected a number in [1e-15"},
        {"modulation 1e300 MHz (asked for more timesteps)", aim + "mode = \"amcw\"\nmodulation_mhz = [1e300]\n", "",
         "[0, 0, 1]", "", "modulation_mhz: frequencies must be > 0 MHz and at most the time grid's Nyquist"},
        {"scale 1e-101 (called zero)", aim, "", "[0, 0, 1]", "scale = 1e-101\n", "scale: each factor's magnitude"},
        {"mesh at 1e17 m (asked for 6.8e18 timesteps)", aim, "", "[0, 0, 1]", "translate = [0, 0, -1e17]\n",
         "no light can return within any time window"},
    };
    for (const Case& c : cases) {
        writeScene(dir, "m.obj", c.sensor, c.light, c.lightAt);
        std::ofstream(dir / "scene.toml", std::ios::app) << c.mesh;
        const CommandResult r = runScene(dir);
        CAPTURE(c.what, r.output);
        CHECK(r.exitCode == 2);
        CHECK(r.output.find(c.expected) != std::string::npos);
        CHECK_FALSE(fs::exists(dir / "out"));
    }
    // Every material at reflectance 0 (asked for more timesteps).
    writeScene(dir, "m.obj", aim);
    std::string text;
    {
        std::ifstream in(dir / "scene.toml");
        text.assign((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    }
    text.replace(text.find("reflectance = 0.5"), 17, "reflectance = 0.0");
    writeFile(dir / "scene.toml", text);
    const CommandResult black = runScene(dir);
    CAPTURE(black.output);
    CHECK(black.exitCode == 2);
    CHECK(black.output.find("every triangle's material has reflectance 0 (default)") != std::string::npos);
}

TEST_CASE("SIGINT or SIGTERM stops a run, removes what it had begun and leaves no partial directory",
          "[bad-input][signals]") {
    TempDir dir;
    const std::string scene = std::string(RSIM_SOURCE_DIR) + "/scenes/small-room/scene.toml";
    for (const auto& [signal, code] : {std::pair{"INT", 130}, std::pair{"TERM", 143}}) {
        // A run of several seconds, stopped after one.
        const CommandResult r = runCommand("timeout --preserve-status -s " + std::string(signal) + " 1 " +
                                           std::string(RSIM_BINARY) + " run '" + scene +
                                           "' --backend cpu --no-progress --no-k-cache --samples 64 --output '" +
                                           (dir / "out").string() + "'");
        CAPTURE(signal, r.output);
        CHECK(r.exitCode == code);
        CHECK(r.output.find("stopped by signal") != std::string::npos);
        CHECK(fs::is_empty(dir.path()));
    }
    // The same stop twice in quick succession (timeout and shells signal the process and its
    // group; on a 16-core machine the second copy came after the first was handled, and killed
    // rsim before it could clean up): still one orderly stop. 0.1 s apart, so that the first is
    // surely handled before the second comes.
    const CommandResult twice = runCommand("sh -c '" + std::string(RSIM_BINARY) + " run \"" + scene +
                                           "\" --backend cpu --no-progress --no-k-cache --samples 64 --output \"" +
                                           (dir / "out").string() +
                                           "\" & pid=$!; sleep 1; kill -INT $pid; sleep 0.1; kill -INT $pid; wait $pid'");
    CAPTURE(twice.output);
    CHECK(twice.exitCode == 130);
    CHECK(twice.output.find("stopped by signal") != std::string::npos);
    CHECK(fs::is_empty(dir.path()));
}

TEST_CASE("out-of-range numeric options give short messages, and NaN is refused", "[bad-input][cli]") {
    TempDir dir;
    writeFile(dir / "m.obj", "v -1 -1 0\nv 1 -1 0\nv 1 1 0\nv -1 1 0\nf 1 2 3\nf 1 3 4\n");
    writeScene(dir, "m.obj", "position = [0.1, 0, 1]\nlook_at = [0, 0, 0]\nup = [0, 1, 0]\n");
    // CLI11's own check printed the range up to the largest double: 309 digits.
    const CommandResult edge = runScene(dir, "--max-edge-m -1");
    CAPTURE(edge.output);
    CHECK(edge.exitCode == 2);
    CHECK(edge.output.find("--max-edge-m: expected a finite number >= 0, got -1") != std::string::npos);
    CHECK(edge.output.size() < 300);
    for (const std::string option : {"--chunk-mb nan", "--max-host-mb inf"}) {
        const CommandResult r = runScene(dir, option);
        CAPTURE(option, r.output);
        CHECK(r.exitCode == 2);
        CHECK(r.output.find("expected a finite number") != std::string::npos);
    }
    CHECK_FALSE(fs::exists(dir / "out"));
}
