// SPDX-License-Identifier: MIT
#include "vulkan/shared_host_buffer.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "vulkan/vk_check.h"

namespace rsim::vk {

namespace {
constexpr VkExternalMemoryHandleTypeFlagBits kHostAllocation = VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT;
} // namespace

std::unique_ptr<SharedHostBuffer> SharedHostBuffer::tryCreate(const std::vector<Device*>& devices, std::uint64_t bytes,
                                                               const std::string& name, std::string* why) {
    auto refuse = [&](const std::string& reason) -> std::unique_ptr<SharedHostBuffer> {
        if (why) *why = reason;
        return nullptr;
    };
    if (devices.empty() || bytes == 0) return refuse("nothing to share");
    std::uint64_t align = 0;
    for (const Device* d : devices) {
        if (!d->hostImportAlignment()) return refuse(d->label() + " does not import host memory");
        align = std::max(align, d->hostImportAlignment()); // powers of two: the largest divides by the others
    }
    std::unique_ptr<SharedHostBuffer> out(new SharedHostBuffer());
    out->bytes_ = (bytes + align - 1) / align * align;
    out->data_ = std::aligned_alloc(align, out->bytes_);
    if (!out->data_) return refuse("no host memory for " + std::to_string(out->bytes_ >> 20) + " MiB");
    std::memset(out->data_, 0, out->bytes_);
    for (Device* d : devices) {
        const auto& vk = d->vk();
        Part part{d};
        out->parts_.push_back(part);
        Part& p = out->parts_.back();
        VkMemoryHostPointerPropertiesEXT pointer{VK_STRUCTURE_TYPE_MEMORY_HOST_POINTER_PROPERTIES_EXT};
        if (vk.vkGetMemoryHostPointerPropertiesEXT(d->handle(), kHostAllocation, out->data_, &pointer) != VK_SUCCESS)
            return refuse(d->label() + " does not take this host pointer");
        VkExternalMemoryBufferCreateInfo external{VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO};
        external.handleTypes = kHostAllocation;
        VkBufferCreateInfo bi{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
        bi.pNext = &external;
        bi.size = out->bytes_;
        bi.usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
        bi.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
        VK_CHECK(vk.vkCreateBuffer(d->handle(), &bi, nullptr, &p.buffer));
        VkMemoryRequirements req;
        vk.vkGetBufferMemoryRequirements(d->handle(), p.buffer, &req);
        const std::uint32_t types = req.memoryTypeBits & pointer.memoryTypeBits;
        if (!types || req.size > out->bytes_) return refuse(d->label() + " has no memory type for it");
        std::uint32_t type = UINT32_MAX;
        try {
            type = d->memoryType(types, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
                                 VK_MEMORY_PROPERTY_HOST_CACHED_BIT, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
        } catch (const std::exception&) {
            return refuse(d->label() + " imports it only as memory that is not host-coherent");
        }
        VkImportMemoryHostPointerInfoEXT importInfo{VK_STRUCTURE_TYPE_IMPORT_MEMORY_HOST_POINTER_INFO_EXT};
        importInfo.handleType = kHostAllocation;
        importInfo.pHostPointer = out->data_;
        VkMemoryAllocateInfo ai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
        ai.pNext = &importInfo;
        ai.allocationSize = out->bytes_;
        ai.memoryTypeIndex = type;
        const VkResult r = vk.vkAllocateMemory(d->handle(), &ai, nullptr, &p.memory);
        if (r != VK_SUCCESS) {
            p.memory = VK_NULL_HANDLE;
            return refuse(d->label() + " refused the import (" + std::string(resultName(r)) + ")");
        }
        VK_CHECK(vk.vkBindBufferMemory(d->handle(), p.buffer, p.memory, 0));
        d->name(p.buffer, VK_OBJECT_TYPE_BUFFER, name);
        d->name(p.memory, VK_OBJECT_TYPE_DEVICE_MEMORY, name + " memory (imported)");
    }
    return out;
}

SharedHostBuffer::~SharedHostBuffer() {
    for (const Part& p : parts_) {
        if (p.buffer) p.device->vk().vkDestroyBuffer(p.device->handle(), p.buffer, nullptr);
        if (p.memory) p.device->vk().vkFreeMemory(p.device->handle(), p.memory, nullptr);
    }
    std::free(data_); // after every device let go of its import
}

} // namespace rsim::vk
