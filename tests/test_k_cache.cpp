// SPDX-License-Identifier: MIT
// The K cache (issue 14): a stored K comes back bit for bit with its diagnostics; a damaged,
// truncated or mismatching file is ignored (and K recomputed), never used; a run from the
// cache writes what the run that stored it wrote.
#include <cstring>
#include <fstream>
#include <iomanip>
#include <sstream>

#include <nlohmann/json.hpp>

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include "k/k_cache.h"
#include "pipeline/host_rays.h"
#include "support/run_command.h"
#include "support/test_scenes.h"

using namespace rsim;
using namespace rsim::test;
using Catch::Matchers::ContainsSubstring;

namespace {

PreparedScene box(double height) {
    SceneBuilder b;
    auto wall = b.material("wall", 0.6f);
    b.roomShell({0, 0, 0}, {2.0, 1.5, height}, 2, wall);
    return b.prepare();
}

// A lut8 K of `s` in chunks of about 4 KiB (several chunks), with made-up values.
HostK someK(const PreparedScene& s) {
    HostK K(KChunking::forBudget(std::uint32_t(s.size()), KFormat::Fp32, 4096));
    for (std::uint32_t i = 0; i < K.size(); ++i)
        for (std::uint32_t j = 0; j < K.size(); ++j)
            if (i != j) K.store(i, j, float((i * 7 + j * 13) % 97) * 1e-3f);
    K.compress(KFormat::Lut8Log);
    return K;
}

bool sameK(const HostK& a, const HostK& b) {
    if (a.chunkCount() != b.chunkCount() || a.format() != b.format()) return false;
    for (std::uint32_t c = 0; c < a.chunkCount(); ++c)
        if (a.chunk(c).words != b.chunk(c).words || a.chunk(c).table != b.chunk(c).table) return false;
    return true;
}

void flipByte(const std::filesystem::path& file, std::uint64_t offset) {
    std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
    f.seekg(std::streamoff(offset));
    char c = 0;
    f.get(c);
    f.seekp(std::streamoff(offset));
    f.put(char(c ^ 0x10));
}

} // namespace

TEST_CASE("the K cache gives back what it stored and nothing it cannot vouch for", "[kcache]") {
    TempDir dir;
    const PreparedScene s = box(1.2);
    const HostK K = someK(s);
    KSettings settings;
    settings.format = KFormat::Lut8Log;
    const std::string key = KCache::key(s, settings, K.chunking(), "cpu/embree");
    REQUIRE(K.chunkCount() > 2);
    VisibilityStats stats;
    stats.raysCast = 12345;
    stats.maxRowSum = 0.987;
    KStorageReport storage;
    storage.bytes = K.chunking().bytes();
    storage.rmsError = 0.25;
    const KCache cache(dir.path(), 1ull << 30);
    cache.store(key, K, stats, storage);
    const auto file = cache.fileOf(key);
    REQUIRE(std::filesystem::is_regular_file(file));

    SECTION("stored and loaded, bit for bit") {
        const auto back = cache.load(key, K.chunking());
        REQUIRE(back);
        CHECK(sameK(K, back->K));
        CHECK(back->stats.raysCast == 12345);
        CHECK(back->stats.maxRowSum == 0.987);
        CHECK(back->storage.rmsError == 0.25);
        CHECK(back->storage.format == "lut8-log");
    }
    SECTION("a flipped byte anywhere is caught") {
        const auto size = std::filesystem::file_size(file);
        for (std::uint64_t offset : {std::uint64_t(3), std::uint64_t(60), size / 2, size - 1}) {
            INFO("byte " << offset << " of " << size);
            flipByte(file, offset);
            CHECK(!cache.load(key, K.chunking()));
            flipByte(file, offset); // back as it was
            CHECK(cache.load(key, K.chunking()));
        }
    }
    SECTION("a truncated file is caught") {
        std::filesystem::resize_file(file, std::filesystem::file_size(file) - 5);
        CHECK(!cache.load(key, K.chunking()));
        std::filesystem::resize_file(file, 40);
        CHECK(!cache.load(key, K.chunking()));
    }
    SECTION("another scene, setting or backend has another key") {
        PreparedScene moved = s;
        moved.v1[3].x += 1e-6f;
        CHECK(KCache::key(moved, settings, K.chunking(), "cpu/embree") != key);
        KSettings more = settings;
        more.samples = 32;
        CHECK(KCache::key(s, more, K.chunking(), "cpu/embree") != key);
        CHECK(KCache::key(s, settings, K.chunking(), "vulkan/pipeline") != key);
        CHECK(KCache::key(s, settings, K.chunking().as(KFormat::Fp32), "cpu/embree") == key); // chunking by rows
        // A file renamed to another key is not that key's K.
        std::filesystem::copy_file(file, cache.fileOf(KCache::key(moved, settings, K.chunking(), "cpu/embree")));
        CHECK(!cache.load(KCache::key(moved, settings, K.chunking(), "cpu/embree"), K.chunking()));
    }
    SECTION("the cache keeps to its size, dropping the least recently used") {
        const auto bytes = std::filesystem::file_size(file);
        const KCache small(dir.path(), bytes + bytes / 2);
        KSettings other = settings;
        other.seed = 2;
        const std::string key2 = KCache::key(s, other, K.chunking(), "cpu/embree");
        small.store(key2, K, stats, storage);
        CHECK(std::filesystem::exists(small.fileOf(key2)));
        CHECK(!std::filesystem::exists(file));
    }
}

