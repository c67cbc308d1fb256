// SPDX-License-Identifier: MIT
#include "vulkan/pipeline_cache.h"

#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <system_error>
#include <vector>

#include <spdlog/spdlog.h>
#include <unistd.h>

#include "util/cache_dir.h"
#include "util/error.h"
#include "util/owned_files.h"
#include "vulkan/device.h"

namespace rsim::vk {
namespace {

namespace fs = std::filesystem;

std::string hex(const std::uint8_t* bytes, std::size_t n) {
    std::string s;
    char buf[3];
    for (std::size_t k = 0; k < n; ++k) {
        std::snprintf(buf, sizeof buf, "%02x", bytes[k]);
        s += buf;
    }
    return s;
}

// Why `data` cannot seed this device's cache, or "" (VkPipelineCacheHeaderVersionOne).
std::string mismatch(const std::vector<char>& data, const VkPhysicalDeviceProperties& p) {
    VkPipelineCacheHeaderVersionOne h{};
    if (data.size() < sizeof h) return "shorter than its header";
    std::memcpy(&h, data.data(), sizeof h);
    if (h.headerSize < sizeof h || h.headerSize > data.size()) return "bad header size";
    if (h.headerVersion != VK_PIPELINE_CACHE_HEADER_VERSION_ONE) return "unknown header version";
    if (h.vendorID != p.vendorID || h.deviceID != p.deviceID) return "written for another device";
    if (std::memcmp(h.pipelineCacheUUID, p.pipelineCacheUUID, VK_UUID_SIZE) != 0) return "written by another driver";
    return {};
}

} // namespace

PipelineCache::PipelineCache(Device& device) : device_(device) {
    const VkPhysicalDeviceProperties& p = device.properties();
    const fs::path dir = userCacheDir();
    std::vector<char> data;
    if (!dir.empty()) {
        file_ = dir / "pipelines" /
                (std::to_string(p.vendorID) + "-" + std::to_string(p.deviceID) + "-" + std::to_string(p.driverVersion) +
                 "-" + hex(p.pipelineCacheUUID, VK_UUID_SIZE) + ".bin");
        // Sized from the file, then read whole (GCC 12 sees a null dereference in the
        // istreambuf_iterator way that is not there).
        std::ifstream in(file_, std::ios::binary | std::ios::ate);
        if (in) {
            const std::streamoff size = in.tellg();
            if (size > 0) {
                data.resize(std::size_t(size));
                in.seekg(0);
                if (!in.read(data.data(), size)) data.clear();
            }
        }
        if (!data.empty()) {
            if (const std::string why = mismatch(data, p); !why.empty()) {
                spdlog::debug("{}: pipeline cache {} ignored: {}", device.label(), file_.string(), why);
                data.clear();
            } else {
                spdlog::debug("{}: pipeline cache {} ({} bytes)", device.label(), file_.string(), data.size());
            }
        }
    }
    loadedBytes_ = data.size();
    VkPipelineCacheCreateInfo ci{VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO};
    ci.initialDataSize = data.size();
    ci.pInitialData = data.empty() ? nullptr : data.data();
    if (device.vk().vkCreatePipelineCache(device.handle(), &ci, nullptr, &cache_) != VK_SUCCESS && !data.empty()) {
        spdlog::debug("{}: the driver refused pipeline cache {}; starting empty", device.label(), file_.string());
        loadedBytes_ = 0;
        ci.initialDataSize = 0;
        ci.pInitialData = nullptr;
        VK_CHECK(device.vk().vkCreatePipelineCache(device.handle(), &ci, nullptr, &cache_));
    }
}

void PipelineCache::save() {
    if (!cache_ || !dirty_.exchange(false) || file_.empty()) return;
    std::size_t size = 0;
    std::vector<char> data;
    if (device_.vk().vkGetPipelineCacheData(device_.handle(), cache_, &size, nullptr) == VK_SUCCESS && size) {
        data.resize(size);
        if (device_.vk().vkGetPipelineCacheData(device_.handle(), cache_, &size, data.data()) != VK_SUCCESS)
            data.clear();
        data.resize(std::min(size, data.size()));
    }
    // The same size as what it was seeded with: nothing new was compiled (a driver that
    // caches nothing returns its header only), so the file stays as it is.
    if (data.empty() || data.size() == loadedBytes_) return;
    std::error_code ec;
    fs::create_directories(file_.parent_path(), ec);
    if (ec) return;
    try {
        TempFile tmp(file_); // exclusively created: nothing planted in the cache folder is written through
        tmp.write(data.data(), data.size());
        tmp.commit();
    } catch (const Error& e) {
        spdlog::debug("{}: pipeline cache {} not saved: {}", device_.label(), file_.string(), e.what());
        return;
    }
    loadedBytes_ = data.size();
}

PipelineCache::~PipelineCache() {
    if (!cache_) return;
    save();
    device_.vk().vkDestroyPipelineCache(device_.handle(), cache_, nullptr);
}

} // namespace rsim::vk
