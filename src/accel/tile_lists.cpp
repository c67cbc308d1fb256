// SPDX-License-Identifier: MIT
#include "accel/tile_lists.h"

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

} // namespace rsim