TEST_CASE("a run with K from the cache writes what the run that stored K wrote", "[kcache][cli]") {
    TempDir dir;
    const std::string scene = std::string(RSIM_SOURCE_DIR) + "/scenes/tiny-room/scene.toml";
    const std::string common = "run " + scene + " --backend cpu --timesteps 300 --samples 4 --no-progress --k-cache " +
                               (dir / "cache").string() + " -o ";
    const auto first = runRsim(common + (dir / "a").string());
    REQUIRE(first.exitCode == 0);
    CHECK_THAT(first.output, ContainsSubstring("K cache: stored K"));
    const auto second = runRsim(common + (dir / "b").string());
    REQUIRE(second.exitCode == 0);
    CHECK_THAT(second.output, ContainsSubstring("read from"));
    CHECK_THAT(readFile(dir / "a" / "summary.json"), ContainsSubstring("\"k_from_cache\": false"));
    CHECK_THAT(readFile(dir / "b" / "summary.json"), ContainsSubstring("\"k_from_cache\": true"));
    CHECK(readFile(dir / "a" / "triangles.csv") == readFile(dir / "b" / "triangles.csv"));
    CHECK(readFile(dir / "a" / "depth.pfm") == readFile(dir / "b" / "depth.pfm"));

    // Damaged: a warning, K recomputed, the same results, and the file stored afresh.
    for (const auto& e : std::filesystem::directory_iterator(dir / "cache"))
        flipByte(e.path(), std::filesystem::file_size(e.path()) / 2);
    const auto third = runRsim(common + (dir / "c").string());
    REQUIRE(third.exitCode == 0);
    CHECK_THAT(third.output, ContainsSubstring("is damaged (checksum)"));
    CHECK_THAT(third.output, ContainsSubstring("K cache: stored K"));
    CHECK(readFile(dir / "a" / "triangles.csv") == readFile(dir / "c" / "triangles.csv"));

    // A batch reads it too, and each pose says so.
    writeFile(dir / "poses.csv", "name,x,y,z,look_x,look_y,look_z\nfront,0.25,1.52,1.5,4.0,1.5,1.0\n");
    const auto batch = runRsim(common + (dir / "batch").string() + " --poses " + (dir / "poses.csv").string());
    REQUIRE(batch.exitCode == 0);
    CHECK_THAT(readFile(dir / "batch" / "summary.json"), ContainsSubstring("\"k_from_cache\": true"));
    CHECK_THAT(readFile(dir / "batch" / "front" / "summary.json"), ContainsSubstring("\"k_from_cache\": true"));

    // --no-k-cache neither reads nor stores.
    const auto off = runRsim("run " + scene + " --backend cpu --timesteps 300 --samples 4 --no-progress --no-k-cache -o " +
                             (dir / "d").string());
    CHECK(off.exitCode == 0);
    CHECK_THAT(off.output, !ContainsSubstring("K cache"));
}

