// SPDX-License-Identifier: MIT
#include "visibility/cpu_visibility.h"

#include <algorithm>
#include <optional>

#include <spdlog/spdlog.h>

#include "rsim/shared/form_factor.h"
#include "rsim/shared/shaft.h"
#include "util/cancel.h"
#include "util/cpu_isa.h"
#include "util/error.h"
#include "util/parallel.h"
#include "util/progress.h"

namespace rsim {

namespace {
// Traces segments in Embree packets of 16 and adds the unoccluded weights to sums[side].
class PacketTracer {
public:
    PacketTracer(const EmbreeScene& scene, std::uint64_t& rays) : scene_(scene), rays_(rays) {}
    void add(const shared::RaySegment& seg, int side) {
        batch_[count_] = seg;
        side_[count_++] = side;
        if (count_ == 16) flush();
    }
    void flush() {
        checkCancel(); // a pair of many samples (S = 2^20) takes seconds: stop between packets
        if (count_ == 0) return;
        scene_.occluded16(batch_, count_, occluded_);
        for (int k = 0; k < count_; ++k)
            if (!occluded_[k]) sums[side_[k]] += batch_[k].weight;
        rays_ += std::uint64_t(count_);
        count_ = 0;
    }
    float sums[2] = {0.0f, 0.0f};

private:
    const EmbreeScene& scene_;
    std::uint64_t& rays_;
    shared::RaySegment batch_[16];
    int side_[16];
    bool occluded_[16];
    int count_ = 0;
};

// The former estimator: x on the triangle with the smaller stable id, both points by area.
float areaKernelEntry(const PreparedScene& s, const KSettings& c, std::size_t i, std::size_t j,
                      PacketTracer& tracer) {
    const std::size_t a = s.id[i] < s.id[j] ? i : j, b = a == i ? j : i;
    const shared::Tri ta = s.tri(a), tb = s.tri(b);
    const glm::vec4 offset = shared::rsimOffset4(shared::rsimPairHash(s.id[a], s.id[b], c.seed));
    for (std::uint32_t k = 0; k < c.samples; ++k) {
        const shared::RaySegment seg = shared::rsimAreaKernelSample(
            ta, s.normal[a], tb, s.normal[b], shared::rsimR4Point(k, offset), s.rayEps);
        if (seg.weight > 0.0f) tracer.add(seg, 0);
    }
    tracer.flush();
    return tracer.sums[0] / float(c.samples);
}
} // namespace

bool pairIsClear(const PreparedScene& s, const ShaftBvh& shafts, std::size_t i, std::size_t j) {
    const float eps = shaftEps(s);
    const shared::Shaft shaft = shared::rsimShaftBuild(s.tri(i), s.normal[i], s.tri(j), s.normal[j], eps);
    return shafts.candidates(s, shaft, std::uint32_t(i), std::uint32_t(j), eps, 1) == 0;
}

namespace {

// kernelEntry's work, compiled for each instruction set (util/cpu_isa.h), with the samples'
// formulas inlined (flatten): they take most of the time, and x86-64-v4 makes the small room's
// visibility 11% faster on 2 cores (15.7 -> 14.0 s), the same K bit for bit.
[[gnu::always_inline]] inline float kernelEntryBody(const PreparedScene& s, const KSettings& c, std::size_t i,
                                                   std::size_t j, const EmbreeScene& scene, const ShaftBvh* shafts,
                                                   std::uint64_t& rays, bool* clear) {
    PacketTracer tracer(scene, rays);
    if (c.estimator == KEstimator::Area) return areaKernelEntry(s, c, i, j, tracer);
    const shared::KSampling k = kSampling(c, s.rayEps);
    const shared::Tri ti = s.tri(i), tj = s.tri(j);
    if (shafts && pairIsClear(s, *shafts, i, j)) {
        if (clear) *clear = true;
        return shared::rsimClearPairValue(ti, s.normal[i], s.area[i], tj, s.normal[j], s.area[j], k.estimator);
    }
    const std::uint32_t perSide = shared::rsimKSamplesPerSide(k, ti, tj);
    const bool share = shared::rsimShareVertex(ti, tj);
    for (int side = 0; side < 2; ++side) {
        const std::size_t e = side == 0 ? i : j, o = side == 0 ? j : i;
        const glm::vec4 offset = shared::rsimKSideOffset(s.id[e], s.id[o], k.seed);
        const glm::uvec2 stride = shared::rsimKSideStride(k, perSide, s.id[e], s.id[o]);
        const shared::Tri te = s.tri(e), to = s.tri(o);
        const shared::FormFactorSide fs = shared::rsimFormFactorSideOf(te, s.normal[e], to);
        for (std::uint32_t n = 0; n < perSide; ++n) {
            const shared::RaySegment seg = shared::rsimKSideSampleOf(fs, te, s.normal[e], to, s.normal[o], s.area[o],
                                                                     share, n, stride, offset, k.eps);
            if (seg.weight > 0.0f) tracer.add(seg, side);
        }
    }
    tracer.flush();
    return shared::rsimKPairValue(tracer.sums[0], tracer.sums[1], perSide, s.area[i], s.area[j], k.estimator);
}

#if RSIM_HAS_CPU_ISAS
RSIM_TARGET_V3 [[gnu::flatten]] float kernelEntryV3(const PreparedScene& s, const KSettings& c, std::size_t i,
                                                    std::size_t j, const EmbreeScene& scene,
                                                    const ShaftBvh* shafts, std::uint64_t& rays, bool* clear) {
    return kernelEntryBody(s, c, i, j, scene, shafts, rays, clear);
}
RSIM_TARGET_V4 [[gnu::flatten]] float kernelEntryV4(const PreparedScene& s, const KSettings& c, std::size_t i,
                                                    std::size_t j, const EmbreeScene& scene,
                                                    const ShaftBvh* shafts, std::uint64_t& rays, bool* clear) {
    return kernelEntryBody(s, c, i, j, scene, shafts, rays, clear);
}
#endif

} // namespace

float kernelEntry(const PreparedScene& s, const KSettings& c, std::size_t i, std::size_t j,
                  const EmbreeScene& scene, const ShaftBvh* shafts, std::uint64_t& rays, bool* clear) {
#if RSIM_HAS_CPU_ISAS
    switch (cpuIsa()) {
    case CpuIsa::X86_64_V4: return kernelEntryV4(s, c, i, j, scene, shafts, rays, clear);
    case CpuIsa::X86_64_V3: return kernelEntryV3(s, c, i, j, scene, shafts, rays, clear);
    case CpuIsa::Baseline: break;
    }
#endif
    return kernelEntryBody(s, c, i, j, scene, shafts, rays, clear);
}

namespace {

// Row-block mode: a block of pairs this rank traces with another (RowShare::pairBlock), and
// their values for the other rank: rows (i - i0) of (j1 - j0) values.
struct PairBlock : RowShare::PairBlock {
    std::vector<float> values;
    std::size_t at(std::uint32_t i, std::uint32_t j) const { return std::size_t(i - i0) * (j1 - j0) + (j - j0); }
};

PairBlock tracedBy(const RowShare& share, int tracer, int other) {
    PairBlock out;
    static_cast<RowShare::PairBlock&>(out) = share.pairBlock(tracer, other);
    return out;
}

} // namespace

VisibilityStats computeVisibilityCpu(const PreparedScene& s, const KSettings& c, const EmbreeScene& rays,
                                     HostK& K, const RowShare* share) {
    const std::size_t n = s.size();
    // The rows K holds: all of them, or this rank's block [r0, r1) (k/row_share.h).
    const std::size_t r0 = share ? share->rowBegin() : 0, r1 = share ? share->rowEnd() : n;
    if (share && (K.firstHeld() != share->firstChunk() || K.endHeld() != share->endChunk()))
        throw Error("internal: K does not hold this rank's rows");
    std::optional<ShaftBvh> shafts;
    if (c.clearPairsByFormula && c.estimator != KEstimator::Area) shafts = ShaftBvh::build(s);
    const unsigned workers = threadCount();
    struct alignas(64) Counts {
        std::uint64_t candidates = 0, nonzero = 0, rays = 0, clear = 0;
    };
    std::vector<Counts> counts(workers);
    // The pairs traced here: the upper triangle of the block, and (row-block mode) a block of
    // pairs with each other rank. A task is one row i of one of them.
    std::vector<PairBlock> blocks;
    for (int r = 0; share && r < share->count(); ++r)
        if (r != share->rank()) {
            blocks.push_back(tracedBy(*share, share->rank(), r));
            blocks.back().values.assign(std::size_t(blocks.back().i1 - blocks.back().i0) * (blocks.back().j1 - blocks.back().j0), 0.0f);
        } else {
            blocks.emplace_back(); // none with itself
        }
    struct Task {
        int block; // -1: this block's upper triangle
        std::uint32_t i;
    };
    std::vector<Task> tasks;
    std::uint64_t pairs = 0;
    for (std::size_t i = r0; i < r1; ++i) {
        tasks.push_back({-1, std::uint32_t(i)});
        pairs += r1 - 1 - i;
    }
    for (std::size_t x = 0; x < blocks.size(); ++x)
        for (std::uint32_t i = blocks[x].i0; i < blocks[x].i1; ++i) {
            tasks.push_back({int(x), i});
            pairs += blocks[x].j1 - blocks[x].j0;
        }
    Progress progress("visibility", pairs, "pairs");

    // Row by row: each row has one writer, and elements of different rows are different words (K
    // is fp32 until compressed); a pair (i, j) is always traced as i < j. Rows get shorter, so
    // small chunks keep the cores busy.
    parallelFor(tasks.size(), 4, [&](std::size_t begin, std::size_t end, unsigned w) {
        Counts& cnt = counts[w];
        for (std::size_t t = begin; t < end; ++t) {
            const std::uint32_t i = tasks[t].i;
            PairBlock* block = tasks[t].block < 0 ? nullptr : &blocks[std::size_t(tasks[t].block)];
            const std::uint32_t j0 = block ? block->j0 : i + 1, j1 = block ? block->j1 : std::uint32_t(r1);
            const bool rowIsMine = i >= r0 && i < r1;
            const shared::Tri ti = s.tri(i);
            for (std::uint32_t j = j0; j < j1; ++j) {
                if (!shared::rsimCanFace(ti, s.normal[i], s.tri(j), s.normal[j])) continue;
                ++cnt.candidates;
                bool clear = false;
                const float k = kernelEntry(s, c, i, j, rays, shafts ? &*shafts : nullptr, cnt.rays, &clear);
                cnt.clear += clear ? 1 : 0;
                if (k == 0.0f) continue;
                ++cnt.nonzero;
                if (block) block->values[block->at(i, j)] = k;
                // Row j is this rank's when row i is the other rank's: different i, different words.
                if (rowIsMine) K.store(i, j, k);
                else K.store(j, i, k);
            }
            progress.add(j1 - j0);
        }
    });
    progress.finish();
    // Mirror inside the block: row j copies its part left of the diagonal from the (already
    // stored) upper triangle. Row j is written only by its owner and only the upper triangle is
    // read, so no two threads touch the same word.
    // Tiles of 64 x 64 keep the reads of the upper triangle in cache.
    const std::size_t tile = 64, tiles = (r1 - r0 + tile - 1) / tile;
    parallelFor(tiles, 1, [&](std::size_t begin, std::size_t end, unsigned) {
        for (std::size_t tb = begin; tb < end; ++tb) // rows j of tile tb are this thread's
            for (std::size_t ta = 0; ta <= tb; ++ta)
                for (std::size_t i = r0 + ta * tile; i < std::min(r1, r0 + (ta + 1) * tile); ++i)
                    for (std::size_t j = std::max(i + 1, r0 + tb * tile); j < std::min(r1, r0 + (tb + 1) * tile); ++j) {
                        const float k = K.get(std::uint32_t(i), std::uint32_t(j));
                        if (k != 0.0f) K.store(std::uint32_t(j), std::uint32_t(i), k);
                    }
    });
    if (share) {
        // Each rank's half of the blocks it shares with this one, and this one's to each rank.
        std::vector<std::vector<float>> sendTo(blocks.size());
        for (std::size_t r = 0; r < blocks.size(); ++r) sendTo[r] = std::move(blocks[r].values);
        const std::vector<std::vector<float>> received = share->ranks().alltoall(std::move(sendTo));
        for (int r = 0; r < share->count(); ++r) {
            if (r == share->rank()) continue;
            PairBlock theirs = tracedBy(*share, r, share->rank());
            if (received[std::size_t(r)].size() != std::size_t(theirs.i1 - theirs.i0) * (theirs.j1 - theirs.j0))
                throw Error("internal: rank " + std::to_string(r) + " sent a block of K of another size");
            theirs.values = received[std::size_t(r)];
            parallelFor(theirs.i1 - theirs.i0, 16, [&](std::size_t begin, std::size_t end, unsigned) {
                for (std::uint32_t i = theirs.i0 + std::uint32_t(begin); i < theirs.i0 + end; ++i)
                    for (std::uint32_t j = theirs.j0; j < theirs.j1; ++j) {
                        const float k = theirs.values[theirs.at(i, j)];
                        if (k == 0.0f) continue;
                        if (i >= r0 && i < r1) K.store(i, j, k);
                        else K.store(j, i, k);
                    }
            });
        }
    }

    VisibilityStats stats;
    for (const Counts& cnt : counts) {
        stats.candidatePairs += cnt.candidates;
        stats.nonzeroPairs += cnt.nonzero;
        stats.raysCast += cnt.rays;
        stats.clearPairs += cnt.clear;
    }
    return stats;
}

} // namespace rsim
