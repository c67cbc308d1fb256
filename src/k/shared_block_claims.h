// SPDX-License-Identifier: MIT
// How two devices of one process share the block of pairs between their rows (part 0's rows
// against part 1's, k/row_share.h): the block is cut into groups of part 0's chunks, each cast
// whole by one device. Part 0 claims groups from the first, part 1 from the last, one at a time
// as each device's earlier casts finish, until the two meet. So the device with less work
// elsewhere, or with cheaper pairs, casts more of the block, and both end together by the work
// they measured, not by an estimate of it (pairs differ in cost: a cut that evened out the
// facing pairs left one device 4-9% more time in its passes, docs/benchmarks.md, "Two GPUs
// against one"). Only who casts a pair changes, never its value.
#pragma once
#include <cstdint>
#include <mutex>
#include <optional>

namespace rsim {

class SharedBlockClaims {
public:
    // Part 0's chunks [firstChunk, endChunk), in groups of `chunksPerGroup` (the last may be
    // shorter).
    SharedBlockClaims(std::uint32_t firstChunk, std::uint32_t endChunk, std::uint32_t chunksPerGroup);
    SharedBlockClaims(const SharedBlockClaims&) = delete;
    SharedBlockClaims& operator=(const SharedBlockClaims&) = delete;

    std::uint32_t groups() const { return groups_; }
    // Group g's chunks: [groupBegin(g), groupEnd(g)).
    std::uint32_t groupBegin(std::uint32_t g) const { return first_ + g * per_; }
    std::uint32_t groupEnd(std::uint32_t g) const;

    // The next group of `part` (0: from the first, 1: from the last), or none once the parts
    // have met (or, with a fixed cut, once this part has taken its side). Thread-safe.
    std::optional<std::uint32_t> claim(int part);
    // Groups [0, met()) went to part 0, the others to part 1 (once neither claims any more).
    std::uint32_t met() const;

private:
    const std::uint32_t first_, end_, per_, groups_;
    std::optional<std::uint32_t> fixed_; // the tests' cut: part 0 takes the groups before it
    mutable std::mutex mutex_;
    std::uint32_t front_ = 0, back_; // groups [front_, back_) are unclaimed
};

// Part 0's chunks in a group: about `pairsPerCast` pairs against part 1's `columns` rows, at
// least one chunk.
std::uint32_t sharedBlockGroupChunks(std::uint64_t pairsPerCast, std::uint32_t rowsPerChunk, std::uint32_t columns);

// Tests: from now on the cut lies at `fraction` of the groups (0: part 1 casts the whole block,
// 1: part 0 does), not where the devices meet; negative: where they meet again.
void fixSharedBlockCut(double fraction);

} // namespace rsim
