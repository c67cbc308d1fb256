// SPDX-License-Identifier: MIT
// The occluder list of a tile of pairs on the host (include/rsim/shared/tile_shaft.h): the same
// shaft and query as shaders/tile_shafts.comp, for the tests and studies that check the GPU's
// lists.
#pragma once
#include <cstdint>
#include <vector>

#include "accel/shaft_bvh.h"

namespace rsim {

// The shaft of the tile of rows [r0, r1) and columns [c0, c1) of the triangles.
shared::TileShaft tileShaft(const PreparedScene& s, std::uint32_t r0, std::uint32_t r1, std::uint32_t c0,
                            std::uint32_t c1, float eps);

// Every triangle that may meet the tile's shaft, in the GPU's traversal order; more than `limit`
// stops the query early (the GPU then traces the tile's rays).
std::vector<std::uint32_t> tileCandidates(const PreparedScene& s, const ShaftBvh& bvh, std::uint32_t r0,
                                          std::uint32_t r1, std::uint32_t c0, std::uint32_t c1, float eps,
                                          std::uint32_t limit = 0xffffffffu);

// The share of the facing pairs of `tiles` tiles drawn at random (a fixed seed) whose tile lists
// at most `limit` triangles: what a GPU run would test against lists rather than trace.
double listedPairShare(const PreparedScene& s, const ShaftBvh& bvh, std::uint32_t limit, std::uint32_t tiles);

} // namespace rsim
