// SPDX-License-Identifier: MIT
// `rsim` end to end, through the binary: the run on the bundled tiny room writes every file of
// the output contract; compare, generate, devices and the error exits behave.
#include <cmath>
#include <fstream>
#include <functional>
#include <sstream>

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>
#include <hdf5.h>
#include <nlohmann/json.hpp>

#include "support/run_command.h"
#include "support/test_scenes.h"
#include "vulkan/instance.h"

using namespace rsim::test;
using Catch::Matchers::ContainsSubstring;

namespace {

// Replaces the first finite distance_m of a triangles.csv by edit(it); false when there is none.
bool editFirstDistance(const std::filesystem::path& file, const std::function<std::string(const std::string&)>& edit) {
    std::istringstream lines(readFile(file));
    std::string line, rewritten;
    std::getline(lines, line);
    rewritten = line + "\n";
    bool done = false;
    while (std::getline(lines, line)) {
        std::vector<std::string> cells;
        std::stringstream ss(line);
        for (std::string c; std::getline(ss, c, ',');) cells.push_back(c);
        if (!done && cells[8] != "nan") {
            cells[8] = edit(cells[8]);
            done = true;
        }
        for (std::size_t k = 0; k < cells.size(); ++k) rewritten += (k ? "," : "") + cells[k];
        rewritten += "\n";
    }
    writeFile(file, rewritten);
    return done;
}

} // namespace
namespace fs = std::filesystem;

namespace {
const std::string kTinyRoom = std::string(RSIM_SOURCE_DIR) + "/scenes/tiny-room/scene.toml";

std::string q(const fs::path& p) { return "'" + p.string() + "'"; }

std::size_t lineCount(const fs::path& file) {
    std::ifstream in(file);
    std::size_t n = 0;
    for (std::string line; std::getline(in, line);) ++n;
    return n;
}
} // namespace

