// SPDX-License-Identifier: MIT
// `rsim compare` on images.h5's raw data (issue 60, point 7): every dataset under amcw/, noise/,
// gated/ and transient compared, a changed value or a dataset on one side only named.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>
#include <hdf5.h>
#include <nlohmann/json.hpp>

#include "support/run_command.h"
#include "support/test_scenes.h"

using namespace rsim::test;
using Catch::Matchers::ContainsSubstring;
namespace fs = std::filesystem;

namespace {

const std::string kSource = RSIM_SOURCE_DIR;
std::string q(const fs::path& p) { return "'" + p.string() + "'"; }

// A small AMCW run of the tiny room: two frequencies, 32 x 24 pixels.
void amcwRun(const fs::path& out) {
    const CommandResult r = runRsim("run " + q(kSource + "/scenes/tiny-room/scene.toml") +
                                    " --backend cpu --timesteps 300 --samples 2 -q --no-timeseries --no-k-cache "
                                    "--set sensor.mode=amcw --set 'sensor.modulation_mhz=[20, 50]' "
                                    "--set 'sensor.resolution=[32, 24]' -o " + q(out));
    INFO(r.output);
    REQUIRE(r.exitCode == 0);
}

// Changes value `index` (row-major) of dataset `name` of `file` to change(value, largest magnitude).
template <class Change> void changeValue(const fs::path& file, const char* name, std::size_t index, Change change) {
    const hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    REQUIRE(f >= 0);
    const hid_t ds = H5Dopen2(f, name, H5P_DEFAULT);
    REQUIRE(ds >= 0);
    const hid_t space = H5Dget_space(ds);
    const hssize_t count = H5Sget_simple_extent_npoints(space);
    REQUIRE(count > hssize_t(index));
    std::vector<float> values(std::size_t(count), 0.0f);
    REQUIRE(H5Dread(ds, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()) >= 0);
    float peak = 0.0f;
    for (float v : values)
        if (std::isfinite(v)) peak = std::max(peak, std::abs(v));
    values[index] = change(values[index], peak);
    REQUIRE(H5Dwrite(ds, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()) >= 0);
    H5Sclose(space);
    H5Dclose(ds);
    REQUIRE(H5Fclose(f) >= 0);
}

void removeDataset(const fs::path& file, const char* name) {
    const hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    REQUIRE(f >= 0);
    REQUIRE(H5Ldelete(f, name, H5P_DEFAULT) >= 0);
    REQUIRE(H5Fclose(f) >= 0);
}

// A copy of results directory `from` as `to`.
void copyRun(const fs::path& from, const fs::path& to) { fs::copy(from, to, fs::copy_options::recursive); }

// The line of the report's table for `check`, or "".
std::string rowOf(const std::string& output, const std::string& check) {
    const std::size_t at = output.find("  " + check + " ");
    return at == std::string::npos ? std::string() : output.substr(at, output.find('\n', at) - at);
}

} // namespace

TEST_CASE("compare: two identical AMCW runs agree in every images.h5 dataset", "[compare]") {
    TempDir dir;
    amcwRun(dir / "a");
    amcwRun(dir / "b");
    const CommandResult cmp = runRsim("compare " + q(dir / "a") + " " + q(dir / "b") +
                                      " --tol-m 0 --tol-rel 0 --max-fraction 0 --json " + q(dir / "c.json"));
    CAPTURE(cmp.output);
    CHECK(cmp.exitCode == 0);
    for (const char* name : {"amcw/phasor", "amcw/amplitude", "amcw/phase_rad", "amcw/taps", "amcw/phase_from_taps_rad"})
        CHECK_THAT(rowOf(cmp.output, std::string("images.h5 ") + name), ContainsSubstring("PASS"));
    // Phases are compared as the range they stand for; raw data relative to its peak.
    CHECK_THAT(rowOf(cmp.output, "images.h5 amcw/phase_rad"), ContainsSubstring("m of range"));
    CHECK_THAT(rowOf(cmp.output, "images.h5 amcw/taps"), ContainsSubstring("of peak"));
    const nlohmann::json j = nlohmann::json::parse(readFile(dir / "c.json"));
    CHECK(j["options"]["tol_rel"] == 0.0);
    bool taps = false;
    for (const auto& c : j["checks"])
        if (c["check"] == "images.h5 amcw/taps") {
            taps = true;
            CHECK(c["compared"] == 2 * 24 * 32 * 4); // [F][H][W][K]
            CHECK(c["result"] == "PASS");
        }
    CHECK(taps);
    // --no-images compares none of them.
    const CommandResult none = runRsim("compare " + q(dir / "a") + " " + q(dir / "b") + " --no-images");
    CHECK(none.exitCode == 0);
    CHECK(none.output.find("images.h5 amcw") == std::string::npos);
}

