// SPDX-License-Identifier: MIT
// The K cache's chunks file (k/k_journal.h, issue 63): K computed where it lives keeps each chunk
// on disk as it comes, so that a run stopped during visibility resumes where it stopped and a
// later run places the chunks instead of casting rays. A record cut short or damaged ends what
// is used; a second run does not write into a file another run holds; the results of a resumed
// run are those of a run that cast every chunk, bit for bit.
#include <filesystem>
#include <fstream>
#include <random>

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include "k/host_k.h"
#include "k/k_cache.h"
#include "k/k_journal.h"
#include "support/run_command.h"
#include "support/test_scenes.h"

using namespace rsim;
using namespace rsim::test;
using Catch::Matchers::ContainsSubstring;

namespace {

// A lut8 K of n x n in chunks of `rows` rows, about half its elements zero.
HostK someK(std::uint32_t n, std::uint32_t rows, KLayout layout) {
    HostK K(KChunking{n, rows, KFormat::Fp32});
    std::mt19937 rng(5);
    std::uniform_real_distribution<float> value(1e-5f, 0.2f);
    for (std::uint32_t i = 0; i < n; ++i)
        for (std::uint32_t j = 0; j < n; ++j)
            if (i != j && (i * 3 + j * 5) % 7 < 4) K.store(i, j, value(rng));
    K.compress(KFormat::Lut8Log);
    K.toLayout(layout);
    return K;
}

// Chunk c of K as a record, with made-up row sums and counts that name the chunk.
KJournalChunk recordOf(const HostK& K, std::uint32_t c) {
    KJournalChunk r;
    if (K.layout() == KLayout::Segments) r.segments = K.segments(c);
    else r.dense = K.chunk(c);
    for (std::uint32_t i = 0; i < K.chunking().rows(c); ++i) r.rowSums.push_back(0.25 + 0.001 * (c * 100 + i));
    r.clamped = c;
    r.counts.candidatePairs = 1000 + c;
    r.counts.raysCast = 7000 + c;
    r.counts.raysByBlockers = 3 * c;
    return r;
}

bool sameRecord(const KJournalChunk& a, const KJournalChunk& b) {
    return a.dense.words == b.dense.words && a.dense.table == b.dense.table && a.dense.count == b.dense.count &&
           a.segments.words == b.segments.words && a.segments.segments == b.segments.segments &&
           a.segments.tileStart == b.segments.tileStart && a.segments.table == b.segments.table &&
           a.segments.values == b.segments.values && a.rowSums == b.rowSums && a.clamped == b.clamped &&
           a.counts.candidatePairs == b.counts.candidatePairs && a.counts.raysCast == b.counts.raysCast &&
           a.counts.raysByBlockers == b.counts.raysByBlockers;
}

const std::string kKey = "0123456789abcdef0123456789abcdef";

} // namespace

TEST_CASE("the chunks file gives back every chunk it was given, and nothing it cannot vouch for", "[kcache][journal]") {
    TempDir dir;
    for (const KLayout layout : {KLayout::Dense, KLayout::Segments}) {
        CAPTURE(kLayoutName(layout));
        const HostK K = someK(150, 40, layout);
        const KChunking& ch = K.chunking();
        REQUIRE(ch.chunks() == 4);
        const auto folder = dir / kLayoutName(layout);
        {
            KJournal j(folder, kKey, ch, 1ull << 30);
            REQUIRE(j.open(layout));
            CHECK(j.chunksHeld() == 0);
            // A second run of the same key finds it held and computes without it.
            KJournal other(folder, kKey, ch, 1ull << 30);
            CHECK_FALSE(other.open(layout));
            CHECK(KJournal::inUse(j.file()));
            for (std::uint32_t c : {2u, 0u, 3u}) j.append(c, recordOf(K, c)); // in the order chunks complete
            CHECK(j.holds(2));
            CHECK_FALSE(j.holds(1));
            CHECK(sameRecord(j.read(0), recordOf(K, 0)));
        }
        KJournal j(folder, kKey, ch, 1ull << 30);
        REQUIRE(j.open(layout));
        CHECK_FALSE(KJournal::isJournalName("x.kchunks"));
        CHECK(KJournal::isJournalName(j.file().filename().string()));
        CHECK(j.chunksHeld() == 3);
        for (std::uint32_t c : {0u, 2u, 3u}) CHECK(sameRecord(j.read(c), recordOf(K, c)));
        CHECK_FALSE(j.holds(1));
        j.append(1, recordOf(K, 1));
        CHECK(j.chunksHeld() == 4);
        const std::uint64_t whole = j.bytes();
        CHECK(std::filesystem::file_size(j.file()) == whole);
    }
}