TEST_CASE("rsim run on the tiny room writes the whole output contract", "[cli]") {
    TempDir dir;
    const fs::path out = dir / "results";
    auto r = runRsim("run " + q(kTinyRoom) + " --output " + q(out) + " --backend cpu --timesteps 400 -q");
    INFO(r.output);
    REQUIRE(r.exitCode == 0);
    for (const char* f : {"summary.json", "triangles.csv", "timeseries.h5", "depth.pfm", "depth.png",
                          "error.png", "amplitude.png", "mesh_error.ply"})
        CHECK(fs::is_regular_file(out / f));
    CHECK_FALSE(fs::exists(dir / "results.partial"));

    const auto summary = nlohmann::json::parse(readFile(out / "summary.json"));
    const std::size_t n = summary["counts"]["triangles"];
    CHECK(n == 566);
    CHECK(summary["backend"] == "cpu");
    CHECK(summary["sensor_signal_fwd"].size() == 400);
    CHECK(summary["sensor_signal_adj"].size() == 400);
    for (const char* phase : {"load", "accel", "visibility", "compress", "radiosity", "distance", "output"})
        CHECK(summary["timings_s"].contains(phase));
    CHECK(summary["counts"]["triangles_with_distance"].get<std::size_t>() > 100);
    // The pixels' errors, and error.png's colour scale apart from them.
    CHECK(summary["schema"] == 3);
    CHECK(summary["images"].contains("error_colour_range_m"));
    const auto& pixelError = summary["images"]["pixel_error_m"];
    CHECK(pixelError["count"].get<std::size_t>() == summary["images"]["pixels_with_depth"].get<std::size_t>());
    CHECK(pixelError["max_abs"].get<double>() >= pixelError["p99_abs"].get<double>());
    CHECK(lineCount(out / "triangles.csv") == n + 1);
    CHECK_THAT(readFile(out / "triangles.csv").substr(0, 120),
               ContainsSubstring("id,source_mesh,cx,cy,cz,area,reflectance,true_distance_m,distance_m,"
                                 "error_m,direct_energy,total_energy"));

    // timeseries.h5: B is N x T float32.
    hid_t file = H5Fopen((out / "timeseries.h5").c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    REQUIRE(file >= 0);
    hid_t ds = H5Dopen2(file, "/B", H5P_DEFAULT);
    REQUIRE(ds >= 0);
    hid_t space = H5Dget_space(ds);
    hsize_t dims[2] = {0, 0};
    H5Sget_simple_extent_dims(space, dims, nullptr);
    CHECK(dims[0] == n);
    CHECK(dims[1] == 400);
    H5Sclose(space);
    // Stored shuffled and deflated, with its units; read back, each row sums to the triangle's
    // total_energy of triangles.csv (the same floats; the CSV prints 9 significant digits).
    hid_t dcpl = H5Dget_create_plist(ds);
    CHECK(H5Pget_nfilters(dcpl) == 2);
    H5Pclose(dcpl);
    CHECK(H5Aexists(ds, "units") > 0);
    std::vector<float> B(n * 400);
    REQUIRE(H5Dread(ds, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, B.data()) >= 0);
    H5Dclose(ds);
    H5Fclose(file);
    {
        std::istringstream csv(readFile(out / "triangles.csv"));
        std::string line;
        std::getline(csv, line);
        std::size_t checked = 0;
        for (std::size_t id = 0; std::getline(csv, line) && id < n; ++id) {
            const double total = std::stod(line.substr(line.rfind(',') + 1));
            double sum = 0.0;
            for (std::size_t t = 0; t < 400; ++t) sum += double(B[id * 400 + t]);
            CHECK(std::abs(sum - total) <= 1e-8 * std::abs(total) + 1e-30);
            checked += total > 0.0;
        }
        CHECK(checked > 100);
    }

    CHECK(readFile(out / "mesh_error.ply").rfind("ply\nformat binary_little_endian 1.0\n", 0) == 0);
    CHECK(readFile(out / "depth.png").substr(1, 3) == "PNG");
    CHECK(readFile(out / "depth.pfm").rfind("Pf\n160 120\n", 0) == 0);

    SECTION("compare: identical directories pass, a moved distance fails with a table") {
        auto same = runRsim("compare " + q(out) + " " + q(out));
        INFO(same.output);
        CHECK(same.exitCode == 0);
        CHECK_THAT(same.output, ContainsSubstring("PASS"));
        const fs::path moved = dir / "moved";
        fs::copy(out, moved);
        // Move the first finite distance by 2 cm.
        REQUIRE(editFirstDistance(moved / "triangles.csv",
                                  [](const std::string& d) { return std::to_string(std::stod(d) + 0.02); }));
        auto diff = runRsim("compare " + q(out) + " " + q(moved));
        INFO(diff.output);
        CHECK(diff.exitCode == 3);
        CHECK_THAT(diff.output, ContainsSubstring("FAIL") && ContainsSubstring("distance"));
        CHECK(runRsim("compare " + q(out) + " " + q(moved) + " --tol-m 0.03").exitCode == 0);
        CHECK(runRsim("compare " + q(out) + " " + q(dir / "missing")).exitCode == 2);
    }
    SECTION("a results directory is replaced, anything else is refused") {
        CHECK(runRsim("run " + q(kTinyRoom) + " --output " + q(out) +
                      " --backend cpu --timesteps 100 --no-images -q").exitCode == 0);
        CHECK_FALSE(fs::exists(out / "depth.png"));
        writeFile(dir / "precious" / "thesis.tex", "do not delete");
        auto r2 = runRsim("run " + q(kTinyRoom) + " --output " + q(dir / "precious") +
                          " --backend cpu --timesteps 100 -q");
        CHECK(r2.exitCode == 2);
        CHECK_THAT(r2.output, ContainsSubstring("refusing"));
        CHECK(fs::exists(dir / "precious" / "thesis.tex"));
    }
}

TEST_CASE("rsim reports bad input with exit code 2 and no results", "[cli][errors]") {
    TempDir dir;
    auto expect2 = [](const std::string& args, const std::string& text) {
        auto r = runRsim(args);
        INFO(args << "\n" << r.output);
        CHECK(r.exitCode == 2);
        CHECK_THAT(r.output, ContainsSubstring(text));
    };
    expect2("run " + q(dir / "nope.toml"), "not found");
    expect2("run " + q(kTinyRoom) + " --samples 0", "samples");
    expect2("run " + q(kTinyRoom) + " --set simulation.sample=3", "did you mean \"samples\"");
    expect2("run " + q(kTinyRoom) + " --set light.half_angle_deg=500", "half_angle_deg");
    expect2("frobnicate", "frobnicate");
    expect2("run", "scene");
    expect2("generate smal-room --output " + q(dir / "g"), "did you mean \"small-room\"");
    // A light that reaches nothing stops before any output exists.
    auto r = runRsim("run " + q(kTinyRoom) + " --output " + q(dir / "out") +
                     " --backend cpu --set 'light.position=[50.0, 1.0, 1.0]'");
    CHECK(r.exitCode == 2);
    CHECK_THAT(r.output, ContainsSubstring("reaches no triangle"));
    CHECK_FALSE(fs::exists(dir / "out"));
    for (const auto& e : fs::directory_iterator(dir.path()))
        CHECK(e.path().filename().string().find("partial") == std::string::npos);
}

TEST_CASE("help, devices and generate", "[cli]") {
    auto help = runRsim("--help");
    CHECK(help.exitCode == 0);
    CHECK_THAT(help.output, ContainsSubstring("run") && ContainsSubstring("compare") &&
                                ContainsSubstring("generate") && ContainsSubstring("devices") &&
                                ContainsSubstring("Examples"));
    for (const char* sub : {"run", "compare", "generate", "devices"}) {
        auto h = runRsim(std::string(sub) + " --help");
        INFO(sub << "\n" << h.output);
        CHECK(h.exitCode == 0);
        CHECK_THAT(h.output, ContainsSubstring("Example"));
    }
    auto devices = runRsim("devices");
    CHECK(devices.exitCode == 0);
    CHECK_THAT(devices.output, ContainsSubstring("cpu:"));
    // The committed default scene is exactly what the generator writes.
    TempDir dir;
    auto gen = runRsim("generate tiny-room --output " + q(dir / "tiny") + " -q");
    REQUIRE(gen.exitCode == 0);
    const fs::path committed = fs::path(RSIM_SOURCE_DIR) / "scenes/tiny-room";
    CHECK(readFile(dir / "tiny" / "scene.toml") == readFile(committed / "scene.toml"));
    CHECK(readFile(dir / "tiny" / "room.obj") == readFile(committed / "room.obj"));
}

TEST_CASE("the Vulkan backend runs from the command line with validation", "[cli][backends]") {
    if (vulkanPathsAvailable().empty()) SKIP("no Vulkan device with ray tracing");
    TempDir dir;
    REQUIRE(runRsim("run " + q(kTinyRoom) + " --output " + q(dir / "cpu") +
                    " --backend cpu --timesteps 300 -q").exitCode == 0);
    for (const auto& path : vulkanPathsAvailable()) {
        const std::string visibility = path.substr(std::string("vulkan-").size());
        auto r = runRsim("run " + q(kTinyRoom) + " --output " + q(dir / path) +
                         " --backend vulkan --validation --log-level info --timesteps 300 --host-rays never "
                         "--visibility " +
                         visibility);
        INFO(r.output);
        REQUIRE(r.exitCode == 0);
        CHECK_THAT(r.output, ContainsSubstring("Vulkan validation: 0 error(s)"));
        const auto summary = nlohmann::json::parse(readFile(dir / path / "summary.json"));
        CHECK(summary["backend"] == "vulkan");
        CHECK(summary["visibility_path"] == visibility);
        // What the phases leave out: the instance, the device and each pipeline, and the
        // process's age when the summary was written (which includes every phase).
        const auto& startup = summary["startup_s"];
        CHECK(startup["vulkan instance"].get<double>() > 0.0);
        CHECK(startup.contains("pipeline radiosity far gather"));
        bool device = false;
        for (const auto& [name, secs] : startup.items())
            device = device || (name.rfind("vkCreateDevice, device 0", 0) == 0 && secs.get<double>() > 0.0);
        CHECK(device);
        // process_s is counted in clock ticks (10 ms).
        CHECK(summary["process_s"].get<double>() >= summary["timings_s"]["total"].get<double>() - 0.02);
        auto cmp = runRsim("compare " + q(dir / "cpu") + " " + q(dir / path));
        INFO(cmp.output);
        CHECK(cmp.exitCode == 0);
    }
}

TEST_CASE("a bad --output or option fails before the simulation", "[cli][errors]") {
    TempDir dir;
    writeFile(dir / "file", "a regular file");
    // Before the fix this was exit 1, and only after the whole simulation had run.
    auto r = runRsim("run " + q(kTinyRoom) + " --output " + q(dir / "file" / "results") +
                     " --backend cpu -q");
    INFO(r.output);
    CHECK(r.exitCode == 2);
    CHECK_THAT(r.output, ContainsSubstring("is a file, not a directory"));
    CHECK_THAT(r.output, !ContainsSubstring("radiosity"));
    // The refusal comes before any phase of the simulation.
    writeFile(dir / "precious" / "thesis.tex", "do not delete");
    auto slow = runRsim("run " + q(kTinyRoom) + " --output " + q(dir / "precious") +
                        " --backend cpu --log-level info");
    INFO(slow.output);
    CHECK(slow.exitCode == 2);
    CHECK_THAT(slow.output, ContainsSubstring("refusing") && !ContainsSubstring("visibility"));
    auto dt = runRsim("run " + q(kTinyRoom) + " --dt-ns 0 --output " + q(dir / "out"));
    INFO(dt.output);
    CHECK(dt.exitCode == 2);
    CHECK_THAT(dt.output, ContainsSubstring("[1e-6, 1e6]") && !ContainsSubstring("1.79769"));
    auto devices = runRsim("run " + q(kTinyRoom) + " --backend cpu --devices 0 --output " +
                           q(dir / "out"));
    INFO(devices.output);
    CHECK(devices.exitCode == 2);
    CHECK_THAT(devices.output, ContainsSubstring("--devices"));
    // (A delta pulse: the bundled Gaussian one is longer than 10 steps, another error.)
    auto window = runRsim("run " + q(kTinyRoom) + " --backend cpu --timesteps 10 --set light.pulse=delta --output " +
                          q(dir / "out"));
    INFO(window.output);
    CHECK(window.exitCode == 2);
    CHECK_THAT(window.output, ContainsSubstring("too short") && ContainsSubstring("--timesteps"));
    CHECK_FALSE(fs::exists(dir / "out"));
}

TEST_CASE("the binary opens its modules when it writes their files, and names a missing one before the run",
          "[cli][errors]") {
    // The rsim binary does not link assimp, HDF5 or OpenEXR: it opens rsim-assimp.so,
    // rsim-hdf5.so and rsim-openexr.so beside itself (util/modules.h). A copy of the binary
    // without them stops before any work, naming the module; with assimp's only, it writes
    // the files that need neither of the others, and stops before the simulation when asked
    // for one that does.
    TempDir dir;
    fs::create_directories(dir / "bin");
    fs::copy_file(RSIM_BINARY, dir / "bin" / "rsim");
    const std::string alone = q(dir / "bin" / "rsim") + " run " + q(kTinyRoom) + " --backend cpu --no-k-cache -q " +
                              "--timesteps 400 --samples 2 ";
    auto none = runCommand(alone + "--set output.images=false --set output.timeseries=false --output " +
                           q(dir / "out"));
    INFO(none.output);
    CHECK(none.exitCode == 1);
    CHECK_THAT(none.output, ContainsSubstring("assimp module") && ContainsSubstring("rsim-assimp.so"));
    CHECK_FALSE(fs::exists(dir / "out"));
    const fs::path built = fs::path(RSIM_BINARY).parent_path();
    fs::copy_file(built / "rsim-assimp.so", dir / "bin" / "rsim-assimp.so");
    auto missing = runCommand(alone + "--output " + q(dir / "out"));
    INFO(missing.output);
    CHECK(missing.exitCode == 1);
    CHECK_THAT(missing.output, ContainsSubstring("hdf5 module") && ContainsSubstring("rsim-hdf5.so") &&
                                   !ContainsSubstring("radiosity"));
    CHECK_FALSE(fs::exists(dir / "out"));
    auto without = runCommand(alone + "--set output.images=false --set output.timeseries=false --output " +
                              q(dir / "plain"));
    INFO(without.output);
    CHECK(without.exitCode == 0);
    CHECK(fs::exists(dir / "plain" / "triangles.csv"));
    // Beside the binary (as in the build tree), both are opened and their files written.
    for (const char* module : {"rsim-hdf5.so", "rsim-openexr.so"}) fs::copy_file(built / module, dir / "bin" / module);
    auto whole = runCommand(alone + "--output " + q(dir / "whole"));
    INFO(whole.output);
    CHECK(whole.exitCode == 0);
    CHECK(fs::exists(dir / "whole" / "images.h5"));
    CHECK(fs::exists(dir / "whole" / "timeseries.h5"));
    CHECK(fs::exists(dir / "whole" / "images.exr"));
    CHECK(runCommand(q(dir / "bin" / "rsim") + " compare " + q(dir / "whole") + " " + q(dir / "whole")).exitCode == 0);
}

TEST_CASE("only a directory rsim wrote is replaced", "[cli][errors]") {
    TempDir dir;
    const fs::path other = dir / "other";
    writeFile(other / "summary.json", R"({"title": "my own summary"})");
    writeFile(other / "notes.txt", "keep me");
    auto r = runRsim("run " + q(kTinyRoom) + " --output " + q(other) + " --backend cpu -q");
    INFO(r.output);
    CHECK(r.exitCode == 2);
    CHECK_THAT(r.output, ContainsSubstring("refusing") && ContainsSubstring("notes.txt"));
    CHECK(readFile(other / "summary.json") == R"({"title": "my own summary"})");
    CHECK(readFile(other / "notes.txt") == "keep me");
    // Only contract files, but a summary.json rsim did not write.
    fs::remove(other / "notes.txt");
    writeFile(other / "triangles.csv", "a,b\n1,2\n");
    r = runRsim("run " + q(kTinyRoom) + " --output " + q(other) + " --backend cpu -q");
    CHECK(r.exitCode == 2);
    CHECK_THAT(r.output, ContainsSubstring("not written by rsim"));
    CHECK(readFile(other / "triangles.csv") == "a,b\n1,2\n");
    // rsim's own results directory, with an extra file added: refused too.
    const fs::path out = dir / "results";
    REQUIRE(runRsim("run " + q(kTinyRoom) + " --output " + q(out) +
                    " --backend cpu --timesteps 100 --no-images -q").exitCode == 0);
    writeFile(out / "analysis.py", "print(1)");
    r = runRsim("run " + q(kTinyRoom) + " --output " + q(out) + " --backend cpu --timesteps 100 -q");
    CHECK(r.exitCode == 2);
    CHECK(fs::exists(out / "analysis.py"));
    fs::remove(out / "analysis.py");
    CHECK(runRsim("run " + q(kTinyRoom) + " --output " + q(out) +
                  " --backend cpu --timesteps 100 -q").exitCode == 0);
}

TEST_CASE("the auto backend is a GPU, else the CPU backend, never a software Vulkan device", "[cli][backends]") {
    if (vulkanPathsAvailable().empty()) SKIP("no Vulkan device with ray tracing");
    bool gpu = false;
    {
        rsim::vk::Instance instance(false);
        for (const auto& d : instance.devices()) gpu = gpu || (d.usable && !d.isCpu());
    }
    TempDir dir;
    const auto run = runRsim("run " + std::string(RSIM_SOURCE_DIR) + "/scenes/tiny-room/scene.toml --timesteps 200 " +
                             "--samples 2 --no-progress -o " + (dir / "out").string());
    INFO(run.output);
    REQUIRE(run.exitCode == 0);
    const auto summary = nlohmann::json::parse(readFile(dir / "out" / "summary.json"));
    CHECK(summary["backend"] == (gpu ? "vulkan" : "cpu"));
    if (!gpu) CHECK_THAT(run.output, ContainsSubstring("runs on the CPU and is slower than the CPU backend"));
}

TEST_CASE("AMCW warns when the scene is deeper than its frequencies tell apart, and only then", "[cli]") {
    TempDir dir;
    const std::string run = "run " + std::string(RSIM_SOURCE_DIR) + "/scenes/tiny-room/scene.toml --backend cpu " +
                            "--timesteps 400 --samples 2 --no-progress ";
    // The tiny room's light paths reach 8.4 m: 100 MHz repeats every 3 m of path, 20 MHz every
    // 15 m, and 100 with 120 MHz every 15 m (their greatest common divisor is 20 MHz).
    const auto wraps = runRsim(run + "--set sensor.mode=\"amcw\" --set 'sensor.modulation_mhz=[100]' -o " +
                               (dir / "a").string());
    REQUIRE(wraps.exitCode == 0);
    CHECK_THAT(wraps.output, ContainsSubstring("AMCW at 100 MHz tells light paths apart up to 3 m"));
    for (const char* mhz : {"[20]", "[100, 120]"}) {
        const auto fine = runRsim(run + "--set sensor.mode=\"amcw\" --set 'sensor.modulation_mhz=" + mhz + "' -o " +
                                  (dir / "b").string());
        INFO(mhz);
        REQUIRE(fine.exitCode == 0);
        CHECK_THAT(fine.output, !ContainsSubstring("tells light paths apart"));
    }
    const auto pulsed = runRsim(run + "-o " + (dir / "c").string());
    CHECK_THAT(pulsed.output, !ContainsSubstring("tells light paths apart"));
}

namespace {

// An axis-aligned box [lo, hi] as OBJ faces wound outwards, vertices numbered from `first`.
std::string outwardBox(glm::dvec3 lo, glm::dvec3 hi, int first) {
    std::string obj;
    for (int k = 0; k < 8; ++k) {
        const glm::dvec3 p((k & 1) ? hi.x : lo.x, (k & 2) ? hi.y : lo.y, (k & 4) ? hi.z : lo.z);
        obj += "v " + std::to_string(p.x) + " " + std::to_string(p.y) + " " + std::to_string(p.z) + "\n";
    }
    // Corners by bit (x = 1, y = 2, z = 4); each quad counter-clockwise seen from outside.
    const int quads[6][4] = {{0, 2, 3, 1}, {4, 5, 7, 6}, {0, 1, 5, 4}, {2, 6, 7, 3}, {0, 4, 6, 2}, {1, 3, 7, 5}};
    for (const auto& q : quads) {
        auto v = [&](int c) { return std::to_string(first + q[c]); };
        obj += "f " + v(0) + " " + v(1) + " " + v(2) + "\nf " + v(0) + " " + v(2) + " " + v(3) + "\n";
    }
    return obj;
}

} // namespace

TEST_CASE("a room whose walls face outwards is reported, the bundled rooms are not", "[cli]") {
    TempDir dir;
    // The walls face away from the camera inside; the cabinet faces out, as furniture should.
    writeFile(dir / "room.obj", outwardBox({0, 0, 0}, {4, 3, 2.5}, 1) + outwardBox({2.5, 1.0, 0.0}, {3.2, 2.0, 0.8}, 9));
    writeFile(dir / "scene.toml", "[simulation]\ntimesteps = 400\nsamples = 2\n"
                                  "[light]\nposition = [0.5, 1.5, 1.2]\ndirection = [1.0, 0.0, -0.3]\n"
                                  "[sensor]\nlook_at = [4.0, 1.5, 0.5]\nresolution = [32, 24]\n"
                                  "[[mesh]]\npath = \"room.obj\"\n");
    const auto outward = runRsim("run " + (dir / "scene.toml").string() + " --backend cpu --no-progress -o " +
                                 (dir / "a").string());
    INFO(outward.output);
    CHECK_THAT(outward.output, ContainsSubstring("see the back of one-sided triangles (most of them of mesh \"room.obj\")"));
    CHECK_THAT(outward.output, ContainsSubstring("two_sided = true"));

    const auto bundled = runRsim("run " + std::string(RSIM_SOURCE_DIR) + "/scenes/tiny-room/scene.toml --backend cpu " +
                                 "--timesteps 400 --samples 2 --no-progress -o " + (dir / "b").string());
    CHECK(bundled.exitCode == 0);
    CHECK_THAT(bundled.output, !ContainsSubstring("back of one-sided"));
}

TEST_CASE("compare reports in JSON and JUnit, counts NaN on one side, and notices other settings and missing files",
          "[cli]") {
    TempDir dir;
    const std::string run = "run " + q(kTinyRoom) + " --backend cpu --timesteps 300 --samples 2 -q --no-timeseries ";
    REQUIRE(runRsim(run + "-o " + q(dir / "a")).exitCode == 0);
    fs::copy(dir / "a", dir / "b");
    // B: one distance gone (NaN where A has one).
    REQUIRE(editFirstDistance(dir / "b" / "triangles.csv", [](const std::string&) { return std::string("nan"); }));
    const auto cmp = runRsim("compare " + q(dir / "a") + " " + q(dir / "b") + " --max-fraction 0 --json " +
                             q(dir / "cmp.json") + " --junit " + q(dir / "cmp.xml"));
    INFO(cmp.output);
    CHECK(cmp.exitCode == 3);
    const auto j = nlohmann::json::parse(readFile(dir / "cmp.json"));
    CHECK(j["result"] == "fail");
    bool seen = false;
    for (const auto& c : j["checks"])
        if (c["check"] == "triangle distance_m") {
            seen = true;
            CHECK(c["beyond_tolerance"] == 1);
            CHECK(c["nan_on_one_side"] == 1);
            CHECK(c["result"] == "FAIL");
        }
    CHECK(seen);
    CHECK_THAT(readFile(dir / "cmp.xml"), ContainsSubstring("<failure message=\"1 of 566 triangle distances"));

    // A depth image in one directory only, or another setting: failures, not skips.
    fs::remove(dir / "b" / "depth.pfm");
    CHECK_THAT(runRsim("compare " + q(dir / "a") + " " + q(dir / "b") + " --max-fraction 0.01").output,
               ContainsSubstring("depth.pfm (only in A): data compare reads, which both runs were asked to write"));
    REQUIRE(runRsim("run " + q(kTinyRoom) + " --backend cpu --timesteps 300 --samples 3 -q --no-timeseries -o " +
                    q(dir / "c")).exitCode == 0);
    const auto other = runRsim("compare " + q(dir / "a") + " " + q(dir / "c") + " --tol-m 1 --max-fraction 1");
    CHECK(other.exitCode == 3);
    CHECK_THAT(other.output, ContainsSubstring("simulation.samples: 2 vs 3"));
    CHECK(runRsim("compare " + q(dir / "a") + " " + q(dir / "c") + " --tol-m 1 --max-fraction 1 --signal-rtol 1 "
                  "--ignore-settings").exitCode == 0);
    // NaN tolerances would pass everything.
    CHECK(runRsim("compare " + q(dir / "a") + " " + q(dir / "a") + " --tol-m nan").exitCode == 2);
    CHECK(runRsim("compare " + q(dir / "a") + " " + q(dir / "a") + " --max-fraction nan").exitCode == 2);
}

TEST_CASE("a time window that cuts off the light's tail is reported, the bundled scenes' are not", "[cli]") {
    TempDir dir;
    // 30 ns cover 9 m of path: the tiny room's far walls (8.4 m) are just inside, their
    // multipath tail is not.
    // (A delta pulse, as when this was measured: the bundled 1 ns pulse moves the tail by 1.5 ns.)
    const auto short_ = runRsim("run " + q(kTinyRoom) + " --backend cpu --timesteps 300 --samples 2 --no-progress "
                                "--set light.pulse=delta -o " + q(dir / "a"));
    INFO(short_.output);
    REQUIRE(short_.exitCode == 0);
    CHECK_THAT(short_.output, ContainsSubstring("of the light reaching the sensor arrives after the time window"));
    for (const char* scene : {"tiny-room", "corridor"}) {
        const auto bundled = runRsim("run " + std::string(RSIM_SOURCE_DIR) + "/scenes/" + scene +
                                     "/scene.toml --backend cpu --samples 2 --no-timeseries --no-progress -o " +
                                     q(dir / scene));
        INFO(scene << ": " << bundled.output);
        CHECK(bundled.exitCode == 0);
        CHECK_THAT(bundled.output, !ContainsSubstring("time window"));
    }
}

TEST_CASE("a run forecasts its size and time before the long phases", "[cli]") {
    TempDir dir;
    const auto r = runRsim("run " + q(kTinyRoom) + " --output " + q(dir / "out") +
                           " --backend cpu --timesteps 300 --no-k-cache --log-level debug");
    INFO(r.output);
    REQUIRE(r.exitCode == 0);
    // 566 triangles: K in lut8 is 566^2 bytes, the histories 566 x 300 x 8 bytes.
    CHECK_THAT(r.output, ContainsSubstring("estimate (rough, from typical throughput on"));
    CHECK_THAT(r.output, ContainsSubstring("K 313 KiB, B/Z histories 1 MiB per pose"));
    // Before the visibility it forecasts.
    CHECK(r.output.find("estimate (rough") < r.output.find("visibility:"));
}

TEST_CASE("rsim run --help shows what a user chooses; every tuning switch works as --set tuning.KEY and is documented",
          "[cli]") {
    const auto help = runRsim("run --help");
    std::size_t options = 0;
    std::istringstream lines(help.output);
    for (std::string line; std::getline(lines, line);)
        options += line.rfind("  -", 0) == 0;
    CHECK(options <= 25);
    CHECK_THAT(help.output, ContainsSubstring("docs/tuning.md"));
    CHECK_THAT(help.output, !ContainsSubstring("--radiosity-split"));
    const std::string doc = readFile(std::string(RSIM_SOURCE_DIR) + "/docs/tuning.md");
    TempDir dir;
    const std::string base = "run " + q(kTinyRoom) + " --timesteps 200 --samples 2 -q --no-k-cache --no-timeseries ";
    // Each key: documented, accepted by --set, and the same as its older option where both would run.
    for (const char* key : {"pass_blocks", "radiosity_split", "radiosity_unroll", "radiosity_poses", "radiosity_lanes",
                            "radiosity_lane_receivers", "radiosity_staged", "chunk_mb", "kij_errors", "host_rays", "writers", "pose_group",
                            "validation", "early_exit"}) {
        CAPTURE(key);
        CHECK(doc.find(std::string("`") + key + "`") != std::string::npos);
    }
    REQUIRE(runRsim(base + "--backend cpu -o " + q(dir / "a") + " --set tuning.chunk_mb=4").exitCode == 0);
    REQUIRE(runRsim(base + "--backend cpu -o " + q(dir / "b") + " --chunk-mb 4").exitCode == 0);
    REQUIRE(runRsim(base + "--backend cpu -o " + q(dir / "c")).exitCode == 0);
    CHECK(readFile(dir / "a" / "triangles.csv") == readFile(dir / "b" / "triangles.csv"));
    CHECK(runRsim("compare " + q(dir / "a") + " " + q(dir / "c") + " --max-fraction 0 --tol-m 1e-4").exitCode == 0);
    // An unknown key is named with a did-you-mean; a Vulkan key on the CPU is an error.
    const auto typo = runRsim(base + "--backend cpu -o " + q(dir / "d") + " --set tuning.chunkmb=4");
    CHECK(typo.exitCode == 2);
    CHECK_THAT(typo.output, ContainsSubstring("did you mean \"chunk_mb\""));
    CHECK(runRsim(base + "--backend cpu -o " + q(dir / "d") + " --set tuning.radiosity_split=4").exitCode == 2);
}
