// SPDX-License-Identifier: MIT
// How two devices of one process share K's pairs (k/row_share.h) and claim the block they share
// (k/shared_block_claims.h): every group claimed once, from both ends, wherever the parts meet.
#include <algorithm>
#include <thread>
#include <vector>

#include <catch2/catch_test_macros.hpp>

#include "k/row_share.h"
#include "k/shared_block_claims.h"
#include "util/error.h"

using namespace rsim;

TEST_CASE("two parts cast every pair once: each its own block, part 0's half of the shared block, part 1's",
          "[kplan]") {
    const KChunking ch{1000, 64, KFormat::Fp32}; // 16 chunks, the last of 40 rows
    const RowShare a(ch, 2, 0), b(ch, 2, 1);
    REQUIRE(a.firstChunk(1) == 8);
    const RowShare::PairBlock p0 = a.pairBlock(0, 1, true), p1 = b.pairBlock(1, 0, true);
    CHECK(p0.i0 == 0);
    CHECK(p0.i1 == a.rowOfChunk(4)); // part 0's middle chunk
    CHECK(p1.i0 == a.rowOfChunk(4));
    CHECK(p1.i1 == a.rowEnd(0));
    CHECK(p0.j0 == 512);
    CHECK(p1.j1 == 1000);
}

TEST_CASE("the shared block's groups: each claimed once, part 0 from the first, part 1 from the last", "[kplan]") {
    SECTION("groups of whole chunks, the last shorter") {
        SharedBlockClaims claims(3, 10, 3); // chunks 3..9: groups {3,4,5} {6,7,8} {9}
        REQUIRE(claims.groups() == 3);
        CHECK(claims.groupBegin(0) == 3);
        CHECK(claims.groupEnd(0) == 6);
        CHECK(claims.groupBegin(2) == 9);
        CHECK(claims.groupEnd(2) == 10);
        CHECK(claims.claim(1) == 2u);
        CHECK(claims.claim(0) == 0u);
        CHECK(claims.claim(0) == 1u);
        CHECK_FALSE(claims.claim(1).has_value()); // they met
        CHECK_FALSE(claims.claim(0).has_value());
        CHECK(claims.met() == 2);
        CHECK_THROWS_AS(claims.claim(2), Error);
    }
    SECTION("no chunks: nothing to claim") {
        SharedBlockClaims claims(4, 4, 2);
        CHECK(claims.groups() == 0);
        CHECK_FALSE(claims.claim(0).has_value());
        CHECK_FALSE(claims.claim(1).has_value());
    }
    SECTION("a part that claims three times as often takes three quarters") {
        SharedBlockClaims claims(0, 100, 1);
        std::uint32_t taken[2] = {0, 0};
        for (bool left = true; left;) {
            left = false;
            for (int part : {0, 0, 0, 1})
                if (claims.claim(part)) ++taken[part], left = true;
        }
        CHECK(taken[0] == 75);
        CHECK(taken[1] == 25);
        CHECK(claims.met() == 75);
    }
    SECTION("two threads: every group once, part 0's below where they met") {
        SharedBlockClaims claims(0, 1001, 1);
        std::vector<int> by(1001, -1);
        std::vector<std::thread> threads;
        for (int part = 0; part < 2; ++part)
            threads.emplace_back([&, part] {
                while (const auto g = claims.claim(part)) by[*g] = part; // each group written by one thread
            });
        for (auto& t : threads) t.join();
        const std::uint32_t met = claims.met();
        std::uint32_t wrong = 0;
        for (std::uint32_t g = 0; g < 1001; ++g) wrong += by[g] != (g < met ? 0 : 1);
        CHECK(wrong == 0);
    }
    SECTION("a fixed cut: each part takes its side only") {
        struct Reset {
            ~Reset() { fixSharedBlockCut(-1.0); }
        } reset;
        for (const double fraction : {0.0, 0.5, 1.0}) {
            CAPTURE(fraction);
            fixSharedBlockCut(fraction);
            SharedBlockClaims claims(0, 8, 2); // four groups
            std::vector<int> by(4, -1);
            for (int part : {0, 1})
                while (const auto g = claims.claim(part)) by[*g] = part;
            const std::uint32_t cut = std::uint32_t(fraction * 4);
            CHECK(claims.met() == cut);
            for (std::uint32_t g = 0; g < 4; ++g) CHECK(by[g] == (g < cut ? 0 : 1));
        }
    }
    SECTION("a group holds about one cast's pairs") {
        CHECK(sharedBlockGroupChunks(std::uint64_t(1) << 24, 481, 17528) == 2); // the large room on two devices
        CHECK(sharedBlockGroupChunks(512, 40, 500) == 1);                       // at least one chunk
        CHECK(sharedBlockGroupChunks(40000, 10, 1000) == 4);
    }
}
