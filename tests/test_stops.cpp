// SPDX-License-Identifier: MIT
// A stop (Ctrl-C, SIGTERM) ends every long phase at once (issue 57, item 12): each case sends
// SIGINT as a phase starts and checks that the run stopped inside it, before its end (the phase
// says how far it got), and cleaned up. No clock: the work each phase would have done is the
// yardstick, so a loaded machine is slower, not wrong. A stop that had no effect would let the
// run go on for minutes to hours; an outer timeout only ends such a hang.
#include <cstdio>
#include <string>
#include <vector>

#include <catch2/catch_test_macros.hpp>

#include "support/run_command.h"
#include "support/test_scenes.h"

using namespace rsim::test;
namespace fs = std::filesystem;

namespace {

const std::string kTinyRoom = std::string(RSIM_SOURCE_DIR) + "/scenes/tiny-room/scene.toml";
std::string q(const fs::path& p) { return "'" + p.string() + "'"; }

// Runs `rsim run ARGS`, sends SIGINT once a log line holds `cue`, and returns the run's output
// and exit code.
CommandResult stopWhen(const TempDir& dir, const std::string& args, const std::string& cue) {
    const fs::path log = dir / "log.txt";
    // Run by sh -c "...": the inner shell's $ are escaped from the outer one.
    const std::string script = std::string(RSIM_BINARY) + " run " + args + " -o " + q(dir / "out") +
                               " --backend cpu --no-k-cache --no-progress --log-level debug > " + q(log) +
                               " 2>&1 & pid=\\$!; while ! grep -q '" + cue + "' " + q(log) +
                               "; do kill -0 \\$pid 2>/dev/null || break; sleep 0.01; done; kill -INT \\$pid; "
                               "wait \\$pid; echo rc=\\$?; cat " + q(log);
    return runCommand("timeout -k 10 600 sh -c \"" + script + "\"");
}

// The phase's own words: "PHASE: stopped after DONE of TOTAL UNIT", with DONE < TOTAL, for
// one of `phases` (the stop may land in the one that follows the cue, or the next).
void checkStoppedEarly(const CommandResult& r, const std::vector<std::string>& phases, const TempDir& dir) {
    CAPTURE(r.output.substr(r.output.size() > 3000 ? r.output.size() - 3000 : 0));
    CHECK(r.output.find("rc=130") != std::string::npos);
    std::size_t at = std::string::npos;
    std::string phase;
    for (const std::string& p : phases)
        if (const std::size_t found = r.output.find(p + ": stopped after "); found != std::string::npos) {
            at = found;
            phase = p;
        }
    REQUIRE(at != std::string::npos);
    unsigned long long done = 0, total = 0;
    REQUIRE(std::sscanf(r.output.c_str() + at + phase.size(), ": stopped after %llu of %llu", &done, &total) == 2);
    CHECK(done < total);
    CHECK_FALSE(fs::exists(dir / "out"));
    for (const auto& e : fs::directory_iterator(dir.path())) CHECK(e.path().filename() == "log.txt");
}

} // namespace

TEST_CASE("a stop ends the visibility of pairs with a million samples each", "[signals]") {
    // S = 2^20: one pair takes a second or more; a row of pairs, hours. The stop used to wait for
    // the row.
    TempDir dir;
    const CommandResult r = stopWhen(dir, q(kTinyRoom) + " --samples 1048576 --timesteps 200", "estimate");
    checkStoppedEarly(r, {"visibility"}, dir);
}

TEST_CASE("a stop ends the image phase of a large sensor", "[signals]") {
    TempDir dir;
    const CommandResult r = stopWhen(dir, q(kTinyRoom) + " --direct-only --timesteps 4000 --set 'sensor.resolution=[2400, 1800]'",
                                     "primary rays:");
    checkStoppedEarly(r, {"primary rays", "image"}, dir);
}

TEST_CASE("a stop ends the direct terms of a batch of thousands of poses", "[signals][batch]") {
    TempDir dir;
    REQUIRE(runRsim("poses " + q(kTinyRoom) + " --orbit 20000 -o " + q(dir / "poses.csv")).exitCode == 0);
    const CommandResult r = stopWhen(dir, q(kTinyRoom) + " --samples 2 --timesteps 200 --no-images --no-timeseries --poses " +
                                              q(dir / "poses.csv"),
                                     "accel:");
    fs::remove(dir / "poses.csv");
    checkStoppedEarly(r, {"direct terms"}, dir);
}
