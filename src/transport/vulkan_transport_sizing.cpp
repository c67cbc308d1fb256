// SPDX-License-Identifier: MIT
// The Vulkan transport's records and sizes (vulkan_transport.h): the per-triangle records, the
// poses one far-gather invocation serves and the pose lanes' groups, the steps of a pass over K
// (the near lists' bound), and the device bytes a pose needs.
#include "transport/vulkan_transport.h"

#include <algorithm>

#include <glm/geometric.hpp>

namespace rsim {
namespace {
constexpr std::uint32_t B = shared::RSIM_TIME_BLOCK;
} // namespace

std::vector<shared::GpuTransportTri> makeTransportRecords(const PreparedScene& s, const SimConfig& c,
                                                          const DirectTerms& d) {
    std::vector<shared::GpuTransportTri> out(s.size());
    for (std::size_t i = 0; i < s.size(); ++i) {
        const glm::vec3 u = glm::normalize(glm::dvec3(s.centroid[i]) - glm::dvec3(c.sensor.position));
        out[i].centroidArea = glm::vec4(s.centroid[i], s.area[i]);
        out[i].source = glm::vec4(s.reflectance[i], s.reflectance[i] * d.irradiance[i], d.tLight[i], d.importance[i]);
        out[i].sensorDirDelay = glm::vec4(u, d.tSensor[i]);
        out[i].extra = glm::vec4(s.reflectance[i] * s.area[i], 0.0f, 0.0f, 0.0f);
    }
    return out;
}

// One by default: each pose an invocation serves adds its own accumulators, so fewer invocations
// fit in flight for a gather bound by memory latency (the time loop of 32 poses of the medium
// room took 2.08 s with one pose per invocation, a workgroup per pose, 9.71 s with two and
// 11.56 s with four; 049ce9d).
std::uint32_t posesPerInvocation(std::uint32_t poses, const TransportTuning& tuning) {
    const std::uint32_t most = tuning.poses ? std::min(tuning.poses, shared::RSIM_MAX_RADIOSITY_POSES) : 1u;
    return poses <= 2 ? std::min(std::max(poses, 1u), most) : most;
}

std::uint32_t paddedPoses(std::uint32_t poses, const TransportTuning& tuning) {
    const std::uint32_t k = posesPerInvocation(poses, tuning);
    return (poses + k - 1) / k * k;
}

bool usesPoseLanes(std::uint32_t poses, const TransportTuning& tuning) {
    return !tuning.noLanes && posesPerInvocation(poses, tuning) == 1 && poses >= shared::RSIM_LANES &&
           poses % shared::RSIM_LANES == 0;
}

std::uint32_t poseLaneGroup(std::uint32_t poses, const TransportTuning& tuning) {
    const std::uint32_t lanes = poses - poses % shared::RSIM_LANES;
    return usesPoseLanes(lanes, tuning) ? lanes : poses;
}

std::uint32_t transportNearBelow(const std::vector<TransportDevice>& devices, const TransportTuning& tuning,
                                 bool ranks) {
    bool streamed = false;
    for (const TransportDevice& d : devices) streamed = streamed || (d.k && d.k->streamed);
    // The backend passes one device without indirect light.
    const bool exchanged = devices.size() > 1 || ranks;
    if (!streamed && !exchanged) return B;
    const std::uint32_t blocks = tuning.passBlocks ? tuning.passBlocks : streamed ? 4u : 2u;
    return B * std::clamp(blocks, 1u, kMaxPassBlocks);
}

std::uint64_t transportBytesPerPose(std::uint32_t n, std::uint32_t timesteps) {
    // Far sums, their exchange buffers: three of B steps, times the blocks of a streamed K's copy.
    return std::uint64_t(n) * (std::uint64_t(timesteps) * 8 + 3 * B * kMaxPassBlocks * 8 + sizeof(shared::GpuTransportTri));
}

} // namespace rsim
