// SPDX-License-Identifier: MIT
// Input that used to fail late, silently or with an unclear message (issue 57, items 8, 10, 11,
// 13-15): each now fails before any work with a message naming what is wrong, or works.
#include <string>

#include <catch2/catch_test_macros.hpp>

#include "support/run_command.h"
#include "support/test_scenes.h"

using namespace rsim::test;
namespace fs = std::filesystem;

namespace {

const std::string kSource = RSIM_SOURCE_DIR;
const std::string kTinyRoom = kSource + "/scenes/tiny-room/scene.toml";
std::string q(const fs::path& p) { return "'" + p.string() + "'"; }

// The tiny room, short; `args` add the options under test (no --samples: some tests set it).
CommandResult runShort(const std::string& args) {
    return runRsim("run " + q(kTinyRoom) + " --backend cpu --timesteps 200 --no-progress --no-k-cache " + args);
}
CommandResult run(const std::string& args) { return runShort("--samples 2 " + args); }

// Refused before any phase ran: exit code 2, the message, no "visibility" line.
void checkRefused(const CommandResult& r, const std::string& expected) {
    CAPTURE(r.output);
    CHECK(r.exitCode == 2);
    CHECK(r.output.find(expected) != std::string::npos);
    CHECK(r.output.find("visibility:") == std::string::npos);
}

} // namespace

TEST_CASE("command-line options that would do nothing are errors", "[cli][bad-input]") {
    TempDir dir;
    const std::string out = "-o " + q(dir / "out");
    checkRefused(run(out + " --kij-errors"), "tuning.kij_errors measures every format against fp32 K, so it needs --kij fp32");
    checkRefused(run(out + " --set tuning.kij_errors=true"), "so it needs --kij fp32");
    checkRefused(runShort(out + " --direct-only --kij fp16"), "--kij: sets how K is computed or kept, and --direct-only");
    checkRefused(runShort(out + " --direct-only --write-kij"), "--direct-only computes no K");
    checkRefused(runShort(out + " --direct-only --samples 4"), "--samples: sets how K is computed");
    checkRefused(run(out + " --pose-group 4"), "(--pose-group): sets how a batch of poses runs, and this run has one pose");
    checkRefused(run(out + " --set tuning.writers=2"), "(--writers): sets how a batch of poses runs");
    checkRefused(run("-o ''"), "--output \"\": an empty name");
    checkRefused(run(out + " --k-cache ''"), "--k-cache \"\": an empty name");
    const CommandResult twice = runShort(out + " --samples 8 --set simulation.samples=16");
    checkRefused(twice, "both set simulation.samples; give it once");
    CHECK(twice.output.find("--samples 8") != std::string::npos);
    checkRefused(run(out + " --set simulation.seed=1 --set simulation.seed=2"), "both set simulation.seed");
    CHECK_FALSE(fs::exists(dir / "out"));
    // With a batch they do what they say.
    writeFile(dir / "poses.csv", "name,x,y,z,look_x,look_y,look_z\na,1,1.5,1.5,4,1.5,1\n");
    CHECK(run(out + " --no-images --no-timeseries --pose-group 1 --writers 1 --poses " + q(dir / "poses.csv")).exitCode == 0);
}

TEST_CASE("poses files as spreadsheets write them read; one cut short does not", "[poses][bad-input]") {
    TempDir dir;
    const fs::path out = dir / "out";
    auto batch = [&](const std::string& csv) {
        writeFile(dir / "poses.csv", csv);
        return run("--no-images --no-timeseries --poses " + q(dir / "poses.csv") + " -o " + q(out));
    };
    // A UTF-8 byte-order mark, CRLF, '+' signs and quoted fields.
    const CommandResult excel = batch("\xEF\xBB\xBFname,x,y,z,look_x,look_y,look_z\r\n\"a\",\"+1\",1.5,+1.5,4,1.5,1\r\n");
    CAPTURE(excel.output);
    CHECK(excel.exitCode == 0);
    CHECK(fs::exists(out / "a" / "summary.json"));
    // The last row without its line end may have been cut inside a number: refused, naming it.
    checkRefused(batch("name,x,y,z,look_x,look_y,look_z\na,1,1.5,1.5,4,1.5,1.2"), "poses.csv:2: the last line has no line end");
    checkRefused(batch("name,x,y,z,look_x,look_y,look_z\n\"a,1,1.5,1.5,4,1.5,1\n"), "a quoted field does not end");
    // A comment is skipped whole, a quote in it included (`# a 17" screen`).
    const CommandResult comment = batch("# first \"set\nname,x,y,z,look_x,look_y,look_z\n# a 17\" screen\n"
                                        "a,1,1.5,1.5,4,1.5,1\n# second\" set\nb,1,1.2,1.5,4,1.5,1\n");
    CAPTURE(comment.output);
    CHECK(comment.exitCode == 0);
    CHECK(fs::exists(out / "a" / "summary.json"));
    CHECK(fs::exists(out / "b" / "summary.json"));
    // A name that would make a hidden folder (or meet rsim's own lock file).
    checkRefused(batch("name,x,y,z,look_x,look_y,look_z\n.rsim-writing,1,1.5,1.5,4,1.5,1\n"), "starts with '.'");
}

