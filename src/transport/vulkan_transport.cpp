// SPDX-License-Identifier: MIT
#include "transport/vulkan_transport.h"

#include <algorithm>
#include <cstdlib>

#include <spdlog/spdlog.h>

#include "util/error.h"
#include "util/progress.h"
#include "util/timer.h"
#include "vulkan/shaders.h"

namespace rsim {

std::uint32_t radiosityUnroll() {
    if (const char* env = std::getenv("RSIM_RADIOSITY_UNROLL")) {
        const int v = std::atoi(env);
        if (v >= 1 && v <= 16) return std::uint32_t(v);
    }
    return 1;
}

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

namespace {

// Near-pair lists (delay < RSIM_TIME_BLOCK) of every receiver, built on the device from K:
// counts, prefix sum on the host, then the pairs.
struct NearLists {
    vk::Buffer offsets; // uint[n + 1]
    vk::Buffer pairs;   // NearPair[]
    std::uint64_t count = 0;
};

NearLists buildNearLists(const vk::Device& device, const GpuKMatrix* K, const vk::Buffer& tris,
                         std::uint32_t n, const SimConfig& config) {
    NearLists lists;
    lists.offsets = vk::Buffer(device, std::uint64_t(n + 1) * 4, vk::kStorageUsage,
                               vk::MemoryKind::Device, "near-pair offsets");
    vk::fillZero(device, lists.offsets);
    if (!K) {
        lists.pairs = vk::Buffer(device, sizeof(shared::NearPair), vk::kStorageUsage,
                                 vk::MemoryKind::Device, "near pairs");
        return lists;
    }
    vk::Pipeline pipeline(device, vk::shaders::nearPairs(), sizeof(shared::NearListPush), false,
                          vk::SpecConstants{0, 0, K->storage()}, "near pairs");
    shared::NearListPush push{};
    push.tris = tris.address();
    push.nearOffsets = lists.offsets.address();
    push.n = n;
    push.invCdtSq = config.invCdtSq;
    auto runPass = [&](std::uint32_t pass) {
        push.pass = pass;
        device.submitAndWait([&](VkCommandBuffer cmd) {
            pipeline.bind(cmd, nullptr);
            for (std::uint32_t c = 0; c < K->chunkCount(); ++c) {
                push.kChunk = K->chunks[c].address();
                push.kTable = K->tableAddress(c);
                push.rowBegin = K->rowBegin(c);
                push.rowEnd = K->rowEnd(c);
                pipeline.pushConstants(cmd, &push);
                pipeline.dispatch(cmd, (push.rowEnd - push.rowBegin + shared::RSIM_WG_LINEAR - 1) /
                                           shared::RSIM_WG_LINEAR, 1);
            }
        });
    };
    runPass(0);
    auto counts = vk::download<std::uint32_t>(device, lists.offsets, n);
    std::vector<std::uint32_t> offsets(n + 1, 0);
    for (std::uint32_t i = 0; i < n; ++i) offsets[i + 1] = offsets[i] + counts[i];
    lists.count = offsets[n];
    vk::uploadBytes(device, lists.offsets, offsets.data(), offsets.size() * 4);
    lists.pairs = vk::Buffer(device, std::max<std::uint64_t>(1, lists.count) * sizeof(shared::NearPair),
                             vk::kStorageUsage, vk::MemoryKind::Device, "near pairs");
    push.nearPairs = lists.pairs.address();
    runPass(1);
    return lists;
}

} // namespace

GpuTransport runTransportVulkan(const vk::Device& device, const GpuScene& scene,
                                const GpuKMatrix* K, const vk::Buffer& transportTris,
                                const SimConfig& config) {
    Stopwatch setup;
    const std::uint32_t n = scene.n, T = config.timesteps, B = shared::RSIM_TIME_BLOCK;
    if (std::uint64_t(n) * T >= (std::uint64_t(1) << 32))
        throw Error("N x T = " + std::to_string(std::uint64_t(n) * T) +
                    " exceeds the 2^32 entries of one history buffer; use fewer timesteps");
    const bool indirect = config.indirect && K;
    vk::Buffer history(device, std::uint64_t(n) * T * sizeof(glm::vec2), vk::kStorageUsage,
                       vk::MemoryKind::Device, "B/Z history");
    vk::Buffer farSums(device, std::uint64_t(n) * B * sizeof(glm::vec2), vk::kStorageUsage,
                       vk::MemoryKind::Device, "far sums");
    vk::fillZero(device, history);
    vk::fillZero(device, farSums);
    const NearLists near = buildNearLists(device, indirect ? K : nullptr, transportTris, n, config);
    spdlog::info("{}: {} near pairs (delay < {} steps), {:.1f} per triangle", device.label(), near.count,
                 B, double(near.count) / double(n));

    const std::uint32_t split = radiositySplit(device, n);
    const std::uint32_t unroll = radiosityUnroll();
    vk::Pipeline far(device, vk::shaders::radiosityFar(), sizeof(shared::RadiosityFarPush), false,
                     vk::SpecConstants{split, unroll, K ? K->storage() : shared::RSIM_K_FP32},
                     "radiosity far gather");
    vk::Pipeline step(device, vk::shaders::radiosityNear(), sizeof(shared::RadiosityNearPush), false,
                      {}, "radiosity near gather");
    spdlog::debug("{}: far gather workgroups of {} x {}, unroll {}", device.label(),
                  shared::RSIM_WG_RADIOSITY_X, split, unroll);

    shared::RadiosityFarPush fp{};
    fp.tris = transportTris.address();
    fp.history = history.address();
    fp.farSums = farSums.address();
    fp.n = n;
    fp.timesteps = T;
    fp.invCdtSq = config.invCdtSq;
    shared::RadiosityNearPush np{};
    np.tris = transportTris.address();
    np.history = history.address();
    np.farSums = farSums.address();
    np.nearOffsets = near.offsets.address();
    np.nearPairs = near.pairs.address();
    np.pulse = scene.pulse.address();
    np.n = n;
    np.timesteps = T;
    np.pulseLength = std::uint32_t(config.pulse.size());

    // Diagnostics (RSIM_RADIOSITY_PROFILE=1): time every far gather alone, then every near step
    // alone, on throwaway data, before the real run. Tuning aid, not part of results.
    if (std::getenv("RSIM_RADIOSITY_PROFILE") && indirect) {
        auto timeIt = [&](const char* what, bool farPass) {
            Stopwatch sw;
            device.submitAndWait([&](VkCommandBuffer cmd) {
                for (std::uint32_t t0 = 0; t0 < T; t0 += B) {
                    if (farPass) {
                        far.bind(cmd, nullptr);
                        fp.t0 = t0;
                        fp.steps = std::min(B, T - t0);
                        for (std::uint32_t c = 0; c < K->chunkCount(); ++c) {
                            fp.kChunk = K->chunks[c].address();
                            fp.kTable = K->tableAddress(c);
                            fp.rowBegin = K->rowBegin(c);
                            fp.rowEnd = K->rowEnd(c);
                            far.pushConstants(cmd, &fp);
                            far.dispatch(cmd, (fp.rowEnd - fp.rowBegin + 31) / 32, 1);
                        }
                        vk::computeBarrier(device, cmd);
                    } else {
                        step.bind(cmd, nullptr);
                        for (std::uint32_t q = 0; q < std::min(B, T - t0); ++q) {
                            np.t = t0 + q;
                            np.q = q;
                            step.pushConstants(cmd, &np);
                            step.dispatch(cmd, (n + shared::RSIM_WG_LINEAR - 1) / shared::RSIM_WG_LINEAR, 1);
                            vk::computeBarrier(device, cmd);
                        }
                    }
                }
            });
            spdlog::info("radiosity profile: {} {:.3f} s", what, sw.seconds());
        };
        timeIt("far gathers", true);
        timeIt("near steps", false);
        vk::fillZero(device, history);
    }

    GpuTransport out;
    out.nearPairs = near.count;
    out.setupSeconds = setup.seconds();
    Stopwatch loop;
    // Several blocks per submission: about 2^34 pair-steps (2^31 pair-blocks) each keeps host
    // waits rare and the progress line alive.
    const std::uint64_t pairs = std::max<std::uint64_t>(1, std::uint64_t(n) * n);
    const std::uint32_t blocksPerSubmit =
        std::uint32_t(std::clamp<std::uint64_t>((std::uint64_t(1) << 31) / pairs, 1, 64));
    Progress progress("radiosity", T, "timesteps");
    for (std::uint32_t t0 = 0; t0 < T;) {
        std::uint32_t done = 0;
        device.submitAndWait([&](VkCommandBuffer cmd) {
            for (std::uint32_t b = 0; b < blocksPerSubmit && t0 < T; ++b, t0 += B) {
                const std::uint32_t steps = std::min(B, T - t0);
                if (indirect) {
                    far.bind(cmd, nullptr);
                    fp.t0 = t0;
                    fp.steps = steps;
                    for (std::uint32_t c = 0; c < K->chunkCount(); ++c) {
                        fp.kChunk = K->chunks[c].address();
                        fp.kTable = K->tableAddress(c);
                        fp.rowBegin = K->rowBegin(c);
                        fp.rowEnd = K->rowEnd(c);
                        far.pushConstants(cmd, &fp);
                        far.dispatch(cmd, (fp.rowEnd - fp.rowBegin + shared::RSIM_WG_RADIOSITY_X - 1) /
                                              shared::RSIM_WG_RADIOSITY_X, 1);
                    }
                    vk::computeBarrier(device, cmd);
                }
                step.bind(cmd, nullptr);
                for (std::uint32_t q = 0; q < steps; ++q) {
                    np.t = t0 + q;
                    np.q = q;
                    step.pushConstants(cmd, &np);
                    step.dispatch(cmd, (n + shared::RSIM_WG_LINEAR - 1) / shared::RSIM_WG_LINEAR, 1);
                    vk::computeBarrier(device, cmd);
                }
                done += steps;
            }
        });
        progress.add(done);
    }
    progress.finish();
    out.loopSeconds = loop.seconds();
    out.history = std::move(history);
    return out;
}

} // namespace rsim
