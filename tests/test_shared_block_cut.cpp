// SPDX-License-Identifier: MIT
// How two devices of one process share K's pairs (k/row_share.h) and where they cut the block
// they share (k/shared_block_cut.h): every pair cast once, by one part, whatever the cut; the
// balanced cut evens out the facing pairs each part casts.
#include <cmath>
#include <cstdlib>

#include <catch2/catch_test_macros.hpp>

#include "k/row_share.h"
#include "k/shared_block_cut.h"
#include "rsim/shared/form_factor.h"
#include "support/test_scenes.h"
#include "util/error.h"

using namespace rsim;
using namespace rsim::test;

namespace {

// Which part casts pair (i, j), i < j: its own block's, or the shared block's by the cut; -1 none.
int caster(const RowShare& a, const RowShare& b, std::uint32_t i, std::uint32_t j) {
    int who = -1, count = 0;
    for (const RowShare* s : {&a, &b}) {
        const int me = s->rank(), other = 1 - me;
        const bool own = i >= s->rowBegin() && j < s->rowEnd();
        const RowShare::PairBlock p = s->pairBlock(me, other, true);
        const bool half = i >= p.i0 && i < p.i1 && j >= p.j0 && j < p.j1;
        if (own || half) {
            who = me;
            ++count;
        }
    }
    return count == 1 ? who : -1;
}

// The facing pairs each part casts, counted pair by pair.
void exactFacing(const PreparedScene& s, const RowShare& a, const RowShare& b, double out[2]) {
    out[0] = out[1] = 0.0;
    for (std::uint32_t i = 0; i < s.size(); ++i)
        for (std::uint32_t j = i + 1; j < s.size(); ++j)
            if (shared::rsimCanFace(s.tri(i), s.normal[i], s.tri(j), s.normal[j])) out[caster(a, b, i, j)] += 1.0;
}

} // namespace

TEST_CASE("two parts cast every pair once, wherever their shared block is cut", "[kplan]") {
    const KChunking ch{1000, 64, KFormat::Fp32}; // 16 chunks, the last of 40 rows
    RowShare a(ch, 2, 0), b(ch, 2, 1);
    REQUIRE(a.firstChunk(1) == 8);
    // The default: part 0's middle chunk.
    CHECK(a.pairBlock(0, 1, true).i1 == a.rowOfChunk(4));
    for (const std::uint32_t cut : {0u, 1u, 4u, 7u, 8u}) {
        CAPTURE(cut);
        a.cutSharedBlock(0, 1, cut);
        b.cutSharedBlock(0, 1, cut);
        const RowShare::PairBlock p0 = a.pairBlock(0, 1, true), p1 = b.pairBlock(1, 0, true);
        CHECK(p0.i0 == 0);
        CHECK(p0.i1 == a.rowOfChunk(cut));
        CHECK(p1.i0 == a.rowOfChunk(cut));
        CHECK(p1.i1 == a.rowEnd(0));
        CHECK(p0.j0 == 512);
        CHECK(p1.j1 == 1000);
        std::uint64_t pairs[2] = {0, 0};
        for (std::uint32_t i = 0; i < ch.n; i += 7)
            for (std::uint32_t j = i + 1; j < ch.n; j += 5) {
                const int who = caster(a, b, i, j);
                REQUIRE(who >= 0);
                ++pairs[who];
            }
        CHECK(pairs[0] + pairs[1] > 0);
    }
    CHECK_THROWS_AS(a.cutSharedBlock(0, 1, 9), Error); // beyond part 0's chunks
    CHECK_THROWS_AS(a.cutSharedBlock(1, 0, 4), Error); // lo must be the lower part
}

TEST_CASE("the balanced cut evens out the facing pairs the two parts cast", "[kplan]") {
    // A room's shell (its walls face each other) beside a large floor plate of coplanar
    // triangles (none face each other): the rows of one part hold far more facing pairs.
    SceneBuilder b;
    const auto m = b.material("m", 0.5f);
    b.roomShell({0, 0, 0}, {1.0, 1.0, 1.0}, 6, m);
    b.rectangle({3.0, 0, 0}, {4.0, 0, 0}, {0, 4.0, 0}, 24, 24, m);
    const PreparedScene s = b.prepare();
    const std::uint32_t n = std::uint32_t(s.size());
    const KChunking ch{n, 40, KFormat::Fp32};
    RowShare p0(ch, 2, 0), p1(ch, 2, 1);
    double middle[2];
    exactFacing(s, p0, p1, middle);
    REQUIRE(std::abs(middle[0] - middle[1]) > 0.2 * (middle[0] + middle[1])); // unbalanced at the middle

    const SharedBlockCut cut = balancedSharedBlockCut(s, p0);
    CAPTURE(cut.chunk, cut.facing[0], cut.facing[1], middle[0], middle[1]);
    CHECK(cut.chunk != p0.partChunk(0, 1, 2));
    p0.cutSharedBlock(0, 1, cut.chunk);
    p1.cutSharedBlock(0, 1, cut.chunk);
    double balanced[2];
    exactFacing(s, p0, p1, balanced);
    CAPTURE(balanced[0], balanced[1]);
    // Every facing pair counted once either way, and far fewer apart between the parts.
    CHECK(balanced[0] + balanced[1] == middle[0] + middle[1]);
    CHECK(std::abs(balanced[0] - balanced[1]) < 0.25 * std::abs(middle[0] - middle[1]));
    // The estimate is close to the count.
    for (int part = 0; part < 2; ++part) CHECK(std::abs(cut.facing[part] - balanced[part]) < 0.1 * balanced[part]);
    CHECK(std::abs(cut.facingAtMiddle[0] - middle[0]) < 0.1 * middle[0]);

    // The override's extremes: one part casts the whole shared block.
    overrideSharedBlockCut(0.0);
    CHECK(chooseSharedBlockCut(s, RowShare(ch, 2, 0)).chunk == 0);
    overrideSharedBlockCut(1.0);
    CHECK(chooseSharedBlockCut(s, RowShare(ch, 2, 0)).chunk == RowShare(ch, 2, 0).endChunk(0));
    overrideSharedBlockCut(-1.0);
    CHECK(chooseSharedBlockCut(s, RowShare(ch, 2, 0)).chunk == cut.chunk);
}
