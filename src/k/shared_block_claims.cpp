// SPDX-License-Identifier: MIT
#include "k/shared_block_claims.h"

#include <algorithm>
#include <atomic>
#include <cmath>

#include "util/error.h"

namespace rsim {
namespace {
std::atomic<double> fixedCut{-1.0};
} // namespace

void fixSharedBlockCut(double fraction) { fixedCut = fraction; }

std::uint32_t sharedBlockGroupChunks(std::uint64_t pairsPerCast, std::uint32_t rowsPerChunk, std::uint32_t columns) {
    const double perChunk = std::max(1.0, double(rowsPerChunk) * double(columns));
    return std::uint32_t(std::clamp(std::lround(double(pairsPerCast) / perChunk), 1l, 1l << 20));
}

SharedBlockClaims::SharedBlockClaims(std::uint32_t firstChunk, std::uint32_t endChunk, std::uint32_t chunksPerGroup)
    : first_(firstChunk), end_(std::max(firstChunk, endChunk)), per_(std::max(chunksPerGroup, 1u)),
      groups_((end_ - first_ + per_ - 1) / per_), back_(groups_) {
    const double f = fixedCut;
    if (f >= 0.0) fixed_ = std::uint32_t(std::lround(std::min(f, 1.0) * double(groups_)));
}

std::uint32_t SharedBlockClaims::groupEnd(std::uint32_t g) const { return std::min(end_, first_ + (g + 1) * per_); }

std::optional<std::uint32_t> SharedBlockClaims::claim(int part) {
    if (part != 0 && part != 1) throw Error("internal: a shared block claimed by other than two parts");
    std::lock_guard lock(mutex_);
    if (front_ == back_) return std::nullopt;
    if (part == 0) {
        if (fixed_ && front_ >= *fixed_) return std::nullopt;
        return front_++;
    }
    if (fixed_ && back_ <= *fixed_) return std::nullopt;
    return --back_;
}

std::uint32_t SharedBlockClaims::met() const {
    std::lock_guard lock(mutex_);
    return front_;
}

} // namespace rsim
