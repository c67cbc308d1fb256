// SPDX-License-Identifier: MIT
#include "k/vulkan_log_encode.h"

#include <algorithm>
#include <cstring>

#include "vulkan/pass.h"
#include "vulkan/shaders.h"

namespace rsim {

KErrors encodeLogKVulkan(vk::Device& device, DeviceK& K, KFormat format) {
    const std::uint32_t storage = kFormatInfo(format).storage;
    const std::uint32_t L = shared::rsimKTableSize(storage),
                        perWord = 32u / shared::rsimKBits(storage);
    // Held chunk x is chunk K.chunkIds[x] (every chunk, or an MPI rank's).
    const std::uint32_t chunks = K.chunking.chunks(), held = std::uint32_t(K.chunkIds.size()),
                        wg = shared::RSIM_WG_ENCODE;
    vk::Pass<shared::KEncodePush> pass(device, vk::shaders::kEncode(),
                                       vk::specConstants({{shared::RSIM_SPEC_K_FORMAT, storage}}),
                                       "K encode (" + std::string(kFormatInfo(format).name) + ")");

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
        words[x] = (count[x] + perWord - 1) / perWord;
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

    // Pass 1: chunk by chunk, so at most one chunk exists in both formats.
    for (std::uint32_t x = 0; x < held; ++x) {
        const std::uint32_t c = K.chunkIds[x];
        vk::Buffer encoded(device, words[x] * 4, vk::kStorageUsage, vk::MemoryKind::Device,
                           "K rows " + std::to_string(K.chunking.rowBegin(c)) + " (" +
                               kFormatInfo(format).name + ")");
        shared::KEncodePush push{};
        push.words = encoded.address();
        push.table = K.tables.address() + std::uint64_t(c) * L * 4;
        push.bounds = boundsBuffer.address() + std::uint64_t(c) * L * 4;
        push.pass = 1;
        device.submitAndWait([&](VkCommandBuffer cmd) {
            pass.bind(cmd);
            record(cmd, x, push);
        });
        K.buffers[x] = std::move(encoded);
    }
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
