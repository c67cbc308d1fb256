// SPDX-License-Identifier: MIT
// A VkBuffer with its own memory (move-only). Shaders reach buffers by device address.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "vulkan/device.h"

namespace rsim::vk {

enum class MemoryKind {
    Device,   // device-local, filled and read through staging copies
    Upload,   // host-visible, coherent: staging for host -> device
    Readback, // host-visible, cached: staging for device -> host
};

class Buffer {
public:
    Buffer() = default;
    // `shared`: usable by the compute and the transfer queue families without ownership
    // transfers (the streaming transport's chunk buffers).
    Buffer(Device& device, std::uint64_t bytes, VkBufferUsageFlags usage, MemoryKind kind,
           const std::string& name, bool shared = false);
    ~Buffer() { reset(); }
    Buffer(Buffer&& other) noexcept { *this = std::move(other); }
    Buffer& operator=(Buffer&& other) noexcept;
    Buffer(const Buffer&) = delete;
    Buffer& operator=(const Buffer&) = delete;

    VkBuffer handle() const { return buffer_; }
    VkDeviceAddress address() const { return address_; }
    std::uint64_t size() const { return size_; }
    void* mapped() const { return mapped_; }
    explicit operator bool() const { return buffer_ != VK_NULL_HANDLE; }
    void reset();

private:
    Device* device_ = nullptr;
    VkBuffer buffer_ = VK_NULL_HANDLE;
    VkDeviceMemory memory_ = VK_NULL_HANDLE;
    VkDeviceAddress address_ = 0;
    std::uint64_t size_ = 0;
    void* mapped_ = nullptr;
};

// Usage bits of a storage buffer that shaders address and copies fill.
inline constexpr VkBufferUsageFlags kStorageUsage =
    VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT |
    VK_BUFFER_USAGE_TRANSFER_DST_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT;

// Host <-> device copies through a staging buffer (blocking).
void uploadBytes(Device& device, const Buffer& dst, const void* data, std::uint64_t bytes,
                 std::uint64_t dstOffset = 0);
void downloadBytes(Device& device, const Buffer& src, void* data, std::uint64_t bytes,
                   std::uint64_t srcOffset = 0);
void fillZero(Device& device, const Buffer& dst);
// A device-local storage buffer holding `values`.
template <class T>
Buffer makeStorage(Device& device, const std::vector<T>& values, const std::string& name,
                   VkBufferUsageFlags extraUsage = 0) {
    const std::uint64_t bytes = std::max<std::uint64_t>(sizeof(T), values.size() * sizeof(T));
    Buffer b(device, bytes, kStorageUsage | extraUsage, MemoryKind::Device, name);
    if (!values.empty()) uploadBytes(device, b, values.data(), values.size() * sizeof(T));
    return b;
}

template <class T> std::vector<T> download(Device& device, const Buffer& src, std::size_t count) {
    std::vector<T> out(count);
    if (count) downloadBytes(device, src, out.data(), count * sizeof(T));
    return out;
}

// Execution + memory barrier between compute/ray-tracing work and what follows.
void computeBarrier(Device& device, VkCommandBuffer cmd);
// computeBarrier, and the shaders' writes visible to the indirect launches recorded after it.
void indirectBarrier(Device& device, VkCommandBuffer cmd);
// Copies recorded before it are visible to host reads once the submission has signalled.
void hostReadBarrier(Device& device, VkCommandBuffer cmd);

// A buffer kept from one call to the next while it is large enough: the passes that run once per
// pose allocate their buffers once per batch, not once per pose.
class ScratchBuffer {
  public:
    Buffer& get(Device& device, std::uint64_t bytes, VkBufferUsageFlags usage, MemoryKind kind, const std::string& name);

  private:
    Buffer buffer_;
};

// One submission's results for the host: `add` records a copy of a device buffer's first bytes
// into a host-visible buffer (after the compute work recorded before it) and returns where they
// will be; after the submission, `at` reads them.
class HostReadback {
  public:
    // Room for `bytes` in all, 16-byte aligned pieces included.
    HostReadback(Device& device, ScratchBuffer& scratch, std::uint64_t bytes);
    std::uint64_t add(VkCommandBuffer cmd, const Buffer& src, std::uint64_t bytes);
    template <class T> const T* at(std::uint64_t offset) const {
        return reinterpret_cast<const T*>(static_cast<const char*>(buffer_->mapped()) + offset);
    }
    static std::uint64_t rounded(std::uint64_t bytes) { return (bytes + 15) & ~std::uint64_t(15); }

  private:
    Device& device_;
    Buffer* buffer_;
    std::uint64_t used_ = 0;
    bool barrier_ = false;
};

} // namespace rsim::vk