TEST_CASE("the chunks file keeps what came before a record cut short or damaged", "[kcache][journal]") {
    TempDir dir;
    const HostK K = someK(150, 40, KLayout::Segments);
    const KChunking& ch = K.chunking();
    std::vector<std::uint64_t> ends; // the file's size after each record
    std::filesystem::path file;
    {
        KJournal j(dir.path(), kKey, ch, 1ull << 30);
        REQUIRE(j.open(KLayout::Segments));
        for (std::uint32_t c = 0; c < ch.chunks(); ++c) {
            j.append(c, recordOf(K, c));
            ends.push_back(j.bytes());
        }
        file = j.file();
    }
    SECTION("cut inside the third record: two kept, and the file cut back before the next append") {
        std::filesystem::resize_file(file, (ends[1] + ends[2]) / 2);
        CHECK(KJournal::chunksIn(dir.path(), kKey, ch) == 2); // the forecast's count, by the headers
        CHECK(KJournal::chunksIn(dir.path(), std::string(32, 'c'), ch) == 0);
        KJournal j(dir.path(), kKey, ch, 1ull << 30);
        REQUIRE(j.open(KLayout::Segments));
        CHECK(j.chunksHeld() == 2);
        CHECK(j.holds(0));
        CHECK(j.holds(1));
        CHECK(j.bytes() == ends[1]);
        CHECK(std::filesystem::file_size(file) == ends[1]);
        j.append(2, recordOf(K, 2));
        CHECK(sameRecord(j.read(2), recordOf(K, 2)));
    }
    SECTION("a flipped byte in the second record's data: only the first kept") {
        {
            std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
            const auto at = std::streamoff(ends[1] - 16);
            f.seekg(at);
            char c = 0;
            f.get(c);
            f.seekp(at);
            f.put(char(c ^ 0x08));
        }
        KJournal j(dir.path(), kKey, ch, 1ull << 30);
        REQUIRE(j.open(KLayout::Segments));
        CHECK(j.chunksHeld() == 1);
        CHECK(j.holds(0));
    }
    SECTION("another layout, key or chunking starts it afresh") {
        KJournal dense(dir.path(), kKey, ch, 1ull << 30);
        REQUIRE(dense.open(KLayout::Dense));
        CHECK(dense.chunksHeld() == 0);
    }
    SECTION("a file at its name that is not a chunks file is left as it is") {
        std::filesystem::remove(file);
        writeFile(file, "someone else's notes\n");
        KJournal j(dir.path(), kKey, ch, 1ull << 30);
        CHECK_FALSE(j.open(KLayout::Segments));
        CHECK(readFile(file) == "someone else's notes\n");
    }
    SECTION("the file stops growing at the cache's size") {
        std::filesystem::remove(file);
        KJournal j(dir.path(), kKey, ch, ends[1] + 1);
        REQUIRE(j.open(KLayout::Segments));
        for (std::uint32_t c = 0; c < ch.chunks(); ++c) j.append(c, recordOf(K, c));
        CHECK(j.chunksHeld() == 2);
        CHECK(std::filesystem::file_size(file) == ends[1]);
    }
}

