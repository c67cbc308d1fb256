// SPDX-License-Identifier: MIT
#include "k/shared_block_cut.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <vector>

#include "rsim/shared/form_factor.h"
#include "util/error.h"
#include "util/parallel.h"

namespace rsim {
namespace {

std::atomic<double> cutOverride{-1.0};

constexpr std::uint32_t kSampleRows = 24;

// Up to kSampleRows rows of chunk c, evenly spread.
std::vector<std::uint32_t> sampleRows(const KChunking& ch, std::uint32_t c) {
    const std::uint32_t r0 = ch.rowBegin(c), rows = ch.rows(c), k = std::min(rows, kSampleRows);
    std::vector<std::uint32_t> out(k);
    for (std::uint32_t x = 0; x < k; ++x) out[x] = r0 + std::uint32_t((std::uint64_t(x) * rows + rows / 2) / k);
    return out;
}

} // namespace

SharedBlockCut balancedSharedBlockCut(const PreparedScene& s, const RowShare& share) {
    if (share.count() != 2) throw Error("internal: a balanced shared block for other than two parts");
    const KChunking& ch = share.chunking();
    const std::uint32_t C = ch.chunks();
    std::vector<std::vector<std::uint32_t>> samples(C);
    for (std::uint32_t c = 0; c < C; ++c) samples[c] = sampleRows(ch, c);
    // pairs[a * C + b], a <= b: the estimated facing pairs (i, j), i < j, i in chunk a, j in b.
    std::vector<double> pairs(std::size_t(C) * C, 0.0);
    parallelFor(C, 1, [&](std::size_t begin, std::size_t end, unsigned) {
        for (std::size_t a = begin; a < end; ++a)
            for (std::size_t b = a; b < C; ++b) {
                std::uint64_t facing = 0, tested = 0;
                for (const std::uint32_t i : samples[a])
                    for (const std::uint32_t j : samples[b]) {
                        if (i >= j) continue;
                        ++tested;
                        facing += shared::rsimCanFace(s.tri(i), s.normal[i], s.tri(j), s.normal[j]);
                    }
                if (tested == 0) continue;
                const double ra = ch.rows(std::uint32_t(a)), rb = ch.rows(std::uint32_t(b));
                const double all = a == b ? ra * (ra - 1.0) / 2.0 : ra * rb;
                pairs[a * C + b] = all * double(facing) / double(tested);
            }
    });
    const std::uint32_t R = share.firstChunk(1), first = share.firstChunk(0), end = share.endChunk(0);
    double own[2] = {0.0, 0.0};
    std::vector<double> shared(C, 0.0); // chunk a of part 0 against all of part 1's
    for (std::uint32_t a = 0; a < C; ++a)
        for (std::uint32_t b = a; b < C; ++b) {
            const double p = pairs[std::size_t(a) * C + b];
            if (b < R) own[0] += p;
            else if (a >= R) own[1] += p;
            else shared[a] += p;
        }
    // Part 0 casts chunks [first, cut) of its rows against part 1's, part 1 the rest.
    const auto costs = [&](std::uint32_t cut, double out[2]) {
        out[0] = own[0];
        out[1] = own[1];
        for (std::uint32_t a = first; a < end; ++a) out[a < cut ? 0 : 1] += shared[a];
    };
    SharedBlockCut best;
    const std::uint32_t middle = share.partChunk(0, 1, 2);
    costs(middle, best.facingAtMiddle);
    best.chunk = middle;
    costs(middle, best.facing);
    for (std::uint32_t cut = first; cut <= end; ++cut) {
        double c[2];
        costs(cut, c);
        if (std::abs(c[0] - c[1]) < std::abs(best.facing[0] - best.facing[1])) {
            best.chunk = cut;
            best.facing[0] = c[0];
            best.facing[1] = c[1];
        }
    }
    return best;
}

void overrideSharedBlockCut(double fraction) { cutOverride = fraction; }

SharedBlockCut chooseSharedBlockCut(const PreparedScene& s, const RowShare& share) {
    const double f = cutOverride;
    if (f < 0.0) return balancedSharedBlockCut(s, share);
    SharedBlockCut forced;
    const std::uint32_t first = share.firstChunk(0), end = share.endChunk(0);
    forced.chunk = first + std::uint32_t(std::lround(std::min(f, 1.0) * double(end - first)));
    return forced;
}

} // namespace rsim
