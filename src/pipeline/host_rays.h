// SPDX-License-Identifier: MIT
// Rays on the CPU for a GPU run that casts few. Creating a GPU device with ray tracing costs
// 0.25-0.32 s on NVIDIA's driver against 0.06-0.09 s without (docs/benchmarks.md, "GPU
// start-up"), longer than a small scene's whole visibility on the CPU's threads. So:
//   - when the K cache holds this run's K and its other rays (direct terms, sensor image; a few
//     hundred thousand per pose on the generated rooms) are few, the CPU (Embree) casts them,
//     the GPU is created without ray tracing for the transport, the signals and the distances,
//     and K is read from the cache while the GPU is created;
//   - when K is not in the cache but its rays too are few for this machine's threads (a scene of
//     a few hundred triangles), the CPU computes K while the GPU is created, and casts the
//     other rays (K is not stored in the cache: the cache keeps the GPU's K). Not with `auto` on
//     the bvh ray path, whose device needs no ray-tracing extension and so costs nothing more.
//
// The results equal a run with `--host-rays never` within the CPU and GPU backends' agreement
// (docs/model-choices.md, "Rays on the CPU").
#pragma once
#include <cstdint>
#include <string>

#include "core/sim_config.h"

namespace rsim {

enum class HostRays {
    Auto,   // when the rays (K's too, when it is not in the K cache) are few for this machine's threads
    Always, // whenever the run has indirect light in one process (tests; machines whose CPU is fast)
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

// About the rays of K over `triangles`, from above: S for every pair, as if every pair faced
// (from a third to three quarters of the generated rooms' pairs do), and near pairs' extra
// samples for six neighbours per triangle (a vertex of a mesh has about six triangles round it).
// The tiny room: 4.3 million, against 3.3 million cast.
std::uint64_t kRaysBound(std::uint64_t triangles, const KSettings& k);

// Whether K's `rays` are few enough for the CPU's `threads` to cast them in about the 0.2 s
// that a device without ray tracing saves, while it is created: two million of K's rays per
// thread and second, conservatively (4.4 million, sampling included, on the development
// machine's cores).
bool fewHostKRays(std::uint64_t rays, unsigned threads);

} // namespace rsim
