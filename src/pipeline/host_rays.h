// SPDX-License-Identifier: MIT
// Rays on the CPU for a GPU run whose K comes from the K cache. Such a run casts rays only for
// the direct terms and the sensor image, a few hundred thousand per pose on the generated rooms,
// but creating a GPU device with ray tracing costs 0.25-0.32 s on NVIDIA's driver against
// 0.06-0.09 s without (docs/benchmarks.md, "GPU start-up"), longer than a whole cached run's
// transport. So when the K cache holds this run's K and its other rays are few, the CPU
// (Embree) casts them, the GPU is created without ray tracing for the transport, the signals
// and the distances, and K is read from the cache while the GPU is created.
//
// The results equal a run with `--host-rays never` within the CPU and GPU backends' agreement
// (the direct terms and the image on the CPU; docs/model-choices.md, "Rays on the CPU").
#pragma once
#include <cstdint>
#include <string>

#include "core/sim_config.h"

namespace rsim {

enum class HostRays {
    Auto,   // when K comes from the K cache and the rays are few for this machine's threads
    Always, // whenever K comes from the K cache (tests; machines whose CPU is fast)
    Never,  // the GPU casts every ray (a run from the cache then equals the run that stored K)
};

// --host-rays auto|always|never; InputError otherwise.
HostRays parseHostRays(const std::string& value);

// The rays a pose casts outside K's visibility: for the direct terms, one towards the light and
// one towards the sensor per sample and triangle; with images, a primary and a shadow ray per
// pixel.
std::uint64_t poseRays(std::uint64_t triangles, const SimConfig& config, bool images);

// Whether `rays` are few enough for the CPU's `threads` to cast them in about the 0.2 s that a
// device without ray tracing saves: at least a million rays per thread and second,
// conservatively (Embree's occlusion rays run at several million).
bool fewHostRays(std::uint64_t rays, unsigned threads);

} // namespace rsim
