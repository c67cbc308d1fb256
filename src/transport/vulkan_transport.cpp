// SPDX-License-Identifier: MIT
#include "transport/vulkan_transport.h"
#include "streaming/k_plan.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

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
    // A software device has few cores; a GPU needs many warps in flight even for small n
    // (the H100 sweep of docs/benchmarks.md favoured the most slices the limits allow).
    if (device.info().isCpu()) return 1;
    std::uint32_t split = 1;
    while (split < shared::RSIM_MAX_RADIOSITY_SPLIT &&
           shared::RSIM_WG_RADIOSITY_X * split * 2 <= device.limits().maxComputeWorkGroupInvocations)
        split *= 2;
    (void)n;
    return split;
}

namespace {

constexpr std::uint32_t B = shared::RSIM_TIME_BLOCK;

// Everything one device needs for the time loop.
struct DeviceState {
    const TransportDevice* in = nullptr;
    vk::Buffer tris, history, farSums, nearOffsets, nearPairs, stream[kStreamBuffers], readback, upload;
    std::unique_ptr<vk::Pipeline> far, near;
    VkSemaphore copyDone = VK_NULL_HANDLE, computeDone = VK_NULL_HANDLE;
    std::uint64_t copyValue = 0, computeValue = 0, freeAt[kStreamBuffers] = {};
    std::uint64_t blockDone[2] = {0, 0}; // computeDone values that end the last two blocks
    std::uint32_t slot = 0;
    std::uint64_t slotBytes = 0; // streamed: bytes per chunk in a stream buffer
    shared::RadiosityFarPush fp{};
    shared::RadiosityNearPush np{};
};

} // namespace

