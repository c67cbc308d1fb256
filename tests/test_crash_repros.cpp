// SPDX-License-Identifier: MIT
// Reproductions of the crashes of issue 57, each in a child process: a disk that fills while the
// results are written, and a TOML key nested deep enough to overflow the parser's stack.
#include <string>

#include <catch2/catch_test_macros.hpp>

#include "support/run_command.h"
#include "support/test_scenes.h"
#include "scene/toml_text.h"
#include "util/error.h"

using namespace rsim::test;
namespace fs = std::filesystem;

namespace {
const std::string kTinyRoom = std::string(RSIM_SOURCE_DIR) + "/scenes/tiny-room/scene.toml";
std::string q(const fs::path& p) { return "'" + p.string() + "'"; }
} // namespace

TEST_CASE("a disk that fills while results are written gives one error, no crash, and nothing left behind",
          "[crash][output]") {
    // A file-size limit (ulimit -f, SIGXFSZ ignored) fails each write past it with EFBIG, as a
    // full disk fails it with ENOSPC, at whichever file and point the limit falls. HDF5 used to
    // crash at exit closing the file whose writing failed (SIGSEGV, rc 139).
    TempDir dir;
    for (const int blocks : {60, 400, 1200, 2400}) {
        CAPTURE(blocks);
        const CommandResult r = runCommand("sh -c \"trap '' XFSZ; ulimit -f " + std::to_string(blocks) + "; exec " +
                                           std::string(RSIM_BINARY) + " run " + q(kTinyRoom) +
                                           " --backend cpu --timesteps 1000 --samples 2 --no-progress --no-k-cache -o " +
                                           q(dir / "out") + "\"");
        CAPTURE(r.output);
        CHECK(r.exitCode == 1);
        CHECK(r.output.find("File too large") != std::string::npos);
        CHECK(r.output.find("HDF5: infinite loop") == std::string::npos);
        CHECK(r.output.find("internal error") == std::string::npos);
        CHECK(fs::is_empty(dir.path()));
    }
}

TEST_CASE("a dotted key nested 40,000 deep is an input error, not a stack overflow", "[crash][scene]") {
    TempDir dir;
    std::string deep = "a";
    for (int k = 0; k < 40000; ++k) deep += ".b";
    writeFile(dir / "deep.toml", deep + " = 1\n");
    const CommandResult r = runRsim("run " + q(dir / "deep.toml") + " --backend cpu -o " + q(dir / "out"));
    CAPTURE(r.output.substr(0, 300));
    CHECK(r.exitCode == 2);
    CHECK(r.output.find("deep.toml:1: a key nests more than 128 levels deep") != std::string::npos);
    // A table header and an inline table in --set: the same limit.
    writeFile(dir / "header.toml", "[" + deep + "]\n");
    CHECK(runRsim("run " + q(dir / "header.toml") + " --backend cpu -o " + q(dir / "out")).exitCode == 2);
    const CommandResult set = runRsim("run " + q(kTinyRoom) + " --backend cpu -o " + q(dir / "out") +
                                      " --set 'simulation.samples={" + deep.substr(0, 2000) + "=1}'");
    CHECK(set.exitCode == 2);
    CHECK(set.output.find("nests more than") != std::string::npos);
    // Keys of ordinary depth, dots in strings and numbers, still read.
    writeFile(dir / "fine.toml", "# a.b.c.d\n[simulation]\ndt_ns = 0.1 # 1.2.3.4.5\n[light]\nposition = [1.5, 0.5, 1.0]\n"
                                 "[sensor]\nposition = [1.5, 0.5, 1.0]\n[[material]]\nname = \"" + deep.substr(0, 400) +
                                     "\"\nreflectance = 0.5\n[[mesh]]\npath = \"m.obj\"\n");
    const CommandResult fine = runRsim("run " + q(dir / "fine.toml") + " --backend cpu -o " + q(dir / "out"));
    CHECK(fine.output.find("nests") == std::string::npos);
    CHECK(fine.output.find("m.obj") != std::string::npos); // it got as far as the mesh
}

TEST_CASE("the nesting check refuses deep keys and nothing TOML allows at ordinary depth", "[scene]") {
    // Multi-line strings that end in quotes of their own, dots in values, comments and strings.
    std::string valid = "# a.b.c.d.e\n";
    for (int k = 0; k < 200; ++k)
        valid += "k" + std::to_string(k) + " = [\"\"\"He said \"hi\"\"\"\"\", 'a.b', 1.5, { x.y = 2.5 }]\n";
    std::string arrays = "deep = ";
    for (int k = 0; k < 120; ++k) arrays += "[";
    arrays += "1.5";
    for (int k = 0; k < 120; ++k) arrays += "]";
    CHECK_NOTHROW(rsim::checkTomlNesting(valid, "valid.toml"));
    CHECK_NOTHROW(rsim::checkTomlNesting(arrays + "\n", "arrays.toml"));
    std::string dotted = "a";
    for (int k = 0; k < 200; ++k) dotted += ".b";
    CHECK_THROWS_AS(rsim::checkTomlNesting(dotted + " = 1\n", "dotted.toml"), rsim::InputError);
    CHECK_THROWS_AS(rsim::checkTomlNesting("[" + dotted + "]\n", "header.toml"), rsim::InputError);
    CHECK_THROWS_AS(rsim::checkTomlNesting("x = { " + dotted + " = 1 }\n", "inline.toml"), rsim::InputError);
}
