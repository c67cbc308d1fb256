// SPDX-License-Identifier: MIT
// What a device of the Vulkan transport records and submits per time block
// (vulkan_transport_device.h): the far gathers from resident or streamed K chunks, the copies of
// far sums to and from the host, the near steps, and the timeline values that order them.
#include "transport/vulkan_transport_device.h"

#include <algorithm>

#include "vulkan/shaders.h"

namespace rsim {
namespace {
constexpr std::uint32_t B = shared::RSIM_TIME_BLOCK;
} // namespace

vk::PipelineRecipe radiosityNearRecipe() {
    return vk::passRecipe<shared::RadiosityNearPush>(vk::shaders::radiosityNear(),
                                                     vk::specConstants({{shared::RSIM_SPEC_NEAR_SPLIT, kNearSplit}}),
                                                     "radiosity near steps");
}

void DeviceTransport::throttle(std::uint32_t block) {
    if (!blockDone_[block % 2]) return;
    computeDone_.wait(blockDone_[block % 2]);
    dev_.reclaim();
}

void DeviceTransport::submitFar(std::uint32_t t0, std::uint32_t steps, bool exchange) {
    if (k_->streamed)
        submitStreamedFar(t0, steps);
    else
        computeDone_.submit(false, [&](VkCommandBuffer cmd) { recordResidentFar(cmd, t0, steps); });
    if (exchange) {
        // Only this device's rows: the others' are the other devices' to send.
        const std::vector<VkBufferCopy> regions = rowRegions(steps, true);
        computeDone_.submit(false, [&](VkCommandBuffer cmd) {
            vk::computeBarrier(dev_, cmd);
            if (!regions.empty())
                dev_.vk().vkCmdCopyBuffer(cmd, farSums_.handle(), readback_.handle(),
                                          std::uint32_t(regions.size()), regions.data());
        });
    }
}

std::uint64_t DeviceTransport::submitFarOfChunks(std::uint32_t t0, std::uint32_t steps, std::uint32_t c0,
                                                 std::uint32_t c1) {
    const KChunking& ch = k_->chunking;
    std::vector<VkBufferCopy> regions;
    computeDone_.submit(false, [&](VkCommandBuffer cmd) {
        vk::computeBarrier(dev_, cmd);
        far_.bind(cmd);
        for (std::size_t x = 0; x < k_->chunkIds.size(); ++x) {
            const std::uint32_t c = k_->chunkIds[x];
            if (c < c0 || c >= c1) continue;
            dispatchFar(cmd, x, k_->buffers[x].address(), t0, steps);
            for (std::uint32_t q = 0; q < steps; ++q) {
                const std::uint64_t at = (std::uint64_t(q) * n_ + ch.rowBegin(c)) * P_ * sizeof(glm::vec2);
                regions.push_back({at, at, std::uint64_t(ch.rows(c)) * P_ * sizeof(glm::vec2)});
            }
        }
        if (regions.empty()) return;
        vk::computeBarrier(dev_, cmd);
        dev_.vk().vkCmdCopyBuffer(cmd, farSums_.handle(), readback_.handle(), std::uint32_t(regions.size()),
                                  regions.data());
    });
    return computeDone_.value();
}

std::uint64_t DeviceTransport::submitFarShared(std::uint32_t t0, std::uint32_t steps,
                                               const vk::SharedHostBuffer& mail, std::size_t slot) {
    const std::vector<VkBufferCopy> regions = rowRegions(steps, true);
    return computeDone_.submit(false, [&](VkCommandBuffer cmd) {
        recordResidentFar(cmd, t0, steps);
        if (regions.empty()) return;
        vk::computeBarrier(dev_, cmd);
        dev_.vk().vkCmdCopyBuffer(cmd, farSums_.handle(), mail.buffer(slot), std::uint32_t(regions.size()),
                                  regions.data());
        vk::hostReadBarrier(dev_, cmd);
    });
}

void DeviceTransport::submitNearShared(std::uint32_t t0, std::uint32_t steps, std::uint32_t block,
                                       const vk::SharedHostBuffer& mail, std::size_t slot, std::uint64_t gate) {
    const std::vector<VkBufferCopy> regions = rowRegions(steps, false);
    gateAwaited_ = gate;
    computeDone_.submit(false, [&](VkCommandBuffer cmd) {
        if (!regions.empty())
            dev_.vk().vkCmdCopyBuffer(cmd, mail.buffer(slot), farSums_.handle(), std::uint32_t(regions.size()),
                                      regions.data());
        recordNear(cmd, t0, steps);
    }, &gate_, gate);
    blockDone_[block % 2] = computeDone_.value();
}

void DeviceTransport::submitNear(std::uint32_t t0, std::uint32_t steps, std::uint32_t block, FarSumsUpload upload) {
    const std::vector<VkBufferCopy> regions = upload == FarSumsUpload::Others ? rowRegions(steps, false)
                                              : upload == FarSumsUpload::All
                                                  ? std::vector<VkBufferCopy>{VkBufferCopy{0, 0, farBytes_}}
                                                  : std::vector<VkBufferCopy>{};
    computeDone_.submit(false, [&](VkCommandBuffer cmd) {
        if (!regions.empty())
            dev_.vk().vkCmdCopyBuffer(cmd, upload_.handle(), farSums_.handle(), std::uint32_t(regions.size()),
                                      regions.data());
        recordNear(cmd, t0, steps);
    });
    blockDone_[block % 2] = computeDone_.value();
}

void DeviceTransport::submitBlock(std::uint32_t t0, std::uint32_t steps, std::uint32_t block, bool gather) {
    computeDone_.submit(false, [&](VkCommandBuffer cmd) {
        if (gather) recordResidentFar(cmd, t0, steps);
        recordNear(cmd, t0, steps);
    });
    blockDone_[block % 2] = computeDone_.value();
}

void DeviceTransport::recordResidentFar(VkCommandBuffer cmd, std::uint32_t t0, std::uint32_t steps) {
    vk::computeBarrier(dev_, cmd);
    far_.bind(cmd);
    for (std::size_t x = 0; x < k_->chunkIds.size(); ++x) dispatchFar(cmd, x, k_->buffers[x].address(), t0, steps);
}

void DeviceTransport::recordNear(VkCommandBuffer cmd, std::uint32_t t0, std::uint32_t steps) {
    vk::computeBarrier(dev_, cmd);
    near_.bind(cmd);
    for (std::uint32_t q = 0; q < steps; ++q) {
        np_.t = t0 + q;
        np_.q = q;
        near_.dispatchRows(cmd, np_, std::uint64_t(n_) * P_ * kNearSplit);
        vk::computeBarrier(dev_, cmd);
    }
}

void DeviceTransport::dispatchFar(VkCommandBuffer cmd, std::size_t held, VkDeviceAddress chunk, std::uint32_t t0,
                                  std::uint32_t steps) {
    fp_.k = k_->chunkRef(held, chunk);
    for (std::uint32_t q0 = 0; q0 < steps; q0 += B) {
        fp_.t0 = t0 + q0;
        fp_.steps = std::min(B, steps - q0);
        fp_.farSums = farSums_.address() + std::uint64_t(q0) * n_ * P_ * sizeof(glm::vec2);
        const std::uint32_t rows = fp_.k.rowEnd - fp_.k.rowBegin;
        if (lanes_)
            far_.dispatch(cmd, fp_, (rows + laneShape_.receivers - 1) / laneShape_.receivers, 1,
                          P_ / shared::RSIM_LANES);
        else
            far_.dispatch(cmd, fp_, (rows + shared::RSIM_WG_RADIOSITY_X - 1) / shared::RSIM_WG_RADIOSITY_X, 1,
                          P_ / perInvocation_);
    }
}

void DeviceTransport::submitStreamedFar(std::uint32_t t0, std::uint32_t steps) {
    const std::size_t held = k_->chunkIds.size();
    for (std::size_t g0 = 0; g0 < held; g0 += k_->streamGroup) {
        const std::size_t g1 = std::min(held, g0 + k_->streamGroup);
        const std::uint32_t b = slot_++ % kStreamBuffers;
        copyDone_.submit(true, [&](VkCommandBuffer cmd) {
            for (std::size_t x = g0; x < g1; ++x) {
                const VkBufferCopy region{0, (x - g0) * slotBytes_, k_->buffers[x].size()};
                dev_.vk().vkCmdCopyBuffer(cmd, k_->buffers[x].handle(), stream_[b].handle(), 1, &region);
                streamedBytes_ += k_->buffers[x].size();
            }
        }, freeAt_[b] ? &computeDone_ : nullptr, freeAt_[b]);
        // Chunks gather into disjoint rows, so only the block's first gather waits (barrier)
        // for the previous block's steps.
        computeDone_.submit(false, [&](VkCommandBuffer cmd) {
            if (g0 == 0) vk::computeBarrier(dev_, cmd);
            far_.bind(cmd);
            for (std::size_t x = g0; x < g1; ++x)
                dispatchFar(cmd, x, stream_[b].address() + (x - g0) * slotBytes_, t0, steps);
        }, &copyDone_, copyDone_.value());
        freeAt_[b] = computeDone_.value();
    }
}

} // namespace rsim
