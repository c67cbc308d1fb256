// SPDX-License-Identifier: MIT
// What a ToF engineer meets on a first day with rsim (issue 57, items 16 and 20): the bundled
// scene shows multipath, the help points at sections that exist, and the hints say what to do.
#include <algorithm>
#include <cmath>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

#include <catch2/catch_test_macros.hpp>
#include <hdf5.h>

#include "support/h5_read.h"
#include "support/run_command.h"
#include "support/test_scenes.h"

using namespace rsim::test;
namespace fs = std::filesystem;

namespace {
const std::string kSource = RSIM_SOURCE_DIR;
const std::string kTinyRoom = kSource + "/scenes/tiny-room/scene.toml";
std::string q(const fs::path& p) { return "'" + p.string() + "'"; }
} // namespace

TEST_CASE("the bundled scene's depth image shows multipath", "[first-day]") {
    // The demo's run (README, Quick start) at its settings: the estimate differs from the truth
    // by the multipath (range_m - range_direct_m), centimetres in a small bright room.
    TempDir dir;
    REQUIRE(runRsim("run " + q(kTinyRoom) + " --backend cpu -q --no-timeseries -o " + q(dir / "out")).exitCode == 0);
    const auto range = readAll<float>(dir / "out" / "images.h5", "range_m", H5T_NATIVE_FLOAT);
    const auto direct = readAll<float>(dir / "out" / "images.h5", "range_direct_m", H5T_NATIVE_FLOAT);
    std::vector<float> multipath;
    for (std::size_t p = 0; p < range.size(); ++p)
        if (std::isfinite(range[p]) && std::isfinite(direct[p])) multipath.push_back(std::abs(range[p] - direct[p]));
    REQUIRE(multipath.size() > range.size() / 2);
    std::nth_element(multipath.begin(), multipath.begin() + std::ptrdiff_t(multipath.size() / 2), multipath.end());
    CHECK(multipath[multipath.size() / 2] > 0.01f); // median over 1 cm
}

TEST_CASE("every README section the help names exists", "[first-day][cli]") {
    std::ifstream in(kSource + "/README.md");
    std::vector<std::string> headings;
    for (std::string line; std::getline(in, line);)
        if (line.rfind("#", 0) == 0) headings.push_back(line);
    std::string help;
    for (const char* command : {"", "run ", "compare ", "poses ", "generate ", "devices "})
        help += runRsim(std::string(command) + "--help").output;
    const std::regex named(R"re(README\.md,? \(?"([^"]+)")re");
    std::size_t checked = 0;
    for (auto it = std::sregex_iterator(help.begin(), help.end(), named); it != std::sregex_iterator(); ++it) {
        const std::string section = (*it)[1];
        CAPTURE(section);
        CHECK(std::any_of(headings.begin(), headings.end(), [&](const std::string& h) { return h.find(section) != std::string::npos; }));
        ++checked;
    }
    CHECK(checked > 0);
    CHECK(help.find("README.md (Output)") == std::string::npos);
}

TEST_CASE("a room whose faces all point outwards gets a hint about winding and two_sided", "[first-day][bad-input]") {
    TempDir dir;
    // A 4 x 3 x 2.5 m box wound outwards, light and sensor inside it.
    writeFile(dir / "box.obj", "v 0 0 0\nv 4 0 0\nv 4 3 0\nv 0 3 0\nv 0 0 2.5\nv 4 0 2.5\nv 4 3 2.5\nv 0 3 2.5\n"
                               "f 1 3 2\nf 1 4 3\nf 5 6 7\nf 5 7 8\nf 1 2 6\nf 1 6 5\nf 2 3 7\nf 2 7 6\n"
                               "f 3 4 8\nf 3 8 7\nf 4 1 5\nf 4 5 8\n");
    writeFile(dir / "scene.toml", "[light]\nposition = [1, 1.5, 1.2]\ndirection = [1, 0, 0]\n"
                                  "[sensor]\nposition = [1, 1.52, 1.2]\nlook_at = [4, 1.5, 1]\nresolution = [16, 12]\n"
                                  "[[material]]\nname = \"default\"\nreflectance = 0.5\n[[mesh]]\npath = \"box.obj\"\n");
    const CommandResult r = runRsim("run " + q(dir / "scene.toml") + " --backend cpu --no-k-cache -o " + q(dir / "out"));
    CAPTURE(r.output);
    CHECK(r.exitCode == 2);
    CHECK(r.output.find("two_sided = true") != std::string::npos);
    CHECK(r.output.find("vertex order") != std::string::npos);
}

TEST_CASE("a gated camera warns of the triangles beyond the range its gates measure", "[first-day]") {
    TempDir dir;
    const std::string run = "run " + q(kTinyRoom) + " --backend cpu --samples 2 --no-k-cache --no-timeseries "
                            "--set sensor.mode=gated --set light.pulse=rectangular -o " + q(dir / "out") + " ";
    // Two gates of 20 ns measure paths up to 6 m; the room's far corners are 8.4 m of path away.
    const CommandResult shortGates = runRsim(run + "--set light.pulse_width_ns=20");
    CAPTURE(shortGates.output);
    CHECK(shortGates.exitCode == 0);
    CHECK(shortGates.output.find("outside that (paths up to") != std::string::npos);
    // Gates long enough for every path: no such warning.
    const CommandResult longGates = runRsim(run + "--set light.pulse_width_ns=40");
    CAPTURE(longGates.output);
    CHECK(longGates.output.find("outside that") == std::string::npos);
}
