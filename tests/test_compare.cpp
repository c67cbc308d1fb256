// SPDX-License-Identifier: MIT
// `rsim compare` as users run it (issue 57, items 15-17): the documented regression command
// with no option, JSON with numbers and the worst offenders, batches pose by pose, and its own
// CSV read back whatever a mesh is called.
#include <string>

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>
#include <nlohmann/json.hpp>

#include "support/run_command.h"
#include "support/test_scenes.h"

using namespace rsim::test;
namespace fs = std::filesystem;

namespace {

const std::string kSource = RSIM_SOURCE_DIR;
std::string q(const fs::path& p) { return "'" + p.string() + "'"; }

} // namespace

TEST_CASE("the documented regression command passes against the committed reference with no option", "[compare]") {
    // README.md, `rsim --help` and `rsim compare --help`: a fresh tiny-room run against
    // tests/reference/tiny-room. The run writes files the reference does not keep.
    TempDir dir;
    REQUIRE(runRsim("run " + q(kSource + "/scenes/tiny-room/scene.toml") + " --backend cpu -q -o " + q(dir / "tiny-room"))
                .exitCode == 0);
    const CommandResult cmp = runRsim("compare " + q(dir / "tiny-room") + " " + q(kSource + "/tests/reference/tiny-room"));
    CAPTURE(cmp.output);
    CHECK(cmp.exitCode == 0);
    CHECK(cmp.output.find("note: only in A, not compared: timeseries.h5") != std::string::npos);
    // The list of files is a note under the table, not a cell of it.
    const std::size_t table = cmp.output.find("result files");
    REQUIRE(table != std::string::npos);
    CHECK(cmp.output.substr(table, cmp.output.find('\n', table) - table).find("images.h5") == std::string::npos);
}

TEST_CASE("compare --json writes numbers as numbers, with the worst triangles and pixels", "[compare]") {
    TempDir dir;
    const std::string run = "run " + q(kSource + "/scenes/tiny-room/scene.toml") +
                            " --backend cpu --timesteps 300 --samples 2 -q --no-timeseries -o ";
    REQUIRE(runRsim(run + q(dir / "a")).exitCode == 0);
    REQUIRE(runRsim(run + q(dir / "b") + " --seed 7").exitCode == 0); // another K: distances move a little
    const CommandResult cmp = runRsim("compare " + q(dir / "a") + " " + q(dir / "b") +
                                      " --ignore-settings --tol-m 1e-9 --max-fraction 0 --json " + q(dir / "c.json"));
    CAPTURE(cmp.output);
    CHECK(cmp.exitCode == 3);
    CHECK(cmp.output.find("worst triangles") != std::string::npos);
    const nlohmann::json j = nlohmann::json::parse(readFile(dir / "c.json"));
    CHECK(j["tool"] == "rsim compare");
    CHECK(j["result"] == "fail");
    CHECK(j["options"]["tol_m"].is_number());
    bool seen = false;
    for (const auto& c : j["checks"]) {
        CHECK(c["compared"].is_number_unsigned());
        CHECK(c["beyond_tolerance"].is_number_unsigned());
        if (c["check"] == "triangle distance_m") {
            seen = true;
            CHECK(c["max_diff"].is_number_float());
            CHECK(c["unit"] == "m");
            CHECK(c["tolerance"] == 1e-9);
            CHECK(c["compared"] == 566);
        }
    }
    CHECK(seen);
    // Each worst triangle: its id, and its difference as a number, or null with one_side_only
    // (a distance on one side only), largest first.
    REQUIRE(!j["worst_triangles"].empty());
    double previous = 1e300;
    bool numbers = false;
    for (const auto& w : j["worst_triangles"]) {
        CHECK(w["id"].is_number_unsigned());
        if (w["one_side_only"].get<bool>()) {
            CHECK(w["diff_m"].is_null());
            CHECK_FALSE(numbers); // the one-sided ones come first
            continue;
        }
        numbers = true;
        REQUIRE(w["diff_m"].is_number());
        CHECK(w["diff_m"].get<double>() > 0.0);
        CHECK(w["diff_m"].get<double>() <= previous);
        previous = w["diff_m"].get<double>();
    }
    REQUIRE(!j["worst_pixels"].empty());
    CHECK(j["worst_pixels"][0]["x"].is_number_unsigned());
}

