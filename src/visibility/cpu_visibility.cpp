// SPDX-License-Identifier: MIT
#include "visibility/cpu_visibility.h"

#include <algorithm>

#include <spdlog/spdlog.h>

#include "util/parallel.h"
#include "util/progress.h"

namespace rsim {

VisibilityStats formFactorDiagnostics(const PreparedScene& s, const std::vector<float>& K) {
    const std::size_t n = s.size();
    std::vector<double> rowSum(n, 0.0);
    std::vector<std::uint64_t> clamped(n, 0);
    parallelFor(n, 16, [&](std::size_t begin, std::size_t end, unsigned) {
        for (std::size_t i = begin; i < end; ++i)
            for (std::size_t j = 0; j < n; ++j) {
                const float k = K[i * n + j];
                if (k == 0.0f) continue;
                clamped[i] += k * s.area[j] > 1.0f;
                rowSum[i] += double(shared::rsimFormFactor(k, s.area[j]));
            }
    });
    VisibilityStats stats;
    for (std::size_t i = 0; i < n; ++i) {
        stats.clampedFormFactors += clamped[i];
        stats.maxRowSum = std::max(stats.maxRowSum, rowSum[i]);
        stats.rowsOverOne += rowSum[i] > kRowSumWarning;
    }
    return stats;
}

float kernelEntry(const PreparedScene& s, const SimConfig& c, std::size_t i, std::size_t j,
                  const EmbreeScene& scene, std::uint64_t& rays) {
    // The triangle with the smaller stable id takes dims 0,1 and is the ray's origin.
    const std::size_t a = s.id[i] < s.id[j] ? i : j, b = a == i ? j : i;
    const shared::Tri ta = s.tri(a), tb = s.tri(b);
    const glm::vec4 offset = shared::rsimOffset4(shared::rsimPairHash(s.id[a], s.id[b], c.seed));
    shared::RaySegment batch[16];
    bool occluded[16];
    float sum = 0.0f;
    int count = 0;
    auto flush = [&] {
        scene.occluded16(batch, count, occluded);
        for (int k = 0; k < count; ++k)
            if (!occluded[k]) sum += batch[k].weight;
        rays += std::uint64_t(count);
        count = 0;
    };
    for (std::uint32_t k = 0; k < c.samples; ++k) {
        const shared::RaySegment seg = shared::rsimKernelSample(
            ta, s.normal[a], tb, s.normal[b], shared::rsimR4Point(k, offset), s.rayEps);
        if (seg.weight <= 0.0f) continue;
        batch[count++] = seg;
        if (count == 16) flush();
    }
    if (count > 0) flush();
    return sum / float(c.samples);
}

VisibilityStats computeVisibilityCpu(const PreparedScene& s, const SimConfig& c,
                                     const EmbreeScene& rays, std::vector<float>& K) {
    const std::size_t n = s.size();
    K.assign(n * n, 0.0f);
    const unsigned workers = threadCount();
    struct alignas(64) Counts {
        std::uint64_t candidates = 0, nonzero = 0, rays = 0;
    };
    std::vector<Counts> counts(workers);
    Progress progress("visibility", std::uint64_t(n) * (n - 1) / 2, "pairs");

    // Upper triangle, row by row; rows get shorter, so small chunks keep the cores busy.
    parallelFor(n, 4, [&](std::size_t begin, std::size_t end, unsigned w) {
        Counts& cnt = counts[w];
        for (std::size_t i = begin; i < end; ++i) {
            const shared::Tri ti = s.tri(i);
            float* row = &K[i * n];
            for (std::size_t j = i + 1; j < n; ++j) {
                if (!shared::rsimCanFace(ti, s.normal[i], s.tri(j), s.normal[j])) continue;
                ++cnt.candidates;
                float k = kernelEntry(s, c, i, j, rays, cnt.rays);
                row[j] = k;
                cnt.nonzero += k > 0.0f;
            }
            progress.add(n - 1 - i);
        }
    });
    // Mirror into the lower triangle, in cache-friendly tiles.
    const std::size_t tile = 64;
    const std::size_t tiles = (n + tile - 1) / tile;
    parallelFor(tiles, 1, [&](std::size_t begin, std::size_t end, unsigned) {
        for (std::size_t tb = begin; tb < end; ++tb)
            for (std::size_t ta = 0; ta <= tb; ++ta)
                for (std::size_t i = ta * tile; i < std::min(n, (ta + 1) * tile); ++i)
                    for (std::size_t j = std::max(i + 1, tb * tile);
                         j < std::min(n, (tb + 1) * tile); ++j)
                        K[j * n + i] = K[i * n + j];
    });
    progress.finish();

    VisibilityStats stats = formFactorDiagnostics(s, K);
    for (const Counts& cnt : counts) {
        stats.candidatePairs += cnt.candidates;
        stats.nonzeroPairs += cnt.nonzero;
        stats.raysCast += cnt.rays;
    }
    return stats;
}

} // namespace rsim
