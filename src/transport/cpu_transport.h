// SPDX-License-Identifier: MIT
// Time-resolved radiosity B and importance Z on the CPU (MODEL §5).
#pragma once
#include <cstdint>
#include <optional>
#include <vector>

#include "core/prepared_scene.h"
#include "core/sim_config.h"
#include "k/host_k.h"
#include "k/row_share.h"

namespace rsim {

// One pose: its settings, its sources E, R and where its B and Z go, all [i * T + t].
struct CpuTransportPose {
    const SimConfig* config;
    const std::vector<float>* E;
    const std::vector<float>* R;
    std::vector<float>* B;
    std::vector<float>* Z;
};

// B and Z of every pose from its sources and K in any format; the poses share the time axis,
// the materials and `indirect`. K is read (or its far pairs listed) once for all of them, and each pose's sums
// are added in the order of a pose run alone, so its B and Z are bit for bit the same. A null
// K, or indirect == false, gives B = E, Z = R.
// With `share` (an MPI row-block run; K holds this rank's rows), this rank gathers the far sums
// of its rows, the ranks exchange them after each time block, and every rank runs the near
// steps of all rows: B and Z are every rank's, bit for bit those of one process. The seconds
// spent waiting for the exchanges are added to times->exchange.
// K's far pairs are listed once (transport/cpu_far_pairs.h) where the lists fit `farPairBytes`
// (by default a quarter of the host's memory and half of what is free), else K is decoded for
// every block of steps: the same sums in the same order either way.
// Where a transport's seconds went (summary.json's timings_detail_s): the near and far lists,
// the far sums of every block (with the exchanges), the near steps, and of the far sums the
// seconds spent waiting for other ranks'.
struct CpuTransportTimes {
    double lists = 0.0, farSums = 0.0, nearSteps = 0.0, exchange = 0.0;
};
void runTransportCpu(const PreparedScene& scene, const HostK* K, const std::vector<CpuTransportPose>& poses,
                     const RowShare* share = nullptr, CpuTransportTimes* times = nullptr,
                     std::optional<std::uint64_t> farPairBytes = std::nullopt);

} // namespace rsim
