// SPDX-License-Identifier: MIT
// The far pairs of the CPU's time-stepped transport (a delay of kCpuTimeBlock steps or more),
// listed once per tile of receivers: K's non-zero elements with their delays, in the order in
// which the tile's gather reads them (source j, then receiver). Each time block then reads the
// pairs instead of decoding the tile's whole K block and working out every delay again (the
// medium room: 131 M elements and 21 M square roots per block of 8 steps, 125 blocks per 1000).
#pragma once
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "core/prepared_scene.h"
#include "k/host_k.h"

namespace rsim {

struct FarPair {
    std::uint32_t source;   // j
    float k;                // K_ij, decoded
    std::uint32_t delayRow; // tau_ij << 8 | the receiver's row in its tile
};
static_assert(sizeof(FarPair) == 12);

class FarPairLists {
  public:
    // The lists of every tile of `tileRows` rows (at most 256) of the chunks K holds, as
    // parallelRowTiles cuts them; none (nullopt) where they would take more than `maxBytes`
    // or a delay does not fit 24 bits.
    static std::optional<FarPairLists> build(const PreparedScene& s, const HostK& K, float invCdtSq,
                                             std::uint32_t tileRows, std::uint32_t nearSteps,
                                             std::uint64_t maxBytes);
    // The pairs of the tile whose first row is `a` (an offset within chunk `c`).
    std::span<const FarPair> tile(std::uint32_t c, std::uint32_t a) const {
        return lists_[firstTile_[c - firstChunk_] + a / tileRows_];
    }
    std::uint64_t bytes() const { return bytes_; }

  private:
    FarPairLists() = default;
    std::uint32_t tileRows_ = 0, firstChunk_ = 0;
    std::vector<std::uint32_t> firstTile_; // per held chunk: the index of its first tile
    std::vector<std::vector<FarPair>> lists_;
    std::uint64_t bytes_ = 0;
};

} // namespace rsim
