// SPDX-License-Identifier: MIT
#include "transport/vulkan_near_pairs.h"

#include "vulkan/shaders.h"

namespace rsim {

NearLists buildNearListsVulkan(const vk::Device& device, const GpuKMatrix& K,
                               const std::vector<shared::GpuTransportTri>& records, const SimConfig& config) {
    const std::uint32_t n = K.n;
    const vk::Buffer tris = vk::makeStorage(device, records, "transport triangles (near lists)");
    vk::Buffer offsets(device, std::uint64_t(n + 1) * 4, vk::kStorageUsage, vk::MemoryKind::Device,
                       "near-pair offsets");
    vk::fillZero(device, offsets);
    vk::Pipeline pipeline(device, vk::shaders::nearPairs(), sizeof(shared::NearListPush), false,
                          vk::SpecConstants{0, 0, K.storage()}, "near pairs");
    shared::NearListPush push{};
    push.tris = tris.address();
    push.nearOffsets = offsets.address();
    push.n = n;
    push.invCdtSq = config.invCdtSq;
    auto runPass = [&](std::uint32_t pass) {
        push.pass = pass;
        device.submitAndWait([&](VkCommandBuffer cmd) {
            pipeline.bind(cmd, nullptr);
            for (std::uint32_t c = 0; c < K.chunkCount(); ++c) {
                push.kChunk = K.chunks[c].address();
                push.kTable = K.tableAddress(c);
                push.rowBegin = K.rowBegin(c);
                push.rowEnd = K.rowEnd(c);
                pipeline.pushConstants(cmd, &push);
                pipeline.dispatch(cmd, (push.rowEnd - push.rowBegin + shared::RSIM_WG_LINEAR - 1) /
                                           shared::RSIM_WG_LINEAR, 1);
            }
        });
    };
    runPass(0);
    const auto counts = vk::download<std::uint32_t>(device, offsets, n);
    NearLists out;
    out.offsets.assign(n + 1, 0);
    for (std::uint32_t i = 0; i < n; ++i) out.offsets[i + 1] = out.offsets[i] + counts[i];
    vk::uploadBytes(device, offsets, out.offsets.data(), out.offsets.size() * 4);
    vk::Buffer pairs(device, std::max<std::uint64_t>(1, out.offsets[n]) * sizeof(shared::NearPair),
                     vk::kStorageUsage, vk::MemoryKind::Device, "near pairs");
    push.nearPairs = pairs.address();
    runPass(1);
    out.pairs = vk::download<shared::NearPair>(device, pairs, out.offsets[n]);
    return out;
}

} // namespace rsim
