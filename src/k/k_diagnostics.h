// SPDX-License-Identifier: MIT
// Energy diagnostics of K (MODEL §2 step 7): row sums sum_j min(1, K_ij A_j), the clamped form
// factors, and the rows above kRowSumWarning. The GPU computes the row sums of a resident K
// with shaders/formfactor_sums.comp (k/gpu_k.h); both end in summariseRowSums.
#pragma once
#include <cstdint>
#include <vector>

#include "core/results.h"
#include "core/run_metadata.h"
#include "k/host_k.h"

namespace rsim {

// The energy fields of VisibilityStats from per-row sums and the count of clamped entries.
VisibilityStats summariseRowSums(const std::vector<double>& rowSums, std::uint64_t clamped);

// The same over a K in host memory (the chunks it holds); `area` by internal index.
VisibilityStats formFactorDiagnostics(const HostK& K, const std::vector<float>& area);
// The same sums for the rows of chunk c alone, added to rowSum[r0, r1); returns the clamped
// count. formFactorDiagnostics adds up these, chunk by chunk.
std::uint64_t addChunkRowSums(const KChunking& ch, std::uint32_t c, const EncodedChunk& chunk,
                              const std::vector<float>& area, std::vector<double>& rowSum);

// Copies the energy fields of `energy` (one of the above) into `stats`.
void setEnergy(VisibilityStats& stats, const VisibilityStats& energy);

// `--kij-errors`: every storage format's error against K, which is still fp32 (summary.json's
// k_format_errors).
std::vector<KStorageReport::FormatError> formatErrorReport(const HostK& fp32K);

} // namespace rsim
