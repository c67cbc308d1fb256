// SPDX-License-Identifier: MIT
// K stored as segments (issue 63, k/k_segments.h): the same values as K stored dense in every
// format, the same non-zero elements in the same order for the CPU's sums, through the K cache,
// and a run whose K is stored as segments writes what the dense run writes, bit for bit.
#include <bit>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <random>
#include <tuple>
#include <vector>

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include "k/host_k.h"
#include "k/k_cache.h"
#include "k/k_layout_choice.h"
#include "k/k_rows.h"
#include "support/run_command.h"
#include "support/test_scenes.h"

using namespace rsim;
using namespace rsim::test;
using Catch::Matchers::ContainsSubstring;

namespace {

// An n x n K in `format`, in chunks of `rowsPerChunk` rows (not a multiple of 32, so that the
// last tile of a chunk is partial), with about `zeros` of its elements zero and whole runs of
// zeros and non-zeros along rows (the structure that segments keep).
HostK randomK(std::uint32_t n, std::uint32_t rowsPerChunk, KFormat format, double zeros, unsigned seed) {
    HostK K(KChunking{n, rowsPerChunk, KFormat::Fp32});
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> value(1e-6f, 0.3f);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    for (std::uint32_t j = 0; j < n; ++j) {
        const bool sparseColumn = u(rng) < zeros;
        for (std::uint32_t i = 0; i < n; ++i)
            if (i != j && u(rng) >= (sparseColumn ? 0.97 : 0.3)) K.store(i, j, value(rng));
    }
    K.compress(format);
    return K;
}

using Element = std::tuple<std::uint32_t, std::uint32_t, float>;
std::vector<Element> elementsOf(const HostK& K, std::uint32_t c, std::uint32_t a, std::uint32_t b) {
    std::vector<Element> out;
    forEachNonzero(K, c, a, b, [&](std::uint32_t j, std::uint32_t r, float k) { out.emplace_back(j, r, k); });
    return out;
}

} // namespace

TEST_CASE("K stored as segments holds the values of K stored dense, in every format", "[k][segments]") {
    for (const KFormat format :
         {KFormat::Fp32, KFormat::Fp16, KFormat::Lut8Log, KFormat::Lut8Range, KFormat::Lut4Log, KFormat::Lut4Range}) {
        INFO(kFormatInfo(format).name);
        const HostK dense = randomK(150, 70, format, 0.8, 7);
        HostK seg = dense;
        seg.toLayout(KLayout::Segments);
        REQUIRE(seg.layout() == KLayout::Segments);
        REQUIRE(seg.chunkCount() == 3);
        const KLayoutSizes sizes = layoutSizes(dense);
        CHECK(seg.segmentCount() == sizes.segments);
        CHECK(seg.storedBytes() == sizes.segmentBytes);
        CHECK(seg.storedBytes() < dense.storedBytes());
        std::uint64_t nonzero = 0;
        for (std::uint32_t i = 0; i < dense.size(); ++i)
            for (std::uint32_t j = 0; j < dense.size(); ++j) {
                const float d = dense.get(i, j), s = seg.get(i, j);
                nonzero += d != 0.0f;
                if (std::bit_cast<std::uint32_t>(d) != std::bit_cast<std::uint32_t>(s)) {
                    FAIL_CHECK("K(" << i << ", " << j << "): dense " << d << ", as segments " << s);
                    return;
                }
            }
        std::uint64_t values = 0;
        for (std::uint32_t c = 0; c < seg.chunkCount(); ++c) values += seg.segments(c).values;
        CHECK(values == nonzero);
        CHECK(seg.decodeAll() == dense.decodeAll());
        CHECK(seg.sumSquaredError() == dense.sumSquaredError());
        // And dense again: the very words it came from.
        HostK back = seg;
        back.toLayout(KLayout::Dense);
        for (std::uint32_t c = 0; c < dense.chunkCount(); ++c) {
            CHECK(back.chunk(c).words == dense.chunk(c).words);
            CHECK(back.chunk(c).table == dense.chunk(c).table);
        }
    }
}

