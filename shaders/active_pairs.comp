// SPDX-License-Identifier: MIT
// The blocker rounds' compaction (gpu_layout.h, BlockerRoundsHeader): appends the traced pairs
// that still have rays without a verdict to the next round's active list, so that every
// invocation of the next round traces. For pc.phase RSIM_VIS_PAIRS: every traced pair of the
// launch (the first round's), into list 0; for RSIM_VIS_ROUND_FROM_0/1: the pairs of that list,
// into the other. One invocation per pair, one atomic per subgroup.
#version 460
#extension GL_GOOGLE_include_directive : require
#extension GL_KHR_shader_subgroup_ballot : require
#include "common/rsim.glsl"
#include "common/visibility_lists.glsl"
layout(local_size_x = RSIM_WG_PAIRS_X) in;
layout(push_constant) uniform Push { VisibilityPush pc; };

void main() {
    uint64_t area = NearListRef(pc.nearList).header.rounds;
    RoundsRef r = RoundsRef(area);
    uint capacity = r.header.capacity;
    uint slot = 0u, to = 0u;
    bool valid;
    // Launched as large as the list it reads (FacingListHeader::computeLaunch, or
    // BlockerRoundsHeader::compactLaunch), in rows of workgroups.
    uint index = gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x + gl_GlobalInvocationID.x;
    if (pc.phase == RSIM_VIS_PAIRS) { // the launch's traced pairs
        valid = index < FacingListRef(pc.facingList).header.count;
        slot = index;
    } else {
        uint from = (pc.phase - RSIM_VIS_ROUND_FROM_0) % 2u;
        to = 1u - from;
        valid = index < (from == 0u ? r.header.active0 : r.header.active1);
        if (valid) slot = UintRefs(area + rsimActiveListOffset(capacity, from)).v[index];
    }
    bool keep = false;
    if (valid) {
        PairRays p = r.pairs[slot];
        keep = !rsimPairDone(p) && p.pending != 0u;
    }
    uvec4 ballot = subgroupBallot(keep);
    uint count = subgroupBallotBitCount(ballot);
    if (count == 0u) return;
    uint base = 0u;
    if (subgroupElect()) base = to == 0u ? atomicAdd(r.header.active0, count) : atomicAdd(r.header.active1, count);
    base = subgroupBroadcastFirst(base);
    if (keep) UintRefs(area + rsimActiveListOffset(capacity, to)).v[base + subgroupBallotExclusiveBitCount(ballot)] = slot;
}