TEST_CASE("the K cache works on the Vulkan backend", "[kcache][vulkan]") {
    const auto paths = vulkanPathsAvailable();
    if (paths.empty()) SKIP("no Vulkan device with ray tracing");
    TempDir dir;
    const std::string scene = std::string(RSIM_SOURCE_DIR) + "/scenes/tiny-room/scene.toml";
    // --host-rays never: the GPU casts the direct terms' and the image's rays, as when K was stored.
    const std::string common = "run " + scene + " --backend vulkan --timesteps 300 --samples 4 --no-progress " +
                               "--host-rays never --k-cache " + (dir / "cache").string() + " -o ";
    REQUIRE(runRsim(common + (dir / "a").string()).exitCode == 0);
    const auto second = runRsim(common + (dir / "b").string());
    REQUIRE(second.exitCode == 0);
    CHECK_THAT(second.output, ContainsSubstring("read from"));
    CHECK_THAT(readFile(dir / "b" / "summary.json"), ContainsSubstring("\"cpu_phases\": []"));
    CHECK(readFile(dir / "a" / "triangles.csv") == readFile(dir / "b" / "triangles.csv"));
    CHECK(readFile(dir / "a" / "depth.pfm") == readFile(dir / "b" / "depth.pfm"));
    // K from the cache is placed on the device in a phase of its own, before the transport's,
    // for the time-stepped transport and the phasors alike; `total` is the phases' sum.
    const auto phasors = runRsim(common + (dir / "ph").string() + " --no-timeseries --set 'sensor.mode=\"amcw\"' " +
                                 "--set 'simulation.transport=\"phasors\"'");
    REQUIRE(phasors.exitCode == 0);
    for (const char* run : {"a", "b", "ph"}) {
        CAPTURE(run);
        const auto t = nlohmann::json::parse(readFile(dir / run / "summary.json"))["timings_s"];
        CHECK(t.contains("k_placement") == (std::string(run) != "a")); // "a" computed K on the device
        double sum = 0.0;
        for (const auto& [phase, seconds] : t.items())
            if (phase != "total") sum += seconds.get<double>();
        CHECK(std::abs(sum - t["total"].get<double>()) <= 1e-6 * (1.0 + sum));
    }
    // A CPU run does not take the Vulkan run's K: its own K reproduces its own results.
    const auto cpu = runRsim("run " + scene + " --backend cpu --timesteps 300 --samples 4 --no-progress --k-cache " +
                             (dir / "cache").string() + " -o " + (dir / "c").string());
    CHECK_THAT(cpu.output, ContainsSubstring("K cache: stored K"));
}

