// SPDX-License-Identifier: MIT
// Time-resolved radiosity B and importance Z on the CPU (MODEL §5).
#pragma once
#include <vector>

#include "core/prepared_scene.h"
#include "core/sim_config.h"
#include "k/host_k.h"

namespace rsim {

// B and Z as [i * T + t] from the sources E, R ([i * T + t]) and K in any format. A null K, or
// indirect == false, gives B = E, Z = R.
void runTransportCpu(const PreparedScene& scene, const SimConfig& config, const HostK* K,
                     const std::vector<float>& E, const std::vector<float>& R,
                     std::vector<float>& B, std::vector<float>& Z);

} // namespace rsim
