// SPDX-License-Identifier: MIT
// The CPU's time-stepped transport reads its far pairs from lists made once (transport/
// cpu_far_pairs.h) where they fit the host's memory, else from K decoded block by block: both
// must give the same B and Z bit for bit, for every K format, one pose and several (a pose of a
// batch is bit for bit the pose alone) and a time axis that ends inside a block; and whatever the
// number of threads and the vector instructions of the lists' gather.
#include <cstring>
#include <filesystem>
#include <vector>

#include <catch2/catch_test_macros.hpp>
#include <hdf5.h>

#include "k/host_k.h"
#include "support/run_command.h"
#include "rsim/shared/kformat.h"
#include "support/test_scenes.h"
#include "transport/cpu_far_gather.h"
#include "transport/cpu_transport.h"
#include "util/cpu_isa.h"

using namespace rsim;

TEST_CASE("CPU transport: the far pairs' lists give K decoded block by block's B and Z bit for bit, in every "
          "instruction set",
          "[transport][cpu]") {
    const test::BoxRoom room;
    SimConfig c = makeSimConfig(room.desc);
    REQUIRE(c.timesteps % kCpuTimeBlock != 0); // the last block is short
    const SimulationResult r = test::simulate("cpu", room.scene, c, true);
    const std::uint32_t n = std::uint32_t(room.scene.size());
    const std::size_t T = c.timesteps;
    // A second pose: the first's sources, scaled and shifted by one step.
    std::vector<float> E2(r.E.size(), 0.0f), R2(r.R.size(), 0.0f);
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t t = 1; t < T; ++t) {
            E2[i * T + t] = 0.5f * r.E[i * T + t - 1];
            R2[i * T + t] = 2.0f * r.R[i * T + t - 1];
        }
    for (KFormat f : {KFormat::Fp32, KFormat::Lut8Log, KFormat::Fp16}) {
        CAPTURE(kFormatInfo(f).name);
        // Three chunks, each a few tiles of 64 rows.
        const std::uint64_t rows = n / 3 + 1;
        const KChunking ch = KChunking::forBudget(n, f, rows * n * shared::rsimKBits(kFormatInfo(f).storage) / 8);
        REQUIRE(ch.chunks() == 3);
        HostK K(ch);
        for (std::uint32_t i = 0; i < n; ++i)
            for (std::uint32_t j = 0; j < n; ++j) K.store(i, j, r.K[std::size_t(i) * n + j]);
        for (std::uint32_t k = 0; k < ch.chunks(); ++k) K.encodeChunkAs(k, f);
        K.finishEncoding(f);
        std::vector<float> b1, z1, b2, z2, b0, z0;
        runTransportCpu(room.scene, &K, {{&c, &r.E, &r.R, &b1, &z1}, {&c, &E2, &R2, &b2, &z2}}, nullptr, nullptr,
                        std::uint64_t(0)); // no room for the lists: K decoded
        runTransportCpu(room.scene, &K, {{&c, &r.E, &r.R, &b0, &z0}}, nullptr, nullptr, std::uint64_t(0));
        // The listed gather in each instruction set the machine runs (util/cpu_isa.h); one pose
        // alone takes its own loop.
        std::vector<float> B1, Z1, B2, Z2, B0, Z0;
        for (CpuIsa isa : cpuIsasOfMachine()) {
            CAPTURE(cpuIsaName(isa));
            setCpuIsaLimit(isa);
            REQUIRE(cpuIsa() == isa);
            runTransportCpu(room.scene, &K, {{&c, &r.E, &r.R, &B1, &Z1}, {&c, &E2, &R2, &B2, &Z2}});
            runTransportCpu(room.scene, &K, {{&c, &r.E, &r.R, &B0, &Z0}});
            setCpuIsaLimit(CpuIsa::X86_64_V4);
            for (const auto& [listed, decoded] : {std::pair{&B1, &b1}, {&Z1, &z1}, {&B2, &b2}, {&Z2, &z2}, {&B0, &b0},
                                                  {&Z0, &z0}, {&B0, &B1}, {&Z0, &Z1}}) {
                REQUIRE(listed->size() == std::size_t(n) * T);
                REQUIRE(decoded->size() == listed->size());
                CHECK(std::memcmp(listed->data(), decoded->data(), listed->size() * sizeof(float)) == 0);
            }
        }
        // Not trivially equal: light arrives late (after the near steps) in both poses.
        double late = 0.0;
        for (std::size_t i = 0; i < n; ++i) late += B1[i * T + T - 1] - r.E[i * T + T - 1];
        CHECK(late > 0.0);
    }
}

