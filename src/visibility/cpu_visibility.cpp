// SPDX-License-Identifier: MIT
#include "visibility/cpu_visibility.h"

#include <algorithm>

#include <spdlog/spdlog.h>

#include "util/parallel.h"
#include "util/progress.h"

namespace rsim {

VisibilityStats formFactorDiagnostics(const PreparedScene& s, const HostKMatrix& K) {
    const std::size_t n = s.size();
    std::vector<double> rowSum(n, 0.0);
    std::vector<std::uint64_t> clamped(n, 0);
    std::vector<std::vector<float>> rows(threadCount(), std::vector<float>(n));
    parallelFor(n, 16, [&](std::size_t begin, std::size_t end, unsigned w) {
        float* row = rows[w].data();
        for (std::size_t i = begin; i < end; ++i) {
            K.decodeRow(std::uint32_t(i), row);
            for (std::size_t j = 0; j < n; ++j) {
                const float k = row[j];
                if (k == 0.0f) continue;
                clamped[i] += k * s.area[j] > 1.0f;
                rowSum[i] += double(shared::rsimFormFactor(k, s.area[j]));
            }
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
                                     const EmbreeScene& rays, HostKMatrix& K,
                                     double* fp16SquaredError) {
    const std::size_t n = s.size();
    const unsigned workers = threadCount();
    struct alignas(64) Counts {
        std::uint64_t candidates = 0, nonzero = 0, rays = 0;
        double squaredError = 0.0;
    };
    std::vector<Counts> counts(workers);
    Progress progress("visibility", std::uint64_t(n) * (n - 1) / 2, "pairs");

    // Upper triangle, row by row: each row has one writer (fp16 is converted as the value is
    // stored). Rows get shorter, so small chunks keep the cores busy.
    parallelFor(n, 4, [&](std::size_t begin, std::size_t end, unsigned w) {
        Counts& cnt = counts[w];
        for (std::size_t i = begin; i < end; ++i) {
            const shared::Tri ti = s.tri(i);
            for (std::size_t j = i + 1; j < n; ++j) {
                if (!shared::rsimCanFace(ti, s.normal[i], s.tri(j), s.normal[j])) continue;
                ++cnt.candidates;
                const float k = kernelEntry(s, c, i, j, rays, cnt.rays);
                if (k == 0.0f) continue;
                ++cnt.nonzero;
                // Both halves of K hold this value: count its conversion error twice.
                cnt.squaredError += 2.0 * K.store(std::uint32_t(i), std::uint32_t(j), k);
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
    double squaredError = 0.0;
    for (const Counts& cnt : counts) {
        stats.candidatePairs += cnt.candidates;
        stats.nonzeroPairs += cnt.nonzero;
        stats.raysCast += cnt.rays;
        squaredError += cnt.squaredError;
    }
    if (fp16SquaredError) *fp16SquaredError = squaredError;
    return stats;
}

} // namespace rsim