TEST_CASE("compare: a changed value of amcw/taps fails naming it; a phase moved by 2 pi does not", "[compare]") {
    TempDir dir;
    amcwRun(dir / "a");
    copyRun(dir / "a", dir / "taps");
    changeValue(dir / "taps" / "images.h5", "amcw/taps", 100, [](float v, float peak) { return v + 0.5f * peak; });
    const CommandResult cmp = runRsim("compare " + q(dir / "a") + " " + q(dir / "taps") + " --max-fraction 0");
    CAPTURE(cmp.output);
    CHECK(cmp.exitCode == 3);
    CHECK_THAT(rowOf(cmp.output, "images.h5 amcw/taps"), ContainsSubstring("FAIL"));
    CHECK_THAT(cmp.output, ContainsSubstring("images.h5 amcw/taps: 1 of 6144 values beyond 0.001 of peak"));
    CHECK_THAT(rowOf(cmp.output, "images.h5 amcw/phasor"), ContainsSubstring("PASS"));
    // The default --max-fraction lets one value in 6,144 pass (0.1%: 6 may exceed).
    CHECK(runRsim("compare " + q(dir / "a") + " " + q(dir / "taps")).exitCode == 0);

    // Within --tol-rel of the peak: the same.
    copyRun(dir / "a", dir / "close");
    changeValue(dir / "close" / "images.h5", "amcw/taps", 100, [](float v, float peak) { return v + 1e-4f * peak; });
    CHECK(runRsim("compare " + q(dir / "a") + " " + q(dir / "close") + " --max-fraction 0").exitCode == 0);

    // Phases wrap at 2 pi: a phase and the same plus 2 pi agree; half a turn does not.
    copyRun(dir / "a", dir / "turn");
    changeValue(dir / "turn" / "images.h5", "amcw/phase_rad", 7, [](float v, float) { return v + float(2.0 * M_PI); });
    const CommandResult turn = runRsim("compare " + q(dir / "a") + " " + q(dir / "turn") + " --max-fraction 0");
    CAPTURE(turn.output);
    CHECK(turn.exitCode == 0);
    changeValue(dir / "turn" / "images.h5", "amcw/phase_rad", 7, [](float v, float) { return v + float(M_PI); });
    const CommandResult half = runRsim("compare " + q(dir / "a") + " " + q(dir / "turn") + " --max-fraction 0");
    CAPTURE(half.output);
    CHECK(half.exitCode == 3);
    CHECK_THAT(half.output, ContainsSubstring("images.h5 amcw/phase_rad: 1 of 1536 values beyond 0.001 m of range"));

    // NaN against NaN agrees; NaN against a number does not.
    copyRun(dir / "a", dir / "nan1");
    copyRun(dir / "a", dir / "nan2");
    for (const char* side : {"nan1", "nan2"})
        changeValue(dir / side / "images.h5", "amcw/amplitude", 3, [](float, float) { return std::nanf(""); });
    CHECK(runRsim("compare " + q(dir / "nan1") + " " + q(dir / "nan2") + " --max-fraction 0").exitCode == 0);
    const CommandResult nan = runRsim("compare " + q(dir / "a") + " " + q(dir / "nan1") + " --max-fraction 0");
    CAPTURE(nan.output);
    CHECK(nan.exitCode == 3);
    CHECK_THAT(nan.output, ContainsSubstring("images.h5 amcw/amplitude: 1 of 1536 values beyond 0.001 of peak "
                                             "(1 on one side only)"));
}

TEST_CASE("compare: an images.h5 dataset in one directory only fails naming it", "[compare]") {
    TempDir dir;
    amcwRun(dir / "a");
    copyRun(dir / "a", dir / "b");
    removeDataset(dir / "b" / "images.h5", "amcw/taps");
    const CommandResult cmp = runRsim("compare " + q(dir / "a") + " " + q(dir / "b"));
    CAPTURE(cmp.output);
    CHECK(cmp.exitCode == 3);
    CHECK_THAT(rowOf(cmp.output, "images.h5 amcw/taps"), ContainsSubstring("only in A") && ContainsSubstring("FAIL"));
    CHECK_THAT(cmp.output, ContainsSubstring("images.h5 amcw/taps is in A only"));
    // The other way round, and an identical copy passes with nothing allowed.
    const CommandResult back = runRsim("compare " + q(dir / "b") + " " + q(dir / "a"));
    CHECK(back.exitCode == 3);
    CHECK_THAT(back.output, ContainsSubstring("images.h5 amcw/taps is in B only"));
    copyRun(dir / "a", dir / "c");
    CHECK(runRsim("compare " + q(dir / "a") + " " + q(dir / "c") + " --tol-m 0 --max-fraction 0").exitCode == 0);
}

TEST_CASE("compare: two batches' images.h5 are compared pose by pose", "[compare][batch]") {
    TempDir dir;
    writeFile(dir / "poses.csv", "name,x,y,z,look_x,look_y,look_z\nleft,1,1,1.5,4,1.5,1\nright,1,2,1.5,4,1.5,1\n");
    const std::string run = "run " + q(kSource + "/scenes/tiny-room/scene.toml") +
                            " --backend cpu --timesteps 300 --samples 2 -q --no-timeseries --no-k-cache "
                            "--set sensor.mode=amcw --set 'sensor.resolution=[32, 24]' --poses " + q(dir / "poses.csv") +
                            " -o ";
    REQUIRE(runRsim(run + q(dir / "a")).exitCode == 0);
    copyRun(dir / "a", dir / "b");
    CHECK(runRsim("compare " + q(dir / "a") + " " + q(dir / "b") + " --tol-m 0 --max-fraction 0").exitCode == 0);
    changeValue(dir / "b" / "right" / "images.h5", "amcw/taps", 5, [](float v, float peak) { return v + peak; });
    const CommandResult cmp = runRsim("compare " + q(dir / "a") + " " + q(dir / "b") + " --max-fraction 0");
    CAPTURE(cmp.output);
    CHECK(cmp.exitCode == 3);
    CHECK_THAT(cmp.output, ContainsSubstring("right: images.h5 amcw/taps: 1 of 3072 values"));
    CHECK(cmp.output.find("left: images.h5") == std::string::npos);
}