TEST_CASE("the CPU's sums see the same non-zero elements in the same order in either layout", "[k][segments]") {
    const HostK dense = randomK(300, 260, KFormat::Lut8Log, 0.7, 11);
    HostK seg = dense;
    seg.toLayout(KLayout::Segments);
    std::mt19937 rng(3);
    // Row ranges of every kind: whole chunks' tiles, ranges across tile boundaries, a single
    // row, the chunk's partial last tile, up to the 256 rows a CPU tile may have.
    std::vector<std::pair<std::uint32_t, std::uint32_t>> ranges{{0, 32}, {0, 256}, {5, 6}, {31, 33}, {224, 260},
                                                                {250, 260}, {0, 40}, {17, 200}};
    for (int x = 0; x < 40; ++x) {
        const std::uint32_t a = rng() % 259, len = 1 + rng() % 256;
        ranges.emplace_back(a, std::min<std::uint32_t>(260, a + len));
    }
    for (const auto& [a, b] : ranges) {
        INFO("rows " << a << " to " << b);
        const auto d = elementsOf(dense, 0, a, b);
        REQUIRE(!d.empty());
        CHECK(elementsOf(seg, 0, a, b) == d);
    }
    // The second chunk (40 rows: one whole tile and a partial one).
    CHECK(elementsOf(seg, 1, 0, 40) == elementsOf(dense, 1, 0, 40));
    CHECK(elementsOf(seg, 1, 3, 37) == elementsOf(dense, 1, 3, 37));
}

TEST_CASE("auto stores K as segments where they save a quarter of its bytes", "[k][segments]") {
    const HostK sparse = randomK(200, 200, KFormat::Lut8Log, 0.9, 5);
    const HostK full = randomK(200, 200, KFormat::Lut8Log, 0.0, 5);
    CHECK(chooseKLayout(KLayout::Auto, sparse, nullptr) == KLayout::Segments);
    CHECK(chooseKLayout(KLayout::Auto, full, nullptr) == KLayout::Dense);
    CHECK(chooseKLayout(KLayout::Dense, sparse, nullptr) == KLayout::Dense);
    CHECK(chooseKLayout(KLayout::Segments, full, nullptr) == KLayout::Segments);
}

TEST_CASE("the K cache stores and gives back K as segments, and refuses it damaged", "[k][segments][kcache]") {
    TempDir dir;
    HostK K = randomK(120, 50, KFormat::Lut8Log, 0.8, 9);
    const HostK dense = K;
    K.toLayout(KLayout::Segments);
    const KCache cache(dir.path(), 1ull << 30);
    KStorageReport storage;
    noteKLayout(K, storage);
    CHECK(storage.layout == "segments");
    CHECK(storage.bytes == K.storedBytes());
    const std::string key(32, 'a');
    cache.store(key, K, VisibilityStats{}, storage);
    auto back = cache.load(key, K.chunking());
    REQUIRE(back);
    CHECK(back->K.layout() == KLayout::Segments);
    CHECK(back->storage.layout == "segments");
    CHECK(back->storage.segments == K.segmentCount());
    CHECK(back->K.decodeAll() == dense.decodeAll());
    // Segments of wrong content are refused by their own checks (a file whose checksums were
    // made for them would reach these); a flipped byte anywhere by the checksum.
    const SegmentChunk& good = K.segments(0);
    CHECK(segmentsSound(good, K.size(), K.chunking().storage()));
    REQUIRE(good.segmentCount() > 2);
    for (int damage = 0; damage < 4; ++damage) {
        SegmentChunk bad = good;
        if (damage == 0) bad.segments[0] = K.size();                 // a column past n
        if (damage == 1) bad.segments[2 + 3] += 1;                   // a first value off its word
        if (damage == 2) bad.tileStart[1] = bad.segmentCount() + 1;  // a tile past the segments
        if (damage == 3) bad.words.pop_back();                       // values missing
        CHECK(!segmentsSound(bad, K.size(), K.chunking().storage()));
    }
    const auto file = cache.fileOf(key);
    const auto size = std::filesystem::file_size(file);
    {
        std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
        f.seekg(std::streamoff(size / 2));
        char c = 0;
        f.get(c);
        f.seekp(std::streamoff(size / 2));
        f.put(char(c ^ 0x40));
    }
    CHECK(!cache.load(key, K.chunking()));
}

