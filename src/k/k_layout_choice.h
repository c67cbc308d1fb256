// SPDX-License-Identifier: MIT
// Which layout a K is stored in (core/k_format.h's KLayout): what simulation.k_layout asks, or
// for "auto" segments where they take at most kSegmentsShare of the dense bytes. Decided on the
// job's totals (every MPI rank's rows), so every rank stores its rows alike.
#pragma once
#include "core/k_format.h"
#include "core/run_metadata.h"
#include "k/host_k.h"
#include "util/ranks.h"

namespace rsim {

inline constexpr double kSegmentsShare = 0.75;

// Bytes of K's held chunks dense and as segments, their segments and non-zero values.
struct KLayoutSizes {
    std::uint64_t denseBytes = 0, segmentBytes = 0, segments = 0, values = 0;
};
KLayoutSizes layoutSizes(const HostK& denseK);

// The layout for `requested` (Auto: by the sizes, summed over `ranks` when given).
KLayout chooseKLayout(KLayout requested, const HostK& denseK, const Ranks* ranks);

// storage's layout, and as segments its bytes and segments (this rank's: k_phase.cpp sums them).
void noteKLayout(const HostK& K, KStorageReport& storage);

} // namespace rsim
