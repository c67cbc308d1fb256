// SPDX-License-Identifier: MIT
#include "pipeline/host_rays.h"

#include <algorithm>

#include "util/error.h"

namespace rsim {

HostRays parseHostRays(const std::string& value) {
    if (value == "auto") return HostRays::Auto;
    if (value == "always") return HostRays::Always;
    if (value == "never") return HostRays::Never;
    throw InputError("--host-rays " + value + ": expected auto, always or never");
}

std::uint64_t poseRays(std::uint64_t triangles, const SimConfig& c, bool images) {
    const std::uint64_t direct = 2 * triangles * std::uint64_t(c.directSamples);
    const std::uint64_t pixels = images ? 2 * std::uint64_t(c.width) * c.height : 0;
    return direct + pixels;
}

bool fewHostRays(std::uint64_t rays, unsigned threads) {
    // A tenth of a second at a million rays per thread and second.
    constexpr std::uint64_t kRaysPerThread = 100'000;
    return rays <= kRaysPerThread * std::uint64_t(threads ? threads : 1);
}

std::uint64_t kRaysBound(std::uint64_t triangles, const KSettings& k) {
    const std::uint64_t S = k.samples;
    return triangles * (triangles - std::min<std::uint64_t>(triangles, 1)) / 2 * S + triangles * 6 * S * k.nearPairFactor;
}

bool fewHostKRays(std::uint64_t rays, unsigned threads) {
    // A fifth of a second at two million rays per thread and second.
    constexpr std::uint64_t kRaysPerThread = 400'000;
    return rays <= kRaysPerThread * std::uint64_t(threads ? threads : 1);
}

} // namespace rsim
