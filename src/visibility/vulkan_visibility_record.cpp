// SPDX-License-Identifier: MIT
// One visibility launch recorded into a command buffer (vulkan_visibility_record.h): its lists
// emptied, the facing pairs listed, the tiles' occluder lists and the pairs tested against them
// (when on), the rays, the blocker rounds (when on), then the near pairs.
#include "visibility/vulkan_visibility_record.h"

#include <cstddef>
#include <string>

#include "util/error.h"
#include "vulkan/ray_pass.h"

namespace rsim {

namespace {
// The list of the pairs the ray pass takes: those the listed pass left, or every facing pair.
const vk::Buffer& tracedList(const VisibilityLists& lists) { return lists.tileListMax > 0 ? lists.traced : lists.facing; }

// Sizes the indirect launches of the passes over the list of pairs at p.facingList
// (FacingListHeader::launch and computeLaunch), once the passes before have completed it.
void sizeListLaunches(vk::Device& device, const VisibilityPipelines& pipelines, shared::VisibilityPush p,
                      VkCommandBuffer cmd) {
    p.phase = shared::RSIM_VIS_FACING_LAUNCH;
    pipelines.nearLaunch->bind(cmd);
    pipelines.nearLaunch->dispatch(cmd, p, 1);
    vk::indirectBarrier(device, cmd);
}

// The blocker rounds after the first phase (gpu_layout.h): the pairs with rays left compacted
// into an active list, RSIM_BLOCKER_ROUNDS rounds over it, the rest traced, then every traced
// pair's K. Each round's launches are sized on the device from the list the last one left.
void recordBlockerRounds(vk::Device& device, const VisibilityPipelines& pipelines, shared::VisibilityPush p,
                         const VisibilityLists& lists, VkCommandBuffer cmd) {
    const vk::Pipeline& rays = *pipelines.rays;
    const vk::Pass<shared::VisibilityPush>& compact = *pipelines.activePairs;
    const vk::Buffer& traced = tracedList(lists);
    compact.bind(cmd);
    compact.dispatchIndirect(cmd, p, traced, offsetof(shared::FacingListHeader, computeLaunch));
    vk::computeBarrier(device, cmd);
    for (std::uint32_t r = 0; r <= shared::RSIM_BLOCKER_ROUNDS; ++r) {
        const bool rest = r == shared::RSIM_BLOCKER_ROUNDS;
        p.phase = (rest ? shared::RSIM_VIS_REST_FROM_0 : shared::RSIM_VIS_ROUND_FROM_0) + r % 2;
        pipelines.nearLaunch->bind(cmd);
        pipelines.nearLaunch->dispatch(cmd, p, 1);
        vk::indirectBarrier(device, cmd);
        rays.bind(cmd, &p);
        rays.dispatchIndirect(cmd, lists.rounds, offsetof(shared::BlockerRoundsHeader, launch));
        vk::computeBarrier(device, cmd);
        if (rest) break;
        compact.bind(cmd);
        compact.dispatchIndirect(cmd, p, lists.rounds, offsetof(shared::BlockerRoundsHeader, compactLaunch));
        vk::computeBarrier(device, cmd);
    }
    p.phase = shared::RSIM_VIS_PAIRS_FINISH;
    rays.bind(cmd, &p);
    rays.dispatchIndirect(cmd, traced, offsetof(shared::FacingListHeader, launch));
    vk::computeBarrier(device, cmd);
}

} // namespace

void recordVisibilityLaunch(vk::Device& device, const VisibilityPipelines& pipelines, shared::VisibilityPush p,
                            const VisibilityLists& lists, VkCommandBuffer cmd, const vk::Timestamps* ts,
                            std::uint32_t first) {
    auto stamp = [&](std::uint32_t k) {
        if (ts) ts->write(cmd, first + k);
    };
    stamp(0);
    // The launch covers columns [p.colBegin, min(p.colEnd, p.n)) and rows [p.rowBegin, p.rowEnd).
    const std::uint32_t tilesX = shared::rsimTilesAcross(p), tilesY = shared::rsimTilesDown(p);
    const std::uint64_t tiles = std::uint64_t(tilesX) * tilesY;
    if (tilesX > device.limits().maxComputeWorkGroupCount[0])
        throw Error("a scene of " + std::to_string(p.n) + " triangles needs " + std::to_string(tilesX) +
                    " workgroups in a row of its visibility pass; this device allows " +
                    std::to_string(device.limits().maxComputeWorkGroupCount[0]));
    shared::FacingListHeader header{};
    if (lists.tileListMax > 0) {
        if (tiles > lists.tileCapacity) throw Error("internal: a visibility launch with more tiles than its lists hold");
        header.tileListMax = lists.tileListMax;
        header.tileCapacity = lists.tileCapacity;
        header.tiles = lists.tiles.address();
        header.traced = lists.traced.address();
        device.vk().vkCmdFillBuffer(cmd, lists.tiles.handle(), 0, tiles * 4, shared::RSIM_TILE_NONE);
        device.vk().vkCmdFillBuffer(cmd, lists.traced.handle(), 0, sizeof(shared::FacingListHeader), 0);
    }
    const vk::Pipeline& rays = *pipelines.rays;
    // The rounds are on when the lists have their area (blockerRounds(settings)); the shader
    // follows the near list's header.
    const bool rounds = bool(lists.rounds);
    if (rounds != bool(pipelines.activePairs) || (rounds && !shared::rsimBlockerRounds(p.samples, p.estimator)))
        throw Error("internal: the blocker rounds' lists or pipeline do not match the launch");
    shared::NearVisibilityListHeader nearHeader{};
    nearHeader.groupWidth = rays.isRayTracing() ? 1 : shared::RSIM_WG_PAIRS_X;
    if (rounds) {
        nearHeader.rounds = lists.rounds.address();
        shared::BlockerRoundsHeader roundsHeader{};
        roundsHeader.capacity = lists.facingCapacity;
        device.vk().vkCmdUpdateBuffer(cmd, lists.rounds.handle(), 0, sizeof roundsHeader, &roundsHeader);
    }
    device.vk().vkCmdUpdateBuffer(cmd, lists.buffer.handle(), 0, sizeof nearHeader, &nearHeader);
    device.vk().vkCmdUpdateBuffer(cmd, lists.facing.handle(), 0, sizeof header, &header);
    vk::computeBarrier(device, cmd);
    p.nearList = lists.buffer.address();
    p.nearCapacity = lists.capacity;
    p.facingList = lists.facing.address();
    pipelines.facing->bind(cmd);
    pipelines.facing->dispatch(cmd, p, tilesX, tilesY);
    vk::computeBarrier(device, cmd);
    sizeListLaunches(device, pipelines, p, cmd);
    stamp(1);
    if (lists.tileListMax > 0) {
        // The tiles' lists, then the pairs of listed tiles; the ray pass takes the others.
        pipelines.tiles->bind(cmd);
        pipelines.tiles->dispatch(cmd, p, std::uint32_t((tiles + shared::RSIM_WG_LINEAR - 1) / shared::RSIM_WG_LINEAR));
        vk::computeBarrier(device, cmd);
        stamp(2);
        pipelines.listed->bind(cmd);
        pipelines.listed->dispatchIndirect(cmd, p, lists.facing, offsetof(shared::FacingListHeader, computeLaunch));
        vk::computeBarrier(device, cmd);
        p.facingList = lists.traced.address();
        sizeListLaunches(device, pipelines, p, cmd);
    } else {
        stamp(2);
    }
    stamp(3);
    // The ray phase, as large as its list: consecutive pairs of the list in a warp.
    p.phase = shared::RSIM_VIS_PAIRS;
    rays.bind(cmd, &p);
    rays.dispatchIndirect(cmd, tracedList(lists), offsetof(shared::FacingListHeader, launch));
    vk::computeBarrier(device, cmd);
    if (rounds) recordBlockerRounds(device, pipelines, p, lists, cmd);
    stamp(4);
    // The near pairs' parts, then their sums (gpu_layout.h), launched as large as the list the
    // ray phase left.
    p.phase = shared::RSIM_VIS_NEAR;
    pipelines.nearLaunch->bind(cmd);
    pipelines.nearLaunch->dispatch(cmd, p, 1);
    vk::indirectBarrier(device, cmd);
    p.phase = shared::RSIM_VIS_NEAR;
    rays.bind(cmd, &p);
    rays.dispatchIndirect(cmd, lists.buffer, offsetof(shared::NearVisibilityListHeader, partsLaunch));
    vk::computeBarrier(device, cmd);
    p.phase = shared::RSIM_VIS_NEAR_FINISH;
    rays.pushConstants(cmd, &p);
    rays.dispatchIndirect(cmd, lists.buffer, offsetof(shared::NearVisibilityListHeader, finishLaunch));
    vk::computeBarrier(device, cmd);
    stamp(5);
}

} // namespace rsim