TEST_CASE("compare takes two batches pose by pose and names the poses that differ", "[compare][batch]") {
    TempDir dir;
    writeFile(dir / "poses.csv", "name,x,y,z,look_x,look_y,look_z\nleft,1,1,1.5,4,1.5,1\nright,1,2,1.5,4,1.5,1\n");
    const std::string run = "run " + q(kSource + "/scenes/tiny-room/scene.toml") + " --backend cpu --timesteps 300 "
                            "--samples 2 -q --no-timeseries --no-images --poses " + q(dir / "poses.csv") + " -o ";
    REQUIRE(runRsim(run + q(dir / "a")).exitCode == 0);
    REQUIRE(runRsim(run + q(dir / "b")).exitCode == 0);
    const CommandResult same = runRsim("compare " + q(dir / "a") + " " + q(dir / "b") + " --json " + q(dir / "c.json"));
    CAPTURE(same.output);
    CHECK(same.exitCode == 0);
    CHECK(same.output.find("2 of 2 poses in both pass") != std::string::npos);
    const nlohmann::json j = nlohmann::json::parse(readFile(dir / "c.json"));
    REQUIRE(j["poses"].size() == 2);
    CHECK(j["poses"][0]["pose"] == "left");
    // One pose moved, one missing: both named.
    writeFile(dir / "poses2.csv", "name,x,y,z,look_x,look_y,look_z\nleft,1.2,1,1.5,4,1.5,1\n");
    REQUIRE(runRsim("run " + q(kSource + "/scenes/tiny-room/scene.toml") + " --backend cpu --timesteps 300 --samples 2 "
                    "-q --no-timeseries --no-images --poses " + q(dir / "poses2.csv") + " -o " + q(dir / "c"))
                .exitCode == 0);
    const CommandResult differ = runRsim("compare " + q(dir / "a") + " " + q(dir / "c"));
    CAPTURE(differ.output);
    CHECK(differ.exitCode == 3);
    CHECK(differ.output.find("poses in one batch only: A: right") != std::string::npos);
    CHECK(differ.output.find("left:") != std::string::npos);
    // JUnit names the batch's own failure too (CI reading only JUnit must not see green).
    const CommandResult junit = runRsim("compare " + q(dir / "a") + " " + q(dir / "c") + " --junit " + q(dir / "c.xml"));
    CHECK(junit.exitCode == 3);
    CHECK(readFile(dir / "c.xml").find("<testcase classname=\"rsim.compare\" name=\"batch/poses\">") != std::string::npos);
    // A batch against one run is a clear error.
    CHECK(runRsim("compare " + q(dir / "a") + " " + q(dir / "a" / "left")).exitCode == 2);
}

TEST_CASE("compare reads its own triangles.csv whatever a mesh is called, and refuses one without triangles",
          "[compare][bad-input]") {
    TempDir dir;
    // A mesh file whose name holds a comma, a quote and a line end: triangles.csv quotes it.
    const std::string name = "we,\"ird\nname.obj";
    writeFile(dir / name, "v -1 -1 0\nv 1 -1 0\nv 1 1 0\nv -1 1 0\nf 1 2 3\nf 1 3 4\n");
    writeFile(dir / "scene.toml", "[simulation]\ntimesteps = 200\nsamples = 2\n[light]\nposition = [0.1, 0, 1]\n"
                                  "[sensor]\nposition = [0.1, 0, 1]\nlook_at = [0, 0, 0]\nup = [0, 1, 0]\nresolution = [16, 12]\n"
                                  "[[material]]\nname = \"default\"\nreflectance = 0.5\n"
                                  "[[mesh]]\npath = \"we,\\\"ird\\nname.obj\"\n");
    const CommandResult r = runRsim("run " + q(dir / "scene.toml") + " --backend cpu -q --no-k-cache -o " + q(dir / "out"));
    REQUIRE(r.exitCode == 0);
    const CommandResult self = runRsim("compare " + q(dir / "out") + " " + q(dir / "out"));
    CAPTURE(self.output);
    CHECK(self.exitCode == 0);
    // Two directories whose triangles.csv holds a header only compare nothing: not a pass.
    for (const char* side : {"h1", "h2"}) {
        fs::create_directories(dir / side);
        writeFile(dir / side / "triangles.csv", "id,source_mesh,cx,cy,cz,area,reflectance,true_distance_m,distance_m,"
                                                "error_m,direct_energy,total_energy\n");
    }
    const CommandResult empty = runRsim("compare " + q(dir / "h1") + " " + q(dir / "h2"));
    CAPTURE(empty.output);
    CHECK(empty.exitCode == 2);
    CHECK(empty.output.find("holds no triangle") != std::string::npos);
    // Two copies of one run without their summary.json: settings and signal cannot be compared.
    fs::copy(dir / "out", dir / "n1", fs::copy_options::recursive);
    fs::copy(dir / "out", dir / "n2", fs::copy_options::recursive);
    fs::remove(dir / "n1" / "summary.json");
    fs::remove(dir / "n2" / "summary.json");
    const CommandResult none = runRsim("compare " + q(dir / "n1") + " " + q(dir / "n2"));
    CAPTURE(none.output);
    CHECK(none.exitCode == 3);
    CHECK(none.output.find("summary.json (in neither)") != std::string::npos);
}

TEST_CASE("two runs whose sensor models differ compare as different settings", "[compare]") {
    TempDir dir;
    const std::string run = "run " + q(kSource + "/scenes/tiny-room/scene.toml") +
                            " --backend cpu --timesteps 300 --samples 2 -q --no-timeseries --set sensor_model.enabled=true -o ";
    REQUIRE(runRsim(run + q(dir / "a") + " --set sensor_model.read_noise_e=5").exitCode == 0);
    REQUIRE(runRsim(run + q(dir / "b") + " --set sensor_model.read_noise_e=500").exitCode == 0);
    const CommandResult cmp = runRsim("compare " + q(dir / "a") + " " + q(dir / "b"));
    INFO(cmp.output);
    CHECK(cmp.exitCode != 0);
    CHECK_THAT(cmp.output, Catch::Matchers::ContainsSubstring("sensor_model.read_noise_e: 5.0 vs 500.0"));
}
