// SPDX-License-Identifier: MIT
#include "transport/near_pairs.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>

#include "rsim/shared/transport.h"
#include "util/parallel.h"

namespace rsim {

NearLists buildNearLists(const PreparedScene& s, const SimConfig& c,
                         const std::function<float(std::uint32_t, std::uint32_t)>& K, std::uint32_t nearBelow,
                         std::uint32_t rowBegin, std::uint32_t rowEnd) {
    const std::size_t n = s.size();
    const std::size_t r0 = std::min<std::size_t>(rowBegin, n), r1 = std::clamp<std::size_t>(rowEnd, r0, n);
    // Cells of one near radius (with a margin for rounding): near pairs are in adjacent cells.
    const double cell = (double(nearBelow) + 1.0) * c.cdtM;
    // Integer cell coordinates, so that the neighbours of a cell are found by adding -1, 0, 1
    // to them (offsetting the point in float could land in the same cell and skip one).
    auto cellOf = [&](const glm::vec3& p) {
        return glm::i64vec3(std::floor(double(p.x) / cell), std::floor(double(p.y) / cell),
                            std::floor(double(p.z) / cell));
    };
    auto key = [](const glm::i64vec3& q) {
        return ((q.x & 0x1fffff) << 42) | ((q.y & 0x1fffff) << 21) | (q.z & 0x1fffff);
    };
    std::unordered_map<std::int64_t, std::vector<std::uint32_t>> grid;
    for (std::size_t j = 0; j < n; ++j) grid[key(cellOf(s.centroid[j]))].push_back(std::uint32_t(j));
    std::vector<std::vector<shared::NearPair>> lists(n);
    parallelFor(r1 - r0, 64, [&](std::size_t begin, std::size_t end, unsigned) {
        for (std::size_t i = r0 + begin; i < r0 + end; ++i) {
            const glm::vec3 ci = s.centroid[i];
            const glm::i64vec3 qi = cellOf(ci);
            for (int dx = -1; dx <= 1; ++dx)
                for (int dy = -1; dy <= 1; ++dy)
                    for (int dz = -1; dz <= 1; ++dz) {
                        auto it = grid.find(key(qi + glm::i64vec3(dx, dy, dz)));
                        if (it == grid.end()) continue;
                        for (std::uint32_t j : it->second) {
                            if (j == i) continue;
                            const float k = K(std::uint32_t(i), j);
                            if (k == 0.0f) continue;
                            const std::uint32_t tau = shared::rsimDelaySteps(ci, s.centroid[j], c.invCdtSq);
                            if (!shared::rsimIsNearDelay(tau, nearBelow)) continue;
                            const glm::vec2 f = shared::rsimGatherCoefficients(k, s.area[i], s.area[j],
                                                                               s.reflectance[j] * s.area[j]);
                            lists[i].push_back({j, tau, f.x, f.y});
                        }
                    }
            std::sort(lists[i].begin(), lists[i].end(),
                      [](const shared::NearPair& a, const shared::NearPair& b) { return a.source < b.source; });
            // Neighbouring cells can map to the same key only for huge coordinates; keep each j once.
            lists[i].erase(std::unique(lists[i].begin(), lists[i].end(),
                                       [](const shared::NearPair& a, const shared::NearPair& b) {
                                           return a.source == b.source;
                                       }),
                           lists[i].end());
        }
    });
    NearLists out;
    out.offsets.assign(n + 1, 0);
    for (std::size_t i = 0; i < n; ++i) out.offsets[i + 1] = out.offsets[i] + std::uint32_t(lists[i].size());
    out.pairs.reserve(out.offsets[n]);
    for (auto& l : lists) out.pairs.insert(out.pairs.end(), l.begin(), l.end());
    return out;
}

NearLists mergeNearLists(const std::vector<NearLists>& parts) {
    NearLists out;
    if (parts.empty()) return out;
    const std::size_t n = parts[0].offsets.size() - 1;
    out.offsets.assign(n + 1, 0);
    for (std::size_t i = 0; i < n; ++i) {
        std::uint32_t count = 0;
        for (const NearLists& p : parts) count += p.offsets[i + 1] - p.offsets[i];
        out.offsets[i + 1] = out.offsets[i] + count;
    }
    out.pairs.reserve(out.offsets[n]);
    for (std::size_t i = 0; i < n; ++i)
        for (const NearLists& p : parts)
            out.pairs.insert(out.pairs.end(), p.pairs.begin() + p.offsets[i], p.pairs.begin() + p.offsets[i + 1]);
    return out;
}

} // namespace rsim
