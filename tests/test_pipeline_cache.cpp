// SPDX-License-Identifier: MIT
// The Vulkan pipeline cache on disk: written after a run, read by the next, and a damaged file
// is ignored (with a debug line), never handed to the driver.
#include <filesystem>

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include "support/run_command.h"
#include "support/test_scenes.h"

using namespace rsim::test;
using Catch::Matchers::ContainsSubstring;

TEST_CASE("the pipeline cache is kept between runs and a damaged one is ignored", "[vulkan][cli]") {
    if (vulkanPathsAvailable().empty()) SKIP("no Vulkan device with ray tracing");
    TempDir dir;
    const std::string run = "XDG_CACHE_HOME='" + dir.path().string() + "' " + std::string(RSIM_BINARY) + " run " +
                            std::string(RSIM_SOURCE_DIR) + "/scenes/tiny-room/scene.toml --backend vulkan " +
                            "--timesteps 200 --samples 2 --no-k-cache --no-progress --log-level debug -o ";
    const auto first = runCommand(run + (dir / "a").string());
    REQUIRE(first.exitCode == 0);
    const auto folder = dir / "rsim" / "pipelines";
    REQUIRE(std::filesystem::is_directory(folder));
    std::filesystem::path file;
    for (const auto& e : std::filesystem::directory_iterator(folder)) file = e.path();
    REQUIRE(file.extension() == ".bin");

    const auto second = runCommand(run + (dir / "b").string());
    REQUIRE(second.exitCode == 0);
    // Read and handed to the driver (the line with its size), not ignored.
    CHECK_THAT(second.output, ContainsSubstring("pipeline cache " + file.string() + " ("));
    CHECK_THAT(second.output, !ContainsSubstring("ignored"));

    writeFile(file, "not a pipeline cache at all, but long enough to hold a header's worth of bytes");
    const auto third = runCommand(run + (dir / "c").string());
    INFO(third.output);
    REQUIRE(third.exitCode == 0);
    CHECK_THAT(third.output, ContainsSubstring("ignored"));
    CHECK(readFile(dir / "a" / "triangles.csv") == readFile(dir / "c" / "triangles.csv"));
}