TEST_CASE("a run with K stored as segments writes what the dense run writes, bit for bit", "[k][segments][cli]") {
    TempDir dir;
    const std::string scene = std::string(RSIM_SOURCE_DIR) + "/scenes/tiny-room/scene.toml";
    const std::string common = "run " + scene + " --backend cpu --timesteps 300 --samples 4 --no-progress --no-k-cache ";
    for (const char* transport : {"radiosity", "phasors"}) {
        INFO(transport);
        const std::string mode = std::string(transport) == "phasors"
                                     ? "--set 'sensor.mode=\"amcw\"' --set 'simulation.transport=\"phasors\"' --no-timeseries "
                                     : "";
        const auto a = dir / (std::string(transport) + "-dense"), b = dir / (std::string(transport) + "-segments");
        REQUIRE(runRsim(common + mode + "--set 'simulation.k_layout=\"dense\"' -o " + a.string()).exitCode == 0);
        const auto seg = runRsim(common + mode + "--set 'simulation.k_layout=\"segments\"' -o " + b.string());
        REQUIRE(seg.exitCode == 0);
        CHECK_THAT(readFile(a / "summary.json"), ContainsSubstring("\"k_stored_as\": \"dense\""));
        CHECK_THAT(readFile(b / "summary.json"), ContainsSubstring("\"k_stored_as\": \"segments\""));
        CHECK_THAT(readFile(b / "summary.json"), ContainsSubstring("\"k_segments\":"));
        const auto cmp =
            runRsim("compare " + a.string() + " " + b.string() + " --tol-m 0 --max-fraction 0 --tol-rel 0");
        CHECK(cmp.exitCode == 0);
        CHECK_THAT(cmp.output, ContainsSubstring("rsim compare: PASS"));
        CHECK(readFile(a / "triangles.csv") == readFile(b / "triangles.csv"));
    }
}