TEST_CASE("K's rays stay within the bound by which a small scene's K goes to the CPU", "[kcache]") {
    // pipeline/host_rays.h leaves K to the CPU when kRaysBound is few for its threads: the bound
    // must hold from above, without being too loose to tell a small scene from a large one.
    SceneBuilder b;
    auto wall = b.material("wall", 0.6f);
    b.roomShell({0, 0, 0}, {4.0, 3.0, 2.5}, 3, wall);
    b.box({1.5, 1.0, 0.0}, {2.3, 1.8, 0.9}, 1, wall);
    const PreparedScene s = b.prepare(0.8);
    SimConfig c = makeSimConfig(basicScene({0.3, 1.5, 1.2}, {4.0, 1.5, 1.2}));
    c.timesteps = 50;
    const SimulationResult r = simulate("cpu", s, c);
    const std::uint64_t bound = kRaysBound(s.size(), c.k);
    CAPTURE(s.size(), r.visibility.raysCast, bound);
    CHECK(r.visibility.raysCast <= bound);
    CHECK(r.visibility.raysCast * 3 > bound);
    CHECK(fewHostKRays(bound, std::uint32_t(bound / 400'000 + 1)));
    CHECK_FALSE(fewHostKRays(bound, std::uint32_t(bound / 400'000 / 2)));
}

TEST_CASE("with K from the cache, the CPU may cast the other rays for a GPU without ray tracing", "[kcache][vulkan]") {
    const auto paths = vulkanPathsAvailable();
    if (paths.empty()) SKIP("no Vulkan device with ray tracing");
    TempDir dir;
    const std::string scene = std::string(RSIM_SOURCE_DIR) + "/scenes/tiny-room/scene.toml";
    const std::string common = "run " + scene + " --backend vulkan --timesteps 300 --samples 4 --no-progress --k-cache " +
                               (dir / "cache").string() + " --log-level debug -o ";
    // --host-rays never: every ray is the GPU's, and its K is stored.
    const auto stored = runRsim(common + (dir / "a").string() + " --host-rays never");
    REQUIRE(stored.exitCode == 0);
    CHECK_THAT(stored.output, !ContainsSubstring("without ray tracing"));
    CHECK_THAT(stored.output, ContainsSubstring("K cache: stored K"));
    CHECK_THAT(readFile(dir / "a" / "summary.json"), ContainsSubstring("\"cpu_phases\": []"));

    const auto cached = runRsim(common + (dir / "b").string() + " --host-rays always --validation");
    REQUIRE(cached.exitCode == 0);
    CHECK_THAT(cached.output, ContainsSubstring("Vulkan validation: 0 error(s)"));
    CHECK_THAT(cached.output, ContainsSubstring("while the devices were created"));
    CHECK_THAT(cached.output, ContainsSubstring("without ray tracing, compute family")); // the device's debug line
    const std::string summary = readFile(dir / "b" / "summary.json");
    CHECK_THAT(summary, ContainsSubstring("\"k_from_cache\": true"));
    CHECK_THAT(summary, ContainsSubstring("\"backend\": \"vulkan\""));
    CHECK_THAT(summary, ContainsSubstring("\"direct\",\n    \"primary rays\""));
    // The same K; direct terms and image from the CPU: the run that stored K within compare's tolerances.
    const auto same = runRsim("compare " + (dir / "a").string() + " " + (dir / "b").string());
    CHECK(same.exitCode == 0);
    CHECK_THAT(same.output, ContainsSubstring("rsim compare: PASS"));

    // A file that looked sound but is damaged inside: one warning; with --host-rays never, K
    // computed on a device with ray tracing, the results of the first run, and the file stored
    // afresh.
    for (const auto& e : std::filesystem::directory_iterator(dir / "cache"))
        flipByte(e.path(), std::filesystem::file_size(e.path()) / 2);
    const auto damaged = runRsim(common + (dir / "c").string() + " --host-rays never");
    REQUIRE(damaged.exitCode == 0);
    const std::string warning = "is damaged (checksum)";
    const auto at = damaged.output.find(warning);
    CHECK(at != std::string::npos);
    CHECK(damaged.output.find(warning, at + 1) == std::string::npos);
    CHECK_THAT(damaged.output, ContainsSubstring("K cache: stored K"));
    CHECK_THAT(readFile(dir / "c" / "summary.json"), ContainsSubstring("\"k_from_cache\": false"));
    CHECK(readFile(dir / "a" / "triangles.csv") == readFile(dir / "c" / "triangles.csv"));

    // K not in the cache (damaged again; then no cache at all): with --host-rays always the CPU
    // computes K while the GPU is created without ray tracing; the damage is reported once, the
    // CPU's K is not stored, and the results are the GPU's within compare's tolerances.
    for (const auto& e : std::filesystem::directory_iterator(dir / "cache"))
        flipByte(e.path(), std::filesystem::file_size(e.path()) / 2);
    const auto onCpu = runRsim(common + (dir / "f").string() + " --host-rays always --validation");
    REQUIRE(onCpu.exitCode == 0);
    const auto first = onCpu.output.find(warning);
    CHECK(first != std::string::npos);
    CHECK(onCpu.output.find(warning, first + 1) == std::string::npos);
    CHECK_THAT(onCpu.output, ContainsSubstring("the CPU computes K while the GPU is created without ray tracing"));
    CHECK_THAT(onCpu.output, ContainsSubstring("without ray tracing, compute family"));
    CHECK_THAT(onCpu.output, ContainsSubstring("Vulkan validation: 0 error(s)"));
    CHECK_THAT(onCpu.output, !ContainsSubstring("K cache: stored K"));
    const std::string cpuSummary = readFile(dir / "f" / "summary.json");
    CHECK_THAT(cpuSummary, ContainsSubstring("\"k_from_cache\": false"));
    CHECK_THAT(cpuSummary, ContainsSubstring("\"backend\": \"vulkan\""));
    CHECK_THAT(cpuSummary, ContainsSubstring("\"visibility_path\": \"embree\""));
    CHECK_THAT(cpuSummary, ContainsSubstring("\"visibility\",\n    \"direct\",\n    \"primary rays\""));
    const auto noCache = runRsim("run " + scene + " --backend vulkan --timesteps 300 --samples 4 --no-progress "
                                 "--no-k-cache --host-rays always -o " + (dir / "g").string());
    REQUIRE(noCache.exitCode == 0);
    CHECK_THAT(noCache.output, ContainsSubstring("the CPU computes K"));
    for (const char* run : {"f", "g"}) {
        const auto cmp = runRsim("compare " + (dir / "a").string() + " " + (dir / run).string());
        CHECK_THAT(cmp.output, ContainsSubstring("rsim compare: PASS"));
    }

    // A batch from the cache (the GPU's batch stores K afresh): every pose's outputs within
    // tolerance of the GPU's own.
    writeFile(dir / "poses.csv", "name,x,y,z,look_x,look_y,look_z\nfront,0.25,1.52,1.5,4.0,1.5,1.0\n"
                                 "side,0.4,1.0,1.4,4.0,1.5,1.0\n");
    const std::string poses = " --poses " + (dir / "poses.csv").string();
    REQUIRE(runRsim(common + (dir / "e").string() + poses + " --host-rays never").exitCode == 0);
    const auto batch = runRsim(common + (dir / "d").string() + poses + " --host-rays always");
    REQUIRE(batch.exitCode == 0);
    CHECK_THAT(batch.output, ContainsSubstring("while the devices were created"));
    CHECK_THAT(readFile(dir / "d" / "summary.json"), ContainsSubstring("\"direct\",\n    \"primary rays\""));
    CHECK_THAT(readFile(dir / "e" / "summary.json"), ContainsSubstring("\"cpu_phases\": []"));
    for (const char* pose : {"front", "side"}) {
        const auto cmp = runRsim("compare " + (dir / "d" / pose).string() + " " + (dir / "e" / pose).string());
        CHECK_THAT(cmp.output, ContainsSubstring("rsim compare: PASS"));
    }
}

TEST_CASE("K stored as segments goes to the cache when its segments fit, however large dense K would be",
          "[kcache][segments][cli]") {
    TempDir dir;
    const std::string scene = std::string(RSIM_SOURCE_DIR) + "/scenes/corridor/scene.toml";
    const std::string common = "run " + scene + " --backend cpu --timesteps 100 --samples 4 --no-progress ";
    REQUIRE(runRsim(common + "--no-k-cache --set 'simulation.k_layout=\"dense\"' -o " + (dir / "dense").string()).exitCode == 0);
    REQUIRE(runRsim(common + "--no-k-cache --set 'simulation.k_layout=\"segments\"' -o " + (dir / "seg").string()).exitCode == 0);
    auto kBytes = [&](const char* run) {
        const std::string s = readFile(dir / run / "summary.json");
        const auto at = s.find("\"k_bytes\": ");
        REQUIRE(at != std::string::npos);
        return std::stod(s.substr(at + 11));
    };
    const double dense = kBytes("dense"), seg = kBytes("seg");
    CAPTURE(dense, seg);
    REQUIRE(seg + 4096 < dense); // room for the file's headers between the two
    // A cache larger than the segments (and their file's headers), smaller than dense K.
    std::ostringstream maxGb;
    maxGb << std::setprecision(12) << (seg + 2048) / 1073741824.0;
    const std::string cache = "--k-cache " + (dir / "cache").string() + " --k-cache-max-gb " + maxGb.str() +
                              " --set 'simulation.k_layout=\"segments\"' ";
    const auto stored = runRsim(common + cache + "-o " + (dir / "a").string());
    REQUIRE(stored.exitCode == 0);
    CHECK_THAT(stored.output, ContainsSubstring("K cache: stored K"));
    const auto read = runRsim(common + cache + "-o " + (dir / "b").string());
    REQUIRE(read.exitCode == 0);
    CHECK_THAT(read.output, ContainsSubstring("read from"));
}