TEST_CASE("a scene read from a pipe is read, its meshes relative to the working directory", "[scene]") {
    TempDir dir;
    // bash's <(...): a pipe, /dev/fd/N.
    const CommandResult viaBash = runCommand("bash -c \"cd " + q(fs::path(kTinyRoom).parent_path()) + " && " +
                                             std::string(RSIM_BINARY) +
                                             " run <(cat scene.toml) --backend cpu --timesteps 200 --samples 2 -q "
                                             "--no-k-cache -o " + q(dir / "out") + "\"");
    CAPTURE(viaBash.output);
    CHECK(viaBash.exitCode == 0);
    CHECK(viaBash.output.find("TOML syntax error") == std::string::npos);
    CHECK(fs::exists(dir / "out" / "summary.json"));
}

TEST_CASE("a glTF face with an out-of-range index is an error, as in OBJ and PLY", "[scene][bad-input]") {
    TempDir dir;
    // Four vertices; the second triangle names vertex 7.
    const std::string gltf =
        R"({"asset":{"version":"2.0"},"scenes":[{"nodes":[0]}],"scene":0,"nodes":[{"mesh":0}],)"
        R"("meshes":[{"primitives":[{"attributes":{"POSITION":0},"indices":1}]}],)"
        R"("buffers":[{"uri":"data:application/octet-stream;base64,AAAAAAAAAAAAAAAAAACAPwAAAAAAAAAAAAAAAAAAgD8AAAAAAACAPwAAgD8AAAAAAAABAAIAAQADAAcA","byteLength":60}],)"
        R"("bufferViews":[{"buffer":0,"byteOffset":0,"byteLength":48},{"buffer":0,"byteOffset":48,"byteLength":12}],)"
        R"("accessors":[{"bufferView":0,"componentType":5126,"count":4,"type":"VEC3","min":[0,0,0],"max":[1,1,0]},)"
        R"({"bufferView":1,"componentType":5123,"count":6,"type":"SCALAR"}]})";
    writeFile(dir / "m.gltf", gltf);
    writeFile(dir / "scene.toml", "[simulation]\ntimesteps = 200\nsamples = 2\n[light]\nposition = [0.3, 0.3, 1]\n"
                                  "[sensor]\nposition = [0.3, 0.3, 1]\nlook_at = [0.3, 0.3, 0]\nup = [0, 1, 0]\n"
                                  "resolution = [16, 12]\n[[material]]\nname = \"default\"\nreflectance = 0.5\n"
                                  "[[mesh]]\npath = \"m.gltf\"\n");
    const CommandResult r = runRsim("run " + q(dir / "scene.toml") + " --backend cpu --no-k-cache -o " + q(dir / "out"));
    checkRefused(r, "corrupt mesh file");
    CHECK(r.output.find("out-of-range indices") != std::string::npos);
}

TEST_CASE("the memory check counts the transient and ulimit -v before any work", "[bad-input][memory]") {
#if defined(__SANITIZE_ADDRESS__)
    SKIP("AddressSanitizer reserves terabytes of address space for its shadow memory: no ulimit -v");
#endif
    TempDir dir;
    // A transient of every pixel and 20,000 bins: 1.5 GiB of host memory, under a 1 GiB limit.
    const CommandResult r = runCommand(
        "sh -c \"ulimit -v 1048576; exec " + std::string(RSIM_BINARY) + " run " + q(kTinyRoom) +
        " --backend cpu --no-k-cache --no-progress --direct-only --timesteps 20000 -o " + q(dir / "out") +
        " --set output.transient=true --set output.transient_bins=20000\"");
    checkRefused(r, "a transient of 160 x 120 x 20000 bins");
    CHECK(r.output.find("ulimit -v") != std::string::npos);
    CHECK(r.output.find("out of memory") == std::string::npos);
}
