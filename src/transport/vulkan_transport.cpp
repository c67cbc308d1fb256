// SPDX-License-Identifier: MIT
#include "transport/vulkan_transport.h"

#include <cstdlib>

#include <spdlog/spdlog.h>

#include "util/error.h"
#include "util/progress.h"
#include "vulkan/shaders.h"

namespace rsim {

std::uint32_t radiositySplit(const vk::Device& device, std::uint32_t n) {
    if (const char* env = std::getenv("RSIM_RADIOSITY_SPLIT")) {
        const int v = std::atoi(env);
        if (v >= 1 && v <= int(shared::RSIM_MAX_RADIOSITY_SPLIT)) return std::uint32_t(v);
    }
    // A software device has few cores; a GPU needs many warps in flight even for small n:
    // aim at ~256k threads, within the workgroup-size limit.
    if (device.info().isCpu()) return 1;
    std::uint32_t split = 1;
    while (split < shared::RSIM_MAX_RADIOSITY_SPLIT && std::uint64_t(n) * split < (1u << 18) &&
           shared::RSIM_WG_RADIOSITY_X * split * 2 <= device.limits().maxComputeWorkGroupInvocations)
        split *= 2;
    return split;
}

vk::Buffer runTransportVulkan(const vk::Device& device, const GpuScene& scene,
                              const GpuKMatrix* K, const vk::Buffer& transportTris,
                              const SimConfig& config) {
    const std::uint32_t n = scene.n, T = config.timesteps;
    if (std::uint64_t(n) * T >= (std::uint64_t(1) << 32))
        throw Error("N x T = " + std::to_string(std::uint64_t(n) * T) +
                    " exceeds the 2^32 entries of one history buffer; use fewer timesteps");
    vk::Buffer history(device, std::uint64_t(n) * T * sizeof(glm::vec2), vk::kStorageUsage,
                       vk::MemoryKind::Device, "B/Z history");
    vk::fillZero(device, history);
    const std::uint32_t split = radiositySplit(device, n);
    vk::Pipeline pipeline(device, vk::shaders::radiosity(), sizeof(shared::RadiosityPush), false,
                          vk::SpecConstants{split}, "radiosity");
    spdlog::debug("{}: radiosity workgroups of {} x {}", device.label(), shared::RSIM_WG_RADIOSITY_X, split);

    shared::RadiosityPush push{};
    push.tris = transportTris.address();
    push.history = history.address();
    push.pulse = scene.pulse.address();
    push.n = n;
    push.timesteps = T;
    push.pulseLength = std::uint32_t(config.pulse.size());
    push.invCdtSq = config.invCdtSq;
    push.indirect = (config.indirect && K) ? 1u : 0u;
    // Without indirect light every receiver is one chunk of n rows and K is never read.
    const std::uint32_t chunks = push.indirect ? K->chunkCount() : 1;

    // Several timesteps per submission, a barrier between timesteps (B(t) reads B(< t)); about
    // 2^32 pair-steps per submission keeps the host waits rare and the progress line alive.
    const std::uint32_t stepsPerSubmit = std::max<std::uint32_t>(1, std::min<std::uint32_t>(
        256, std::uint32_t((std::uint64_t(1) << 32) / std::max<std::uint64_t>(1, std::uint64_t(n) * n))));
    Progress progress("radiosity", T, "timesteps");
    for (std::uint32_t t0 = 0; t0 < T; t0 += stepsPerSubmit) {
        const std::uint32_t t1 = std::min(T, t0 + stepsPerSubmit);
        device.submitAndWait([&](VkCommandBuffer cmd) {
            pipeline.bind(cmd, nullptr);
            for (std::uint32_t t = t0; t < t1; ++t) {
                push.t = t;
                for (std::uint32_t c = 0; c < chunks; ++c) {
                    push.rowBegin = push.indirect ? K->rowBegin(c) : 0;
                    push.rowEnd = push.indirect ? K->rowEnd(c) : n;
                    push.kChunk = push.indirect ? K->chunks[c].address() : 0;
                    pipeline.pushConstants(cmd, &push);
                    const std::uint32_t rows = push.rowEnd - push.rowBegin;
                    pipeline.dispatch(cmd, (rows + shared::RSIM_WG_RADIOSITY_X - 1) / shared::RSIM_WG_RADIOSITY_X, 1);
                }
                vk::computeBarrier(device, cmd);
            }
        });
        progress.add(t1 - t0);
    }
    progress.finish();
    return history;
}

} // namespace rsim
