// SPDX-License-Identifier: MIT
#include "transport/cpu_far_gather.h"

#include <algorithm>

#include "rsim/shared/transport.h"
#include "util/cpu_isa.h"

namespace rsim {
namespace {

// How many pairs ahead the gather fetches a pair's history (the reads follow the list, not the
// memory): 64, a source or two ahead; 16 was 7% slower on the small room.
constexpr std::size_t kPrefetch = 64;
constexpr std::size_t kBlock = kCpuTimeBlock;

// `count` steps of one row's sums from a source's history, h[q] read by sum[q]. The two loops
// are apart so that each becomes a few vector operations: the compiler may not assume that
// sumB and sumZ do not overlap, but they do not alias the floats they read.
[[gnu::always_inline]] inline void addSteps(double* sumB, double* sumZ, const float* hB,
                                            const float* hZ, double fB, double fZ,
                                            std::size_t count) {
    for (std::size_t q = 0; q < count; ++q)
        sumB[q] += fB * double(hB[q]);
    for (std::size_t q = 0; q < count; ++q)
        sumZ[q] += fZ * double(hZ[q]);
}

// The tile's pairs for pose p. A batch's poses each take their own pass over the list: with all
// of them in one pass, a pair read a window of every pose's history and the tile's sums of eight
// poses (262 KB) left the first-level cache. One pose at a time, 8 poses of the small room take
// 9.17 s of radiosity at T = 400 instead of 10.72 s (medians of 4, 2 cores), 1.15 s a pose
// against about 1.5 s alone.
[[gnu::always_inline]] inline void gatherPose(const FarGatherTile& g, std::size_t p) {
    const std::size_t last = g.t0 + g.steps - 1, t0 = g.t0, T = g.T;
    const bool wholeBlocks = g.steps == kBlock;
    const FarPair* pairs = g.pairs.data();
    const std::size_t count = g.pairs.size();
    const float *area = g.area, *rhoA = g.rhoA, *B = g.B[p], *Z = g.Z[p];
    double* sumB = g.sumB + p * g.tileRows * kBlock;
    double* sumZ = g.sumZ + p * g.tileRows * kBlock;
    for (std::size_t x = 0; x < count; ++x) {
        if (x + kPrefetch < count) {
            const FarPair& ahead = pairs[x + kPrefetch];
            const std::size_t from =
                std::size_t(ahead.source) * T + t0 - std::min<std::size_t>(t0, ahead.delayRow >> 8);
            __builtin_prefetch(B + from);
            __builtin_prefetch(Z + from);
        }
        const FarPair e = pairs[x];
        const std::size_t tau = e.delayRow >> 8;
        if (tau > last) continue; // not yet arrived
        const std::size_t row = e.delayRow & 0xffu, j = e.source;
        const glm::vec2 f =
            shared::rsimGatherCoefficients(e.k, area[g.firstRow + row], area[j], rhoA[j]);
        // Step q reads time t0 + q - tau; steps before t = tau read nothing.
        const std::size_t first = tau > t0 ? tau - t0 : 0;
        const std::size_t from = j * T + t0 + first - tau; // step `first`'s history
        double* sB = sumB + row * kBlock + first;
        double* sZ = sumZ + row * kBlock + first;
        if (first == 0 && wholeBlocks) // the common case, its trip count known
            addSteps(sB, sZ, B + from, Z + from, double(f.x), double(f.y), kBlock);
        else
            addSteps(sB, sZ, B + from, Z + from, double(f.x), double(f.y),
                     g.steps - first);
    }
}

// The gather compiled for each instruction set (util/cpu_isa.h): the same code, eight doubles an
// AVX-512 instruction, four an AVX2 one, two an SSE2 one.
void gatherBaseline(const FarGatherTile& g) {
    for (std::size_t p = 0; p < g.poses; ++p) gatherPose(g, p);
}
#if RSIM_HAS_CPU_ISAS
RSIM_TARGET_V3 void gatherV3(const FarGatherTile& g) {
    for (std::size_t p = 0; p < g.poses; ++p) gatherPose(g, p);
}
RSIM_TARGET_V4 void gatherV4(const FarGatherTile& g) {
    for (std::size_t p = 0; p < g.poses; ++p) gatherPose(g, p);
}
#endif

} // namespace

void gatherFarTile(const FarGatherTile& g) {
#if RSIM_HAS_CPU_ISAS
    switch (cpuIsa()) {
    case CpuIsa::X86_64_V4:
        return gatherV4(g);
    case CpuIsa::X86_64_V3:
        return gatherV3(g);
    case CpuIsa::Baseline:
        break;
    }
#endif
    gatherBaseline(g);
}

} // namespace rsim
