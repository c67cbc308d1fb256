// SPDX-License-Identifier: MIT
// The sizes of a visibility launch's indirect launches (gpu_layout.h), for launches as large as
// the lists their phases read: a launch of a list's capacity would run mostly empty invocations.
// One invocation. For pc.phase RSIM_VIS_FACING_LAUNCH: the passes over the list of pairs at
// pc.facingList (FacingListHeader). For RSIM_VIS_ROUND_FROM_0/1 or RSIM_VIS_REST_FROM_0/1: the
// next blocker round's ray pass and compaction (BlockerRoundsHeader), from the active list it
// reads; the list it appends to is emptied. Otherwise: the near phases, from the near pairs the
// first phase listed (NearVisibilityListHeader).
#version 460
#extension GL_GOOGLE_include_directive : require
#include "common/rsim.glsl"
#include "common/visibility_lists.glsl"
layout(local_size_x = 1) in;
layout(push_constant) uniform Push { VisibilityPush pc; };

// A launch of `count` invocations in workgroups `w` wide: rows of at most 65,535 workgroups
// (every device's limit in x), so that RSIM_LAUNCH_INDEX counts them row after row.
uvec4 launchOf(uint count, uint w) {
    uint groups = (count + w - 1u) / w;
    if (w == 1u) return uvec4(groups, 1u, 1u, 0u); // a ray-tracing pipeline's launch is in invocations
    uint x = min(groups, 65535u);
    return uvec4(x, x == 0u ? 1u : (groups + x - 1u) / x, 1u, 0u);
}

void main() {
    NearListRef list = NearListRef(pc.nearList);
    uint w = list.header.groupWidth;
    if (pc.phase == RSIM_VIS_FACING_LAUNCH) {
        FacingListRef pairs = FacingListRef(pc.facingList);
        pairs.header.launch = launchOf(pairs.header.count, w);
        pairs.header.computeLaunch = launchOf(pairs.header.count, RSIM_WG_PAIRS_X);
        return;
    }
    if (pc.phase >= RSIM_VIS_ROUND_FROM_0 && pc.phase <= RSIM_VIS_REST_FROM_1) {
        RoundsRef r = RoundsRef(list.header.rounds);
        bool fromList0 = (pc.phase - RSIM_VIS_ROUND_FROM_0) % 2u == 0u;
        uint count = fromList0 ? r.header.active0 : r.header.active1;
        r.header.launch = launchOf(count, w);
        r.header.compactLaunch = launchOf(count, RSIM_WG_PAIRS_X);
        if (fromList0) r.header.active1 = 0u;
        else r.header.active0 = 0u;
        return;
    }
    uint pairs = min(list.header.count, pc.nearCapacity);
    list.header.partsLaunch = uvec4((pairs * RSIM_NEAR_PARTS + w - 1u) / w, 1u, 1u, 0u);
    list.header.finishLaunch = uvec4((pairs + w - 1u) / w, 1u, 1u, 0u);
}
