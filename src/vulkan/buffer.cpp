// SPDX-License-Identifier: MIT
#include "vulkan/buffer.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include "util/error.h"

namespace rsim::vk {

Buffer::Buffer(Device& device, std::uint64_t bytes, VkBufferUsageFlags usage,
               MemoryKind kind, const std::string& name, bool shared)
    : device_(&device), size_(bytes) {
    const auto& vk = device.vk();
    if (kind != MemoryKind::Device) usage |= VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    if (bytes == 0) throw Error(device.label() + ": buffer '" + name + "' of 0 bytes (a bug: nothing to hold)");
    if (bytes > device.maxAllocationBytes())
        throw Error(device.label() + ": buffer '" + name + "' needs " + std::to_string(bytes >> 20) +
                    " MiB, more than one allocation may hold (" +
                    std::to_string(device.maxAllocationBytes() >> 20) + " MiB)");
    VkBufferCreateInfo bi{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
    bi.size = bytes;
    bi.usage = usage;
    const std::uint32_t families[2] = {device.computeFamily(), device.transferFamily()};
    if (shared && device.hasDedicatedTransfer()) {
        bi.sharingMode = VK_SHARING_MODE_CONCURRENT;
        bi.queueFamilyIndexCount = 2;
        bi.pQueueFamilyIndices = families;
    } else {
        bi.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
    }
    VK_CHECK(vk.vkCreateBuffer(device.handle(), &bi, nullptr, &buffer_));
    VkMemoryRequirements req;
    vk.vkGetBufferMemoryRequirements(device.handle(), buffer_, &req);
    VkMemoryPropertyFlags required = 0, preferred = 0, avoid = 0;
    switch (kind) {
    case MemoryKind::Device: required = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT; break;
    case MemoryKind::Upload:
        // System memory (streamed K chunks must not sit in VRAM behind a resizable BAR).
        required = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
        avoid = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
        break;
    case MemoryKind::Readback:
        required = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
        preferred = VK_MEMORY_PROPERTY_HOST_CACHED_BIT;
        avoid = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
        break;
    }
    VkMemoryAllocateFlagsInfo flags{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_FLAGS_INFO};
    const bool wantAddress = usage & VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT;
    flags.flags = wantAddress ? VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT : 0;
    VkMemoryAllocateInfo ai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    ai.pNext = &flags;
    ai.allocationSize = req.size;
    ai.memoryTypeIndex = device.memoryType(req.memoryTypeBits, required, preferred, avoid);
    VkResult r = vk.vkAllocateMemory(device.handle(), &ai, nullptr, &memory_);
    if (r != VK_SUCCESS) {
        vk.vkDestroyBuffer(device.handle(), buffer_, nullptr);
        buffer_ = VK_NULL_HANDLE;
        if (r == VK_ERROR_OUT_OF_DEVICE_MEMORY || r == VK_ERROR_OUT_OF_HOST_MEMORY)
            throw Error(device.label() + ": out of memory allocating '" + name + "' (" +
                        std::to_string(bytes >> 20) + " MiB)");
        fail(r, "vkAllocateMemory", __FILE__, __LINE__);
    }
    VK_CHECK(vk.vkBindBufferMemory(device.handle(), buffer_, memory_, 0));
    if (kind != MemoryKind::Device) VK_CHECK(vk.vkMapMemory(device.handle(), memory_, 0, VK_WHOLE_SIZE, 0, &mapped_));
    if (wantAddress) {
        VkBufferDeviceAddressInfo di{VK_STRUCTURE_TYPE_BUFFER_DEVICE_ADDRESS_INFO};
        di.buffer = buffer_;
        address_ = vk.vkGetBufferDeviceAddress(device.handle(), &di);
    }
    device.name(buffer_, VK_OBJECT_TYPE_BUFFER, name);
    device.name(memory_, VK_OBJECT_TYPE_DEVICE_MEMORY, name + " memory");
}

Buffer& Buffer::operator=(Buffer&& o) noexcept {
    if (this != &o) {
        reset();
        device_ = o.device_;
        buffer_ = std::exchange(o.buffer_, VK_NULL_HANDLE);
        memory_ = std::exchange(o.memory_, VK_NULL_HANDLE);
        address_ = std::exchange(o.address_, 0);
        size_ = std::exchange(o.size_, 0);
        mapped_ = std::exchange(o.mapped_, nullptr);
    }
    return *this;
}

void Buffer::reset() {
    if (!device_) return;
    const auto& vk = device_->vk();
    if (buffer_) vk.vkDestroyBuffer(device_->handle(), buffer_, nullptr);
    if (memory_) vk.vkFreeMemory(device_->handle(), memory_, nullptr); // unmaps too
    buffer_ = VK_NULL_HANDLE;
    memory_ = VK_NULL_HANDLE;
    mapped_ = nullptr;
    address_ = 0;
    size_ = 0;
}

namespace {
constexpr std::uint64_t kStagingBytes = 256ull << 20;
}

void uploadBytes(Device& device, const Buffer& dst, const void* data, std::uint64_t bytes,
                 std::uint64_t dstOffset) {
    Buffer& staging = device.stagingUpload(std::min(bytes, kStagingBytes));
    const std::uint64_t step = std::min(staging.size(), kStagingBytes);
    for (std::uint64_t done = 0; done < bytes; done += step) {
        const std::uint64_t n = std::min(step, bytes - done);
        std::memcpy(staging.mapped(), static_cast<const char*>(data) + done, n);
        device.submitAndWait([&](VkCommandBuffer cmd) {
            VkBufferCopy region{0, dstOffset + done, n};
            device.vk().vkCmdCopyBuffer(cmd, staging.handle(), dst.handle(), 1, &region);
        });
    }
}

void downloadBytes(Device& device, const Buffer& src, void* data, std::uint64_t bytes,
                   std::uint64_t srcOffset) {
    Buffer& staging = device.stagingReadback(std::min(bytes, kStagingBytes));
    const std::uint64_t step = std::min(staging.size(), kStagingBytes);
    for (std::uint64_t done = 0; done < bytes; done += step) {
        const std::uint64_t n = std::min(step, bytes - done);
        device.submitAndWait([&](VkCommandBuffer cmd) {
            VkBufferCopy region{srcOffset + done, 0, n};
            device.vk().vkCmdCopyBuffer(cmd, src.handle(), staging.handle(), 1, &region);
        });
        std::memcpy(static_cast<char*>(data) + done, staging.mapped(), n);
    }
}

void fillZero(Device& device, const Buffer& dst) {
    device.submitAndWait([&](VkCommandBuffer cmd) {
        device.vk().vkCmdFillBuffer(cmd, dst.handle(), 0, VK_WHOLE_SIZE, 0);
    });
}

namespace {
void barrier(Device& device, VkCommandBuffer cmd, bool indirect) {
    VkMemoryBarrier mb{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    mb.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
    mb.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_READ_BIT;
    const VkPipelineStageFlags stages = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT |
                                        VK_PIPELINE_STAGE_TRANSFER_BIT;
    VkPipelineStageFlags src = stages, dst = stages;
    if (indirect) {
        mb.dstAccessMask |= VK_ACCESS_INDIRECT_COMMAND_READ_BIT;
        dst |= VK_PIPELINE_STAGE_DRAW_INDIRECT_BIT;
    }
    if (device.rayTracingPipelines()) {
        src |= VK_PIPELINE_STAGE_RAY_TRACING_SHADER_BIT_KHR;
        dst |= VK_PIPELINE_STAGE_RAY_TRACING_SHADER_BIT_KHR;
    }
    device.vk().vkCmdPipelineBarrier(cmd, src, dst, 0, 1, &mb, 0, nullptr, 0, nullptr);
}
} // namespace

void computeBarrier(Device& device, VkCommandBuffer cmd) { barrier(device, cmd, false); }

void indirectBarrier(Device& device, VkCommandBuffer cmd) { barrier(device, cmd, true); }

void hostReadBarrier(Device& device, VkCommandBuffer cmd) {
    VkMemoryBarrier toHost{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    toHost.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
    toHost.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
    device.vk().vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &toHost, 0,
                                     nullptr, 0, nullptr);
}

Buffer& ScratchBuffer::get(Device& device, std::uint64_t bytes, VkBufferUsageFlags usage, MemoryKind kind,
                           const std::string& name) {
    if (!buffer_ || buffer_.size() < bytes) {
        buffer_.reset();
        buffer_ = Buffer(device, bytes, usage, kind, name);
    }
    return buffer_;
}

HostReadback::HostReadback(Device& device, ScratchBuffer& scratch, std::uint64_t bytes)
    : device_(device),
      buffer_(&scratch.get(device, std::max<std::uint64_t>(bytes, 16), 0, MemoryKind::Readback, "pose readback")) {}

std::uint64_t HostReadback::add(VkCommandBuffer cmd, const Buffer& src, std::uint64_t bytes) {
    if (!barrier_) { // the passes' writes before the copies
        computeBarrier(device_, cmd);
        barrier_ = true;
    }
    const std::uint64_t at = used_;
    used_ += rounded(bytes);
    if (used_ > buffer_->size()) throw Error("internal: a pose readback larger than its buffer");
    VkBufferCopy region{0, at, bytes};
    device_.vk().vkCmdCopyBuffer(cmd, src.handle(), buffer_->handle(), 1, &region);
    return at;
}

} // namespace rsim::vk