namespace {

// Dataset `name` (float32) of an HDF5 file, whole.
std::vector<float> readFloats(const std::filesystem::path& file, const char* name) {
    const hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    REQUIRE(f >= 0);
    const hid_t ds = H5Dopen2(f, name, H5P_DEFAULT);
    REQUIRE(ds >= 0);
    const hid_t space = H5Dget_space(ds);
    std::vector<float> v(std::size_t(H5Sget_simple_extent_npoints(space)));
    H5Sclose(space);
    const herr_t read = H5Dread(ds, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data());
    H5Dclose(ds);
    H5Fclose(f);
    REQUIRE(read >= 0);
    return v;
}

} // namespace

// The receivers' tiles shrink when there are many threads and few triangles (every worker has
// tiles): they group the rows only, so B and Z do not depend on the thread count.
TEST_CASE("CPU transport: one thread and sixteen give the same B and Z bit for bit", "[transport][cpu]") {
    const test::TempDir dir;
    const std::string scene = std::string(RSIM_SOURCE_DIR) + "/scenes/tiny-room/scene.toml";
    for (const char* threads : {"1", "16"}) {
        const auto r = test::runRsim(std::string("--threads ") + threads + " run '" + scene + "' --backend cpu " +
                                     "--no-k-cache --timesteps 300 -q --no-progress --output '" +
                                     (dir / threads).string() + "'");
        CAPTURE(r.output);
        REQUIRE(r.exitCode == 0);
    }
    for (const char* name : {"/B", "/Z"}) {
        CAPTURE(name);
        const std::vector<float> one = readFloats(dir / "1" / "timeseries.h5", name);
        const std::vector<float> many = readFloats(dir / "16" / "timeseries.h5", name);
        REQUIRE(one.size() == many.size());
        CHECK(!one.empty());
        CHECK(std::memcmp(one.data(), many.data(), one.size() * sizeof(float)) == 0);
    }
}

TEST_CASE("CPU visibility and transport give the same K, B and Z bit for bit in every instruction set",
          "[transport][cpu]") {
    // The samples' formulas and the far gather are compiled for x86-64-v3 and -v4 beside the
    // baseline (util/cpu_isa.h); -ffp-contract=off keeps every product and sum rounded as there.
    const test::BoxRoom room;
    SimConfig c = makeSimConfig(room.desc);
    c.k.format = KFormat::Fp32; // a code of 8 bits would hide a last bit
    std::vector<SimulationResult> runs;
    for (CpuIsa isa : cpuIsasOfMachine()) {
        setCpuIsaLimit(isa);
        runs.push_back(test::simulate("cpu", room.scene, c, true));
    }
    setCpuIsaLimit(CpuIsa::X86_64_V4);
    REQUIRE(!runs.empty());
    REQUIRE(!runs[0].K.empty());
    for (std::size_t x = 1; x < runs.size(); ++x) {
        CAPTURE(cpuIsaName(cpuIsasOfMachine()[x]));
        REQUIRE(runs[x].K.size() == runs[0].K.size());
        REQUIRE(runs[x].B.size() == runs[0].B.size());
        REQUIRE(runs[x].Z.size() == runs[0].Z.size());
        CHECK(std::memcmp(runs[x].K.data(), runs[0].K.data(), runs[0].K.size() * sizeof(float)) == 0);
        CHECK(std::memcmp(runs[x].B.data(), runs[0].B.data(), runs[0].B.size() * sizeof(float)) == 0);
        CHECK(std::memcmp(runs[x].Z.data(), runs[0].Z.data(), runs[0].Z.size() * sizeof(float)) == 0);
    }
}
