// SPDX-License-Identifier: MIT
// Time-resolved radiosity B and importance Z on the CPU (MODEL §5).
#pragma once
#include <vector>

#include "compress/host_k.h"
#include "geometry/prepared_scene.h"
#include "pipeline/sim_config.h"

namespace rsim {

// B and Z as [i * T + t] from the sources E, R ([i * T + t]) and K in any format (read one
// decoded row at a time). indirect == false gives B = E, Z = R.
void runTransportCpu(const PreparedScene& scene, const SimConfig& config, const HostKMatrix& K,
                     const std::vector<float>& E, const std::vector<float>& R,
                     std::vector<float>& B, std::vector<float>& Z);

} // namespace rsim
