// SPDX-License-Identifier: MIT
// In-process Vulkan runs for the tests of K's routes and layouts (several devices, streaming, the
// memory caps, K stored as segments): a run's results and metadata, and their comparison.
#pragma once
#include <cstdint>
#include <string>

#include "core/results.h"
#include "core/run_metadata.h"
#include "core/sim_config.h"
#include "core/prepared_scene.h"

namespace rsim::test {

// A 4 x 3 x 2.5 m room with a box: a small scene whose K takes several chunks at a few KiB each.
PreparedScene roomWithBox();

struct Run {
    SimulationResult result;
    RunMetadata meta;
};

// A simulation on the Vulkan backend under the validation layer with `devices` (--devices),
// `stream` (--stream), the memory caps in MiB (0: none) and the transport's blocks per pass.
Run runVulkan(const PreparedScene& s, const SimConfig& c, const std::string& devices, const std::string& stream,
              double maxDeviceMb = 0.0, double maxHostMb = 0.0, std::uint32_t passBlocks = 0);

// Whether the run's summary has the timing detail `key` (which way K was computed), and its value
// (-1 without it).
bool hasDetail(const Run& r, const std::string& key);
double detail(const Run& r, const std::string& key);

// Same K chunks, so the same tables, near lists and far sums: the histories must match to the
// last bit; allow fp32 summation order anyway (1e-6 of the peak), as the issue states.
void requireSame(const Run& a, const Run& b);

} // namespace rsim::test