TEST_CASE("a Vulkan run where K lives resumes from the chunks an earlier run kept, with the same results",
          "[kcache][journal][vulkan]") {
    if (vulkanPathsAvailable().empty()) SKIP("no Vulkan device with ray tracing");
    TempDir dir;
    const std::string scene = std::string(RSIM_SOURCE_DIR) + "/scenes/tiny-room/scene.toml";
    // Two devices (slots of one) and no host memory for assembly: K where it lives, 32 chunks.
    const std::string common = "run " + scene + " --backend vulkan --validation --timesteps 300 --samples 4 "
                               "--no-progress --host-rays never --max-host-mb 0.01 --chunk-mb 0.01 --devices 0,0 "
                               "--set 'simulation.k_layout=\"segments\"' ";
    const std::string cache = "--k-cache " + (dir / "cache").string() + " ";
    const auto ref = runRsim(common + "--no-k-cache -o " + (dir / "ref").string());
    REQUIRE(ref.exitCode == 0);
    CHECK_THAT(ref.output, ContainsSubstring("K computed where it lives"));

    const auto first = runRsim(common + cache + "-o " + (dir / "first").string());
    REQUIRE(first.exitCode == 0);
    CHECK_THAT(first.output, ContainsSubstring("K's chunks are kept in"));
    CHECK_THAT(first.output, !ContainsSubstring("K cache: stored K")); // not stored a second time
    std::filesystem::path file;
    for (const auto& e : std::filesystem::directory_iterator(dir / "cache")) file = e.path();
    REQUIRE(file.extension() == ".kchunks");

    // A run stopped part way: the file cut inside a record, as a kill leaves it.
    std::filesystem::resize_file(file, std::filesystem::file_size(file) * 11 / 20);
    const auto resumed = runRsim(common + cache + "-o " + (dir / "resumed").string());
    REQUIRE(resumed.exitCode == 0);
    CHECK_THAT(resumed.output, ContainsSubstring("Vulkan validation: 0 error(s)"));
    CHECK_THAT(resumed.output, ContainsSubstring("cut short or damaged"));
    CHECK_THAT(resumed.output, ContainsSubstring("of K's 32 chunks are in"));
    const std::string summary = readFile(dir / "resumed" / "summary.json");
    CHECK_THAT(summary, ContainsSubstring("\"k_from_cache\": false"));
    CHECK_THAT(summary, !ContainsSubstring("\"k_chunks_from_cache\": 0,"));

    const auto again = runRsim(common + cache + "-o " + (dir / "again").string());
    REQUIRE(again.exitCode == 0);
    CHECK_THAT(again.output, ContainsSubstring("32 of K's 32 chunks are in"));
    CHECK_THAT(readFile(dir / "again" / "summary.json"), ContainsSubstring("\"k_chunks_from_cache\": 32"));
    CHECK_THAT(readFile(dir / "again" / "summary.json"), ContainsSubstring("\"k_from_cache\": true"));

    for (const char* run : {"first", "resumed", "again"}) {
        CAPTURE(run);
        const auto cmp = runRsim("compare " + (dir / "ref").string() + " " + (dir / run).string() +
                                 " --tol-m 0 --max-fraction 0 --tol-rel 0");
        CHECK(cmp.exitCode == 0);
        CHECK(readFile(dir / "ref" / "triangles.csv") == readFile(dir / run / "triangles.csv"));
        // The counts of every chunk, cast or placed, are K's.
        for (const char* key : {"\"candidate_pairs\": ", "\"nonzero_pairs\": ", "\"visibility_listed\": ",
                                "\"visibility_tiles_listed\": ", "\"visibility_by_blockers\": "}) {
            const std::string a = readFile(dir / "ref" / "summary.json"), b = readFile(dir / run / "summary.json");
            const auto at = a.find(key), bt = b.find(key);
            REQUIRE(at != std::string::npos);
            REQUIRE(bt != std::string::npos);
            CHECK(a.substr(at, a.find(',', at) - at) == b.substr(bt, b.find(',', bt) - bt));
        }
    }
}

TEST_CASE("a growing chunks file makes room among the K cache's other files", "[kcache][journal]") {
    TempDir dir;
    const HostK K = someK(150, 40, KLayout::Dense);
    const std::string older(32, 'b');
    const KCache big(dir.path(), 1ull << 30);
    big.store(older, K, VisibilityStats{}, KStorageReport{});
    REQUIRE(std::filesystem::exists(big.fileOf(older)));
    const std::uint64_t stored = std::filesystem::file_size(big.fileOf(older));
    // A cache with room for that file and a little more: the chunks file's growth takes it.
    const KCache cache(dir.path(), stored + 4096);
    KJournal j(dir.path(), kKey, K.chunking(), cache.maxBytes());
    j.onGrowth([&cache](std::uint64_t bytes) { cache.makeRoom(bytes); });
    REQUIRE(j.open(KLayout::Dense));
    j.append(0, recordOf(K, 0));
    CHECK(j.holds(0));
    CHECK_FALSE(std::filesystem::exists(cache.fileOf(older)));
    CHECK(std::filesystem::exists(j.file())); // held by this run: never evicted
}
