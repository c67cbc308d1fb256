// SPDX-License-Identifier: MIT
#include "visibility/cpu_visibility.h"

#include <algorithm>
#include <optional>

#include <spdlog/spdlog.h>

#include "rsim/shared/form_factor.h"
#include "rsim/shared/shaft.h"
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

float kernelEntry(const PreparedScene& s, const KSettings& c, std::size_t i, std::size_t j,
                  const EmbreeScene& scene, const ShaftBvh* shafts, std::uint64_t& rays, bool* clear) {
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
        for (std::uint32_t n = 0; n < perSide; ++n) {
            const shared::RaySegment seg = shared::rsimKSideSample(
                s.tri(e), s.normal[e], s.tri(o), s.normal[o], s.area[o], share, n, offset, k.eps);
            if (seg.weight > 0.0f) tracer.add(seg, side);
        }
    }
    tracer.flush();
    return shared::rsimKPairValue(tracer.sums[0], tracer.sums[1], perSide, s.area[i], s.area[j], k.estimator);
}

VisibilityStats computeVisibilityCpu(const PreparedScene& s, const KSettings& c, const EmbreeScene& rays,
                                     HostK& K) {
    const std::size_t n = s.size();
    std::optional<ShaftBvh> shafts;
    if (c.clearPairsByFormula && c.estimator != KEstimator::Area) shafts = ShaftBvh::build(s);
    const unsigned workers = threadCount();
    struct alignas(64) Counts {
        std::uint64_t candidates = 0, nonzero = 0, rays = 0, clear = 0;
    };
    std::vector<Counts> counts(workers);
    Progress progress("visibility", std::uint64_t(n) * (n - 1) / 2, "pairs");

    // Upper triangle, row by row: each row has one writer, and elements of different rows are
    // different words (K is fp32 until compressed). Rows get shorter, so small chunks keep the
    // cores busy.
    parallelFor(n, 4, [&](std::size_t begin, std::size_t end, unsigned w) {
        Counts& cnt = counts[w];
        for (std::size_t i = begin; i < end; ++i) {
            const shared::Tri ti = s.tri(i);
            for (std::size_t j = i + 1; j < n; ++j) {
                if (!shared::rsimCanFace(ti, s.normal[i], s.tri(j), s.normal[j])) continue;
                ++cnt.candidates;
                bool clear = false;
                const float k = kernelEntry(s, c, i, j, rays, shafts ? &*shafts : nullptr, cnt.rays, &clear);
                cnt.clear += clear ? 1 : 0;
                if (k == 0.0f) continue;
                ++cnt.nonzero;
                K.store(std::uint32_t(i), std::uint32_t(j), k);
            }
            progress.add(n - 1 - i);
        }
    });
    progress.finish();
    // Mirror: row j copies its lower part from the (already stored) upper triangle. Row j is
    // written only by its owner and only the upper triangle is read, so no two threads touch
    // the same word.
    // Tiles of 64 x 64 keep the reads of the upper triangle in cache.
    const std::size_t tile = 64, tiles = (n + tile - 1) / tile;
    parallelFor(tiles, 1, [&](std::size_t begin, std::size_t end, unsigned) {
        for (std::size_t tb = begin; tb < end; ++tb) // rows j of tile tb are this thread's
            for (std::size_t ta = 0; ta <= tb; ++ta)
                for (std::size_t i = ta * tile; i < std::min(n, (ta + 1) * tile); ++i)
                    for (std::size_t j = std::max(i + 1, tb * tile); j < std::min(n, (tb + 1) * tile); ++j) {
                        const float k = K.get(std::uint32_t(i), std::uint32_t(j));
                        if (k != 0.0f) K.store(std::uint32_t(j), std::uint32_t(i), k);
                    }
    });

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
