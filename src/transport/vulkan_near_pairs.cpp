// SPDX-License-Identifier: MIT
#include "transport/vulkan_near_pairs.h"

#include <algorithm>

#include <spdlog/spdlog.h>

#include "util/timer.h"
#include "vulkan/pass.h"
#include "vulkan/shaders.h"

namespace rsim {

vk::PipelineRecipe nearPairsRecipe(std::uint32_t storage, std::uint32_t layout) {
    return vk::passRecipe<shared::NearListPush>(vk::shaders::nearPairs(),
                                                vk::specConstants({{shared::RSIM_SPEC_K_FORMAT, storage},
                                                                   {shared::RSIM_SPEC_K_LAYOUT, layout}}),
                                                "near pairs");
}

NearLists buildNearListsVulkan(vk::Device& device, const DeviceK& K, const vk::Buffer& records,
                               const PreparedScene& scene, const SimConfig& config, std::uint32_t nearBelow,
                               std::uint32_t columns, std::uint64_t maxCounts) {
    const KChunking& ch = K.chunking;
    const std::uint32_t n = ch.n;
    if (K.streamed) {
        std::vector<std::int32_t> heldAt(ch.chunks(), -1);
        for (std::size_t x = 0; x < K.chunkIds.size(); ++x) heldAt[K.chunkIds[x]] = std::int32_t(x);
        return buildNearLists(scene, config, [&](std::uint32_t i, std::uint32_t j) {
            const std::int32_t x = heldAt[ch.chunkOf(i)];
            return x < 0 ? 0.0f : K.hostElement(std::size_t(x), i, j);
        }, nearBelow);
    }
    // Invocation (row, block) scans a block of columns: a row's n columns one after the other
    // kept too few warps busy (shaders/near_pairs.comp). At most maxCounts (row, block) counts:
    // wider blocks where there are more rows, which alone keep the device busy.
    std::uint32_t cols = std::max<std::uint32_t>(1, std::min(columns, n));
    if (std::uint64_t(n) * ((n + cols - 1) / cols) > maxCounts) {
        const std::uint64_t most = std::max<std::uint64_t>(1, maxCounts / n); // blocks
        cols = std::uint32_t((n + most - 1) / most);
    }
    const std::uint32_t blocks = (n + cols - 1) / cols;
    const std::uint64_t slots = std::uint64_t(n) * blocks;
    vk::Buffer offsets(device, std::max<std::uint64_t>(slots, 1) * 4, vk::kStorageUsage, vk::MemoryKind::Device,
                       "near-pair counts and places");
    vk::fillZero(device, offsets);
    vk::Pass<shared::NearListPush> pass(device, nearPairsRecipe(ch.storage(), K.layoutSpec()));
    shared::NearListPush push{};
    push.tris = records.address();
    push.nearOffsets = offsets.address();
    push.n = n;
    push.invCdtSq = config.invCdtSq;
    push.nearBelow = nearBelow;
    push.columns = cols;
    push.blocks = blocks;
    // Pass 0 counts each (row, block)'s pairs, pass 1 writes them where the counts place them.
    auto runPass = [&](std::uint32_t pass1) {
        push.pass = pass1;
        device.submitAndWait([&](VkCommandBuffer cmd) {
            pass.bind(cmd);
            for (std::size_t x = 0; x < K.chunkIds.size(); ++x) {
                push.k = K.chunkRef(x);
                pass.dispatch(cmd, push, (ch.rows(K.chunkIds[x]) + shared::RSIM_WG_LINEAR - 1) / shared::RSIM_WG_LINEAR,
                              blocks);
            }
        });
    };
    std::uint64_t heldRows = 0;
    for (const std::uint32_t c : K.chunkIds) heldRows += ch.rows(c);
    Stopwatch sw;
    runPass(0);
    const double counting = sw.lap();
    std::vector<std::uint32_t> places = vk::download<std::uint32_t>(device, offsets, std::size_t(slots));
    NearLists out;
    out.offsets.assign(n + 1, 0);
    for (std::uint32_t i = 0; i < n; ++i) {
        std::uint32_t at = out.offsets[i];
        for (std::uint32_t b = 0; b < blocks; ++b) {
            const std::uint32_t count = places[std::size_t(i) * blocks + b];
            places[std::size_t(i) * blocks + b] = at;
            at += count;
        }
        out.offsets[i + 1] = at;
    }
    vk::uploadBytes(device, offsets, places.data(), places.size() * 4);
    const double placing = sw.lap();
    vk::Buffer pairs(device, std::max<std::uint64_t>(1, out.offsets[n]) * sizeof(shared::NearPair),
                     vk::kStorageUsage, vk::MemoryKind::Device, "near pairs");
    push.nearPairs = pairs.address();
    runPass(1);
    out.pairs = vk::download<shared::NearPair>(device, pairs, out.offsets[n]);
    spdlog::debug("{}: near lists of {} rows in blocks of {} columns: counted in {:.4f} s, placed in {:.4f} s, "
                  "{} pairs ({:.1f} MiB) written and read back in {:.4f} s",
                  device.label(), heldRows, cols, counting,
                  placing, out.offsets[n], double(out.offsets[n]) * sizeof(shared::NearPair) / 1048576.0, sw.lap());
    return out;
}

} // namespace rsim
