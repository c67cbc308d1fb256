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
    auto occluded = [&rays](const shared::RaySegment& seg) {
        return rays.occluded(seg.origin, seg.dir, seg.tmin, seg.tmax);
    };

    // Upper triangle, row by row; rows get shorter, so small chunks keep the cores busy.
    parallelFor(n, 4, [&](std::size_t begin, std::size_t end, unsigned w) {
        Counts& cnt = counts[w];
        for (std::size_t i = begin; i < end; ++i) {
            const shared::Tri ti = s.tri(i);
            float* row = &K[i * n];
            for (std::size_t j = i + 1; j < n; ++j) {
                if (!shared::rsimCanFace(ti, s.normal[i], s.tri(j), s.normal[j])) continue;
                ++cnt.candidates;
                float k = kernelEntry(s, c, i, j, occluded, cnt.rays);
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
