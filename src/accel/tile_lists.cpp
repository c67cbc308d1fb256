// SPDX-License-Identifier: MIT
#include "accel/tile_lists.h"

#include <algorithm>
#include <random>

namespace rsim {

shared::TileShaft tileShaft(const PreparedScene& s, std::uint32_t r0, std::uint32_t r1, std::uint32_t c0,
                            std::uint32_t c1, float eps) {
    // The three passes of shaders/tile_shafts.comp over the rows' block, then the columns'.
    const std::uint32_t rows = r1 - r0, count = rows + (c1 - c0);
    auto at = [&](std::uint32_t k) { return k < rows ? r0 + k : c0 + k - rows; };
    shared::TileBlocks b = shared::rsimTileBlocksEmpty();
    for (std::uint32_t k = 0; k < count; ++k) b = shared::rsimTileBlocksAdd(b, s.tri(at(k)), s.normal[at(k)], k < rows);
    const glm::mat3 frame = shared::rsimTileFrame(b);
    const glm::vec3 centre = 0.5f * (b.lo + b.hi);
    shared::TileExtents e = shared::rsimTileExtentsEmpty();
    for (std::uint32_t k = 0; k < count; ++k) {
        const shared::Tri t = s.tri(at(k));
        for (const glm::vec3& p : {t.v0, t.v1, t.v2}) e = shared::rsimTileExtentsAdd(e, frame, centre, p, k < rows);
    }
    shared::TileShaft shaft = shared::rsimTileShaftBegin(b, frame, e, eps);
    for (std::uint32_t k = 0; k < count; ++k) {
        const shared::Tri t = s.tri(at(k));
        for (const glm::vec3& p : {t.v0, t.v1, t.v2}) shaft = shared::rsimTileShaftAdd(shaft, p);
    }
    return shaft;
}

std::vector<std::uint32_t> tileCandidates(const PreparedScene& s, const ShaftBvh& bvh, std::uint32_t r0,
                                          std::uint32_t r1, std::uint32_t c0, std::uint32_t c1, float eps,
                                          std::uint32_t limit) {
    const shared::TileShaft shaft = tileShaft(s, r0, r1, c0, c1, eps);
    std::vector<std::uint32_t> out;
    bvh.forEachTileCandidate(s, shaft, eps, [&](std::uint32_t t) {
        out.push_back(t);
        return out.size() <= limit;
    });
    return out;
}

double listedPairShare(const PreparedScene& s, const ShaftBvh& bvh, std::uint32_t limit, std::uint32_t tiles) {
    const std::uint32_t n = std::uint32_t(s.size()), E = shared::RSIM_TILE_EDGE, blocks = (n + E - 1) / E;
    if (n < 2) return 0.0;
    const float eps = shaftEps(s);
    std::mt19937 rng(1);
    std::uniform_int_distribution<std::uint32_t> pick(0, blocks - 1);
    std::uint64_t facing = 0, listed = 0;
    for (std::uint32_t k = 0; k < tiles; ++k) {
        const std::uint32_t r0 = pick(rng) * E, c0 = pick(rng) * E;
        const std::uint32_t r1 = std::min(n, r0 + E), c1 = std::min(n, c0 + E);
        std::uint64_t pairs = 0;
        for (std::uint32_t i = r0; i < r1; ++i)
            for (std::uint32_t j = c0; j < c1; ++j)
                pairs += i != j && shared::rsimCanFace(s.tri(i), s.normal[i], s.tri(j), s.normal[j]);
        if (pairs == 0) continue;
        facing += pairs;
        if (tileCandidates(s, bvh, r0, r1, c0, c1, eps, limit).size() <= limit) listed += pairs;
    }
    return facing ? double(listed) / double(facing) : 0.0;
}

} // namespace rsim