TEST_CASE("the Vulkan radiosity reads K stored as segments and writes what dense K gives", "[k][segments][vulkan]") {
    if (vulkanPathsAvailable().empty()) SKIP("no Vulkan device with ray tracing");
    TempDir dir;
    const std::string scene = std::string(RSIM_SOURCE_DIR) + "/scenes/tiny-room/scene.toml";
    // --host-rays never: the GPU computes K (a small scene's would otherwise go to the CPU).
    const std::string common = "run " + scene + " --backend vulkan --validation --samples 4 --timesteps 300 "
                               "--no-progress --host-rays never ";
    const std::string poses = (dir / "poses.csv").string();
    writeFile(dir / "poses.csv", "name,x,y,z,look_x,look_y,look_z\na,0.25,1.52,1.5,4.0,1.5,1.0\nb,0.8,1.8,1.6,4.0,2.0,0.8\n");
    for (const std::string& batch : {std::string(), "--poses " + poses + " "}) {
        INFO(batch);
        const auto a = dir / ("dense" + std::to_string(batch.size())), b = dir / ("seg" + std::to_string(batch.size()));
        REQUIRE(runRsim(common + batch + "--no-k-cache --set 'simulation.k_layout=\"dense\"' -o " + a.string()).exitCode == 0);
        // With the K cache: K made segments on the device is copied back to be stored.
        const auto seg = runRsim(common + batch + "--k-cache " + (dir / "cache").string() +
                                 " --set 'simulation.k_layout=\"segments\"' -o " + b.string());
        REQUIRE(seg.exitCode == 0);
        CHECK_THAT(seg.output, ContainsSubstring("Vulkan validation: 0 error(s)"));
        CHECK_THAT(readFile(b / "summary.json"), ContainsSubstring("\"k_stored_as\": \"segments\""));
        const auto cmp = runRsim("compare " + a.string() + " " + b.string() + " --tol-m 1e-6 --max-fraction 0");
        CHECK(cmp.exitCode == 0);
        CHECK_THAT(cmp.output, ContainsSubstring("rsim compare: PASS"));
    }
    // The far gather staging the segments in shared memory (four slices, so that a stage holds
    // several rounds of each) adds the same sums in the same order as without.
    const std::string split = common + "--no-k-cache --radiosity-split 4 --set 'simulation.k_layout=\"segments\"' ";
    REQUIRE(runRsim(split + "-o " + (dir / "unstaged").string()).exitCode == 0);
    const auto staged = runRsim(split + "--set tuning.radiosity_staged=true -o " + (dir / "staged").string());
    REQUIRE(staged.exitCode == 0);
    CHECK_THAT(staged.output, ContainsSubstring("Vulkan validation: 0 error(s)"));
    CHECK(runRsim("compare " + (dir / "unstaged").string() + " " + (dir / "staged").string() +
                  " --tol-m 0 --max-fraction 0 --tol-rel 0").exitCode == 0);
    // Two devices (two slots of one) each make their own chunks segments; a streamed K streams
    // them from host memory.
    // (32 chunks, each with its own table: the dense run to compare with is chunked alike.)
    const std::string twoDevices = common + "--no-k-cache --devices 0,0 --chunk-mb 0.01 ";
    REQUIRE(runRsim(twoDevices + "--set 'simulation.k_layout=\"dense\"' -o " + (dir / "two-dense").string()).exitCode == 0);
    const auto two = runRsim(twoDevices + "--set 'simulation.k_layout=\"segments\"' -o " + (dir / "two").string());
    REQUIRE(two.exitCode == 0);
    CHECK_THAT(two.output, ContainsSubstring("made on the devices"));
    CHECK_THAT(readFile(dir / "two" / "summary.json"), ContainsSubstring("\"k_stored_as\": \"segments\""));
    CHECK(runRsim("compare " + (dir / "two-dense").string() + " " + (dir / "two").string() +
                  " --tol-m 1e-6 --max-fraction 0").exitCode == 0);
    const auto streamed = runRsim(common + "--no-k-cache --stream always --set 'simulation.k_layout=\"segments\"' -o " +
                                  (dir / "streamed").string());
    REQUIRE(streamed.exitCode == 0);
    CHECK_THAT(readFile(dir / "streamed" / "summary.json"), ContainsSubstring("\"k_stored_as\": \"segments\""));
    CHECK(runRsim("compare " + (dir / "dense0").string() + " " + (dir / "streamed").string() +
                  " --tol-m 1e-6 --max-fraction 0").exitCode == 0);
    // The cache holds K as segments; a dense run from it is the dense run.
    const auto again = runRsim(common + "--k-cache " + (dir / "cache").string() +
                               " --set 'simulation.k_layout=\"dense\"' -o " + (dir / "from-cache").string());
    REQUIRE(again.exitCode == 0);
    CHECK_THAT(again.output, ContainsSubstring("read from"));
    CHECK(runRsim("compare " + (dir / "dense0").string() + " " + (dir / "from-cache").string() +
                  " --tol-m 1e-6 --max-fraction 0").exitCode == 0);
    // The phasor gathers read K stored as segments too (10 um: the iteration stops at its
    // tolerance, and the sums' other order moves where it stops).
    const std::string phasors = common + "--no-k-cache --no-timeseries --set 'sensor.mode=\"amcw\"' "
                                         "--set 'simulation.transport=\"phasors\"' ";
    REQUIRE(runRsim(phasors + "--set 'simulation.k_layout=\"dense\"' -o " + (dir / "ph-dense").string()).exitCode == 0);
    REQUIRE(runRsim(phasors + "--set 'simulation.k_layout=\"segments\"' -o " + (dir / "ph").string()).exitCode == 0);
    CHECK_THAT(readFile(dir / "ph" / "summary.json"), ContainsSubstring("\"k_stored_as\": \"segments\""));
    CHECK(runRsim("compare " + (dir / "ph-dense").string() + " " + (dir / "ph").string() + " --tol-m 1e-5").exitCode == 0);
}