GpuTransport runTransportVulkan(const std::vector<TransportDevice>& devices,
                                const std::vector<shared::GpuTransportTri>& records,
                                const NearLists& nearGiven, const SimConfig& config, bool indirect) {
    Stopwatch setup;
    static const NearLists kNoNearPairs;
    const NearLists& nearLists = indirect ? nearGiven : kNoNearPairs;
    const std::uint32_t n = std::uint32_t(records.size()), T = config.timesteps;
    if (std::uint64_t(n) * T >= (std::uint64_t(1) << 32))
        throw Error("N x T = " + std::to_string(std::uint64_t(n) * T) +
                    " exceeds the 2^32 entries of one history buffer; use fewer timesteps");
    const std::size_t D = indirect ? devices.size() : 1;
    const bool exchange = D > 1 && !std::getenv("RSIM_NO_EXCHANGE");
    if (D > 1 && !exchange)
        spdlog::warn("RSIM_NO_EXCHANGE: far sums are not combined across devices; results are wrong "
                     "(this measures the exchange's cost only)");

    std::vector<DeviceState> st(D);
    const std::vector<std::uint32_t> emptyOffsets(n + 1, 0);
    const std::vector<std::uint32_t>& offsets = nearLists.offsets.empty() ? emptyOffsets : nearLists.offsets;
    const std::uint64_t farBytes = std::uint64_t(n) * B * sizeof(glm::vec2);
    for (std::size_t d = 0; d < D; ++d) {
        DeviceState& s = st[d];
        s.in = &devices[d];
        const vk::Device& dev = *s.in->device;
        s.tris = vk::makeStorage(dev, records, "transport triangles");
        s.history = vk::Buffer(dev, std::uint64_t(n) * T * sizeof(glm::vec2), vk::kStorageUsage,
                               vk::MemoryKind::Device, "B/Z history");
        s.farSums = vk::Buffer(dev, farBytes, vk::kStorageUsage, vk::MemoryKind::Device, "far sums");
        vk::fillZero(dev, s.history);
        vk::fillZero(dev, s.farSums);
        s.nearOffsets = vk::makeStorage(dev, offsets, "near-pair offsets");
        s.nearPairs = nearLists.pairs.empty()
                          ? vk::Buffer(dev, sizeof(shared::NearPair), vk::kStorageUsage, vk::MemoryKind::Device, "near pairs")
                          : vk::makeStorage(dev, nearLists.pairs, "near pairs");
        const TransportK& k = s.in->k;
        s.far = std::make_unique<vk::Pipeline>(
            dev, vk::shaders::radiosityFar(), sizeof(shared::RadiosityFarPush), false,
            vk::SpecConstants{radiositySplit(dev, n), radiosityUnroll(), kFormatInfo(k.format).storage},
            "radiosity far gather");
        s.near = std::make_unique<vk::Pipeline>(dev, vk::shaders::radiosityNear(), sizeof(shared::RadiosityNearPush),
                                                false, vk::SpecConstants{}, "radiosity near steps");
        if (k.streamed) {
            s.slotBytes = (*std::max_element(k.bytes.begin(), k.bytes.end()) + 255) / 256 * 256;
            for (std::uint32_t b = 0; b < kStreamBuffers; ++b)
                s.stream[b] = vk::Buffer(dev, s.slotBytes * k.streamGroup, vk::kStorageUsage, vk::MemoryKind::Device,
                                         "K stream buffer " + std::to_string(b), true);
        }
        if (exchange) {
            s.readback = vk::Buffer(dev, farBytes, 0, vk::MemoryKind::Readback, "far sums readback");
            s.upload = vk::Buffer(dev, farBytes, 0, vk::MemoryKind::Upload, "far sums upload");
        }
        s.copyDone = dev.createTimelineSemaphore("K copies");
        s.computeDone = dev.createTimelineSemaphore("transport work");
        s.fp.tris = s.tris.address();
        s.fp.history = s.history.address();
        s.fp.farSums = s.farSums.address();
        s.fp.n = n;
        s.fp.timesteps = T;
        s.fp.invCdtSq = config.invCdtSq;
        s.np.tris = s.tris.address();
        s.np.history = s.history.address();
        s.np.farSums = s.farSums.address();
        s.np.nearOffsets = s.nearOffsets.address();
        s.np.nearPairs = s.nearPairs.address();
        s.np.pulse = s.in->scene->pulse.address();
        s.np.n = n;
        s.np.timesteps = T;
        s.np.pulseLength = std::uint32_t(config.pulse.size());
    }
    GpuTransport out;
    out.setupSeconds = setup.seconds();

    const std::uint32_t tableSize = shared::rsimKTableSize(kFormatInfo(devices[0].k.format).storage);
    auto farPush = [&](DeviceState& s, std::uint32_t c, VkDeviceAddress chunk, std::uint32_t t0, std::uint32_t steps) {
        const TransportK& k = s.in->k;
        s.fp.kChunk = chunk;
        s.fp.kTable = k.tables ? k.tables->address() + std::uint64_t(c) * tableSize * 4 : 0;
        s.fp.rowBegin = k.rowBegin(c);
        s.fp.rowEnd = k.rowEnd(c);
        s.fp.t0 = t0;
        s.fp.steps = steps;
    };
    auto farDispatch = [&](DeviceState& s, VkCommandBuffer cmd) {
        s.far->bind(cmd, &s.fp);
        s.far->dispatch(cmd, (s.fp.rowEnd - s.fp.rowBegin + shared::RSIM_WG_RADIOSITY_X - 1) /
                                 shared::RSIM_WG_RADIOSITY_X, 1);
    };
    // Far gathers of one block on one device; returns nothing, signals computeDone.
    auto submitFar = [&](DeviceState& s, std::uint32_t t0, std::uint32_t steps) {
        const vk::Device& dev = *s.in->device;
        const TransportK& k = s.in->k;
        if (!k.streamed) {
            dev.submitAsync(false, [&](VkCommandBuffer cmd) {
                vk::computeBarrier(dev, cmd);
                for (std::size_t x = 0; x < k.chunks.size(); ++x) {
                    farPush(s, k.chunks[x], k.buffers[x]->address(), t0, steps);
                    farDispatch(s, cmd);
                }
            }, VK_NULL_HANDLE, 0, s.computeDone, ++s.computeValue);
            return;
        }
        for (std::size_t g0 = 0; g0 < k.chunks.size(); g0 += k.streamGroup) {
            const std::size_t g1 = std::min(k.chunks.size(), g0 + k.streamGroup);
            const std::uint32_t b = s.slot++ % kStreamBuffers;
            // Copy the group on the transfer queue once the gather that last read this buffer is done.
            dev.submitAsync(true, [&](VkCommandBuffer cmd) {
                for (std::size_t x = g0; x < g1; ++x) {
                    VkBufferCopy region{0, (x - g0) * s.slotBytes, k.bytes[x]};
                    dev.vk().vkCmdCopyBuffer(cmd, k.buffers[x]->handle(), s.stream[b].handle(), 1, &region);
                    out.streamedBytes += k.bytes[x];
                }
            }, s.freeAt[b] ? s.computeDone : VK_NULL_HANDLE, s.freeAt[b], s.copyDone, ++s.copyValue);
            // Chunks gather into disjoint rows, so only the block's first gather waits (barrier)
            // for the previous block's steps.
            dev.submitAsync(false, [&](VkCommandBuffer cmd) {
                if (g0 == 0) vk::computeBarrier(dev, cmd);
                for (std::size_t x = g0; x < g1; ++x) {
                    farPush(s, k.chunks[x], s.stream[b].address() + (x - g0) * s.slotBytes, t0, steps);
                    farDispatch(s, cmd);
                }
            }, s.copyDone, s.copyValue, s.computeDone, ++s.computeValue);
            s.freeAt[b] = s.computeValue;
        }
    };
    auto recordNear = [&](DeviceState& s, VkCommandBuffer cmd, std::uint32_t t0, std::uint32_t steps) {
        const vk::Device& dev = *s.in->device;
        vk::computeBarrier(dev, cmd);
        s.near->bind(cmd, nullptr);
        for (std::uint32_t q = 0; q < steps; ++q) {
            s.np.t = t0 + q;
            s.np.q = q;
            s.near->pushConstants(cmd, &s.np);
            s.near->dispatch(cmd, (n + shared::RSIM_WG_LINEAR - 1) / shared::RSIM_WG_LINEAR, 1);
            vk::computeBarrier(dev, cmd);
        }
    };

    Stopwatch loop;
    std::vector<glm::vec2> merged(exchange ? std::size_t(n) * B : 0);
    Progress progress("radiosity", T, "timesteps");
    for (std::uint32_t t0 = 0; t0 < T; t0 += B) {
        const std::uint32_t steps = std::min(B, T - t0);
        // The host stays at most one block ahead of each device: submissions that wait on
        // semaphores not yet signalled pile up in the driver otherwise (measured on NVIDIA: the
        // cost of each streamed chunk grew with the number queued; docs/benchmarks.md).
        for (auto& s : st)
            if (s.blockDone[(t0 / B) % 2]) {
                s.in->device->waitTimeline(s.computeDone, s.blockDone[(t0 / B) % 2]);
                s.in->device->reclaim();
            }
        // Nothing can arrive before the shortest far delay: the first block has no far gather.
        const bool gather = indirect && t0 + steps > B;
        for (auto& s : st) {
            if (!gather) continue;
            submitFar(s, t0, steps);
            if (exchange) {
                const vk::Device& dev = *s.in->device;
                dev.submitAsync(false, [&](VkCommandBuffer cmd) {
                    vk::computeBarrier(dev, cmd);
                    VkBufferCopy region{0, 0, farBytes};
                    dev.vk().vkCmdCopyBuffer(cmd, s.farSums.handle(), s.readback.handle(), 1, &region);
                }, VK_NULL_HANDLE, 0, s.computeDone, ++s.computeValue);
            }
        }
        if (gather && exchange) {
            // Combine: each device's far sums hold the rows of its chunks.
            for (auto& s : st) s.in->device->waitTimeline(s.computeDone, s.computeValue);
            Stopwatch sw;
            for (auto& s : st) {
                const auto* src = static_cast<const glm::vec2*>(s.readback.mapped());
                for (std::uint32_t c : s.in->k.chunks)
                    for (std::uint32_t q = 0; q < steps; ++q) {
                        const std::size_t o = std::size_t(q) * n + s.in->k.rowBegin(c);
                        std::memcpy(&merged[o], &src[o], std::size_t(s.in->k.rowEnd(c) - s.in->k.rowBegin(c)) * sizeof(glm::vec2));
                    }
            }
            for (auto& s : st) std::memcpy(s.upload.mapped(), merged.data(), farBytes);
            out.exchangeSeconds += sw.seconds();
        }
        for (auto& s : st) {
            const vk::Device& dev = *s.in->device;
            dev.submitAsync(false, [&](VkCommandBuffer cmd) {
                if (gather && exchange) {
                    VkBufferCopy region{0, 0, farBytes};
                    dev.vk().vkCmdCopyBuffer(cmd, s.upload.handle(), s.farSums.handle(), 1, &region);
                }
                recordNear(s, cmd, t0, steps);
            }, VK_NULL_HANDLE, 0, s.computeDone, ++s.computeValue);
            s.blockDone[(t0 / B) % 2] = s.computeValue;
        }
        progress.add(steps);
    }
    for (auto& s : st) {
        s.in->device->waitTimeline(s.computeDone, s.computeValue);
        s.in->device->reclaim();
    }
    progress.finish();
    out.loopSeconds = loop.seconds();
    for (auto& s : st) out.histories.push_back(std::move(s.history));
    return out;
}

} // namespace rsim
