// SPDX-License-Identifier: MIT
// The geometry phase's K for a batch (pipeline/simulate.h): where it comes from (a K read or
// computed before the batch, one held from an earlier batch, the K cache, or the visibility on
// the geometry backend), its timings and log lines, and under MPI the ranks' rows of it.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "backends/backend.h"
#include "core/run_metadata.h"
#include "k/row_share.h"
#include "pipeline/simulate.h"
#include "util/ranks.h"
#include "util/timer.h"

namespace rsim {

// Notes the device memory `backend` holds after `phase` in meta.deviceMemory (whose entries are
// its devices, from the visibility plan; without them, nothing is noted).
void noteDeviceMemory(const Backend& backend, RunMetadata& meta, const char* phase);

// The visibility and compression on `geometry`, timed (`visibility`, `compress`) and logged,
// with their counts and report in `stats` and `meta.k`; under MPI row blocks (`share`), the
// counts of the whole K. With `journal` (the K cache's chunks file, k/k_journal.h), a backend
// that computes K chunk by chunk keeps its chunks there and places those it holds; `kInJournal`
// then says whether the file holds all of K.
std::unique_ptr<KHandle> computeK(Backend& geometry, const KSettings& k, PhaseTimes& times, RunMetadata& meta,
                                  VisibilityStats& stats, const RowShare* share, KJournal* journal = nullptr,
                                  bool* kInJournal = nullptr);

// K placed where `transport` reads it (K from the K cache, or another backend's), timed as the
// phase `k_placement` when the backend placed anything: before the transport's own phase, so
// that neither `radiosity` nor `phasors` counts it and `total` does.
void placeKForTransport(Backend& transport, KHandle* K, const SimConfig& config, PhaseTimes& times);

// Row-block mode: this rank's rows of K, once every rank is known to run the same job (none
// without indirect light: there is no K); the split is logged and noted in meta.rowsOfRanks.
std::optional<RowShare> rowShareFor(const Ranks& ranks, const PreparedScene& s, const std::vector<PoseConfig>& poses,
                                    RunMetadata& meta);

struct BatchK {
    std::unique_ptr<KHandle> K; // read or computed for this batch (null: none, or the held one)
    KHandle* used = nullptr;    // the K the transport uses: `K`, or the held one
    VisibilityStats stats;
};

// K for a batch whose first pose is `first` (none without indirect light and output.kij): from
// `opt.k`'s sources when they have it, else computed on `geometry` (and stored in the K cache),
// with the run's forecast logged before the long phases.
BatchK batchK(Backend& geometry, const PreparedScene& s, const SimConfig& first, std::size_t poses,
              const RunOptions& opt, const RowShare* share, PhaseTimes& times, RunMetadata& meta);

} // namespace rsim
