// SPDX-License-Identifier: MIT
#include "k/vulkan_log_encode.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <memory>
#include <thread>

#include <spdlog/spdlog.h>

#include "util/error.h"
#include "util/timer.h"
#include "vulkan/pass.h"
#include "vulkan/shaders.h"

namespace rsim {

vk::PipelineRecipe logEncodeRecipe(KFormat format) {
    return vk::passRecipe<shared::KEncodePush>(vk::shaders::kEncode(),
                                               vk::specConstants({{shared::RSIM_SPEC_K_FORMAT, kFormatInfo(format).storage}}),
                                               "K encode (" + std::string(kFormatInfo(format).name) + ")");
}

namespace {

// 32-bit words of held chunk x of K encoded in `storage`.
std::uint64_t encodedWords(const DeviceK& K, std::uint32_t x, std::uint32_t storage) {
    const std::uint32_t perWord = 32u / shared::rsimKBits(storage);
    return (K.chunking.elements(K.chunkIds[x]) + perWord - 1) / perWord;
}

vk::Buffer encodedChunk(vk::Device& device, const DeviceK& K, std::uint32_t x, KFormat format) {
    return vk::Buffer(device, encodedWords(K, x, kFormatInfo(format).storage) * 4, vk::kStorageUsage,
                      vk::MemoryKind::Device,
                      "K rows " + std::to_string(K.chunking.rowBegin(K.chunkIds[x])) + " (" + kFormatInfo(format).name +
                          ")");
}

// Whether the device has room for K's encoded chunks twice over beside what it holds.
bool roomTwiceOver(vk::Device& device, const DeviceK& K, std::uint32_t storage) {
    std::uint64_t bytes = 0;
    for (std::uint32_t x = 0; x < K.chunkIds.size(); ++x) bytes += encodedWords(K, x, storage) * 4;
    return device.deviceLocalBudget() >= 2 * bytes;
}

// Whether K's encoded chunks are allocated ahead of the encoding (allocateEncodedK).
bool encodedAhead(vk::Device& device, const DeviceK& K, KFormat format) {
    return format != K.chunking.format && kFormatInfo(format).logTable && device.useCap() == 0 &&
           roomTwiceOver(device, K, kFormatInfo(format).storage);
}

} // namespace

std::vector<vk::Buffer> allocateEncodedK(vk::Device& device, const DeviceK& K, KFormat format) {
    std::vector<vk::Buffer> out;
    if (!encodedAhead(device, K, format)) return out;
    for (std::uint32_t x = 0; x < K.chunkIds.size(); ++x) out.push_back(encodedChunk(device, K, x, format));
    return out;
}

bool EncodedAhead::allocateNext(vk::Device& device, const DeviceK& K) {
    if (allowed_ < 0) allowed_ = encodedAhead(device, K, format_) ? 1 : 0;
    if (allowed_ == 0 || chunks_.size() >= K.chunkIds.size()) return false;
    chunks_.push_back(encodedChunk(device, K, std::uint32_t(chunks_.size()), format_));
    return true;
}

std::vector<vk::Buffer> EncodedAhead::take(vk::Device& device, const DeviceK& K) {
    if (chunks_.empty()) return {};
    while (allocateNext(device, K)) {
    }
    return std::move(chunks_);
}

KErrors encodeLogKVulkan(vk::Device& device, DeviceK& K, KFormat format, std::uint64_t groupBytes,
                         std::vector<vk::Buffer> ahead) {
    const std::uint32_t storage = kFormatInfo(format).storage;
    const std::uint32_t L = shared::rsimKTableSize(storage);
    // Held chunk x is chunk K.chunkIds[x] (every chunk, or an MPI rank's).
    const std::uint32_t chunks = K.chunking.chunks(), held = std::uint32_t(K.chunkIds.size()),
                        wg = shared::RSIM_WG_ENCODE;
    vk::Pass<shared::KEncodePush> pass(device, logEncodeRecipe(format));

    if (held == 0) { // an MPI rank without rows: nothing to encode, no table to fill
        K.tables = vk::makeStorage(device, std::vector<float>(std::size_t(chunks) * L, 0.0f), "K tables");
        K.hostTables.assign(std::size_t(chunks) * L, 0.0f);
        K.chunking.format = format;
        return {};
    }
    // Per held chunk: its elements, words and the offset of its workgroups' error sums.
    std::vector<std::uint64_t> count(held), words(held), groupBase(held + 1, 0);
    for (std::uint32_t x = 0; x < held; ++x) {
        count[x] = K.chunking.elements(K.chunkIds[x]);
        words[x] = encodedWords(K, x, storage);
        groupBase[x + 1] = groupBase[x] + (words[x] + wg - 1) / wg;
    }
    std::vector<std::uint32_t> initial(std::size_t(held) * 4, 0u);
    for (std::uint32_t x = 0; x < held; ++x)
        initial[std::size_t(x) * 4] = 0x7f800000u; // min starts at +inf
    const vk::Buffer stats = vk::makeStorage(device, initial, "K encode stats");
    const vk::Buffer partials(device, std::max<std::uint64_t>(4, groupBase[held] * 4),
                              vk::kStorageUsage, vk::MemoryKind::Device, "K encode error sums");

    auto record = [&](VkCommandBuffer cmd, std::uint32_t x, shared::KEncodePush push) {
        push.values = K.buffers[x].address();
        push.stats = stats.address() + std::uint64_t(x) * 16;
        push.partials = partials.address() + groupBase[x] * 4;
        push.count = std::uint32_t(count[x]);
        pass.dispatchLinear(cmd, push, words[x], wg);
    };

    // Pass 0: every chunk's range, in one submission.
    device.submitAndWait([&](VkCommandBuffer cmd) {
        pass.bind(cmd);
        for (std::uint32_t x = 0; x < held; ++x)
            record(cmd, x, shared::KEncodePush{});
    });
    const std::vector<std::uint32_t> ranges =
        vk::download<std::uint32_t>(device, stats, initial.size());

    // Tables and boundaries on the host (L entries each per chunk; zero for chunks not held).
    std::vector<float> tables(std::size_t(chunks) * L), bounds(std::size_t(chunks) * L);
    for (std::uint32_t x = 0; x < held; ++x) {
        const std::uint32_t c = K.chunkIds[x];
        float lo, hi;
        std::memcpy(&lo, &ranges[std::size_t(x) * 4], 4);
        std::memcpy(&hi, &ranges[std::size_t(x) * 4 + 1], 4);
        const LogTable t = logTable(lo, hi, storage);
        std::copy(t.table.begin(), t.table.end(), tables.begin() + std::ptrdiff_t(c) * L);
        std::copy(t.bounds.begin(), t.bounds.end(), bounds.begin() + std::ptrdiff_t(c) * L);
    }
    K.tables = vk::makeStorage(device, tables, "K tables");
    K.hostTables = tables;
    const vk::Buffer boundsBuffer = vk::makeStorage(device, bounds, "K code boundaries");

    // Pass 1: in groups of chunks of at most groupBytes of fp32, one submission each: the
    // group's encoded buffers are allocated, its chunks encoded, then its fp32 chunks released.
    // The fp32 chunks are freed on another thread where the device has room for them beside the
    // encoded K twice over: for industry's 167 chunks on an H100 their release took 0.21 s, the
    // allocations 0.09 s and the encoding 0.015 s (docs/benchmarks.md, "K encoded in groups").
    // Elsewhere each group's go as soon as it is encoded, so at most a quarter of groupBytes
    // (lut8) exists beside fp32 K. The room is the driver's budget, not --max-device-mb: under
    // that cap the device holds fp32 and encoded K together for a moment (a quarter more than
    // fp32 K for lut8) while the fp32 chunks go.
    if (!ahead.empty() && ahead.size() != held) throw Error("internal: K's encoded chunks allocated for other chunks");
    const bool releaseLater = !ahead.empty() || roomTwiceOver(device, K, storage);
    auto retired = std::make_shared<std::vector<vk::Buffer>>();
    Stopwatch sw;
    double allocating = 0.0, encoding = 0.0, releasing = 0.0;
    std::uint32_t groups = 0;
    for (std::uint32_t x0 = 0; x0 < held;) {
        std::uint32_t x1 = x0;
        std::uint64_t bytes = 0;
        do bytes += K.buffers[x1++].size();
        while (x1 < held && bytes + K.buffers[x1].size() <= groupBytes);
        std::vector<vk::Buffer> encoded;
        for (std::uint32_t x = x0; x < x1; ++x)
            encoded.push_back(ahead.empty() ? encodedChunk(device, K, x, format) : std::move(ahead[x]));
        allocating += sw.lap();
        device.submitAndWait([&](VkCommandBuffer cmd) {
            pass.bind(cmd);
            for (std::uint32_t x = x0; x < x1; ++x) {
                const std::uint32_t c = K.chunkIds[x];
                shared::KEncodePush push{};
                push.words = encoded[x - x0].address();
                push.table = K.tables.address() + std::uint64_t(c) * L * 4;
                push.bounds = boundsBuffer.address() + std::uint64_t(c) * L * 4;
                push.pass = 1;
                record(cmd, x, push);
            }
        });
        encoding += sw.lap();
        for (std::uint32_t x = x0; x < x1; ++x) {
            if (releaseLater) retired->push_back(std::move(K.buffers[x]));
            K.buffers[x] = std::move(encoded[x - x0]); // the fp32 chunk goes, unless retired
        }
        releasing += sw.lap();
        ++groups;
        x0 = x1;
    }
    // fp32 K that is small beside the device's memory (a 16th of what is free; no --max-device-mb,
    // under which the pose groups count what the device holds) is kept until the device's
    // release: freed on another thread it still held the driver's lock against the allocations
    // that follow (the medium room's compression 0.019 -> 0.010 s on an H100; a 16th, not a 32nd,
    // keeps each of two H200s' 5.6 GB of industry; docs/benchmarks.md).
    std::uint64_t retiredBytes = 0;
    for (const vk::Buffer& b : *retired) retiredBytes += b.size();
    const bool hold = releaseLater && device.useCap() == 0 && retiredBytes * 16 <= device.deviceLocalBudget();
    if (hold)
        device.holdUntilRelease("fp32 K", retired);
    else if (releaseLater)
        // One chunk at a time, a moment apart: the driver frees under the lock its allocations
        // take, and the near lists' and the transport's buffers, allocated meanwhile, waited for
        // most of the release (one H200: those two steps 0.043 -> 0.024 s on the large room,
        // 0.066 -> 0.052 s on industry; docs/benchmarks.md).
        device.inBackground([retired] {
            while (!retired->empty()) {
                retired->pop_back();
                std::this_thread::sleep_for(std::chrono::microseconds(500));
            }
        });
    spdlog::debug("{}: K encoded in {} group(s) of chunks: allocations {:.3f} s, encoding {:.3f} s, fp32 chunks {}",
                  device.label(), groups, allocating, encoding,
                  hold           ? "kept until the device's release"
                  : releaseLater ? "released on another thread"
                                 : fmt::format("released in {:.3f} s", releasing));
    K.chunking.format = format;

    KErrors errors;
    for (float s : vk::download<float>(device, partials, groupBase[held]))
        errors.sumSquared += double(s);
    const std::vector<std::uint32_t> after =
        vk::download<std::uint32_t>(device, stats, initial.size());
    for (std::uint32_t x = 0; x < held; ++x) {
        float e;
        std::memcpy(&e, &after[std::size_t(x) * 4 + 2], 4);
        errors.maxAbs = std::max(errors.maxAbs, double(e));
    }
    return errors;
}

} // namespace rsim
