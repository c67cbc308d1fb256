// SPDX-License-Identifier: MIT
// One run is one process; asked (--set tuning.early_exit=true), `rsim run` ends when its results
// are in place while a worker it forked releases the rest (util/early_exit.h): the command's code,
// output and files are whole when it returns, and the release goes on after it.
// RSIM_TEST_HOLD_RELEASE holds the worker between its word and its release, so that the test sees
// it alive after the command has returned.
#include <chrono>
#include <fstream>
#include <thread>

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include "support/run_command.h"
#include "support/test_scenes.h"

using namespace rsim::test;
namespace fs = std::filesystem;

namespace {

const std::string kTinyRoom = std::string(RSIM_SOURCE_DIR) + "/scenes/tiny-room/scene.toml";
std::string q(const fs::path& p) { return "'" + p.string() + "'"; }

// A process that is there and not a zombie (an orphan's zombie waits for whoever adopts it).
bool running(int pid) {
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string line;
    if (!std::getline(stat, line)) return false;
    const auto close = line.rfind(')');
    return close != std::string::npos && close + 2 < line.size() && line[close + 2] != 'Z';
}

} // namespace

TEST_CASE("a run is one process; asked, it ends when its results are in place and its worker releases the rest",
          "[cli][early-exit]") {
    TempDir dir;
    const fs::path hold = dir / "hold", out = dir / "results";
    fs::create_directories(hold);
    const std::string run = "RSIM_TEST_HOLD_RELEASE=" + q(hold) + " " + std::string(RSIM_BINARY) + " run " +
                            q(kTinyRoom) + " --backend cpu --timesteps 400 --no-k-cache --no-progress -o " + q(out);

    SECTION("with --set tuning.early_exit=true") {
#if defined(__SANITIZE_ADDRESS__)
        SKIP("under the sanitizers rsim run stays one process, so that their last reports reach its output");
#endif
        const auto r = runCommand(run + " --set tuning.early_exit=true");
        INFO(r.output);
        REQUIRE(r.exitCode == 0);
        CHECK_THAT(r.output, Catch::Matchers::ContainsSubstring("wrote " + out.string()));
        CHECK(fs::is_regular_file(out / "summary.json"));
        CHECK(fs::is_regular_file(out / "triangles.csv"));
        // The worker said so and is held before its release: the command (and its output pipe,
        // read to its end above) did not wait for it.
        REQUIRE(fs::is_regular_file(hold / "worker.pid"));
        const int pid = std::stoi(readFile(hold / "worker.pid"));
        CHECK(running(pid));
        writeFile(hold / "go", "");
        // It ends once let go (no clock: a worker that never ended would hang the test until
        // ctest's timeout fails it).
        while (running(pid)) std::this_thread::sleep_for(std::chrono::milliseconds(20));
        CHECK_FALSE(running(pid));
    }
    SECTION("by default the command is the run (a monitor of it sees the run's memory), and waits for its release") {
        const auto r = runCommand(run);
        INFO(r.output);
        REQUIRE(r.exitCode == 0);
        CHECK(fs::is_regular_file(out / "summary.json"));
        CHECK_FALSE(fs::exists(hold / "worker.pid"));
    }
    SECTION("a worker's error is the command's, with its message and code") {
        const auto r = runCommand(run + " --set tuning.early_exit=true --set simulation.samples=0");
        CHECK(r.exitCode == 2);
        CHECK_THAT(r.output, Catch::Matchers::ContainsSubstring("samples"));
        CHECK_FALSE(fs::exists(hold / "worker.pid"));
        CHECK_FALSE(fs::exists(out));
    }
}
