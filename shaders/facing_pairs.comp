// SPDX-License-Identifier: MIT
// The pairs of one visibility launch that can face each other (rsimCanFace), listed for its ray
// phase (VisibilityPush::facingList, gpu_layout.h). Without the list, the ray phase ran one
// invocation per pair and culled the others in place: in the generated industry scene (129k
// triangles) a third of its pairs face each other, and the warps that cast rays had half their
// lanes idle. One invocation per pair of the launch (x: column offset, y: row offset), one
// workgroup per tile (RSIM_TILE_EDGE x RSIM_TILE_EDGE pairs), the facing ones appended in
// invocation order within each subgroup, one atomic per subgroup; a subgroup with a facing pair
// marks its tile for tile_shafts.comp when the launch has occluder lists.
#version 460
#extension GL_GOOGLE_include_directive : require
#extension GL_KHR_shader_subgroup_ballot : require
#include "common/rsim.glsl"
#include "common/visibility_lists.glsl"
#include "rsim/shared/form_factor.h"
layout(local_size_x = RSIM_TILE_EDGE, local_size_y = RSIM_TILE_EDGE) in;
layout(push_constant) uniform Push { VisibilityPush pc; };

GpuTriangle tri(uint k) { return TriangleRefs(pc.triangles).t[k]; }

void main() {
    uint col = pc.colBegin + gl_GlobalInvocationID.x;
    uint row = pc.rowBegin + gl_GlobalInvocationID.y;
    // No early return: every invocation of the subgroup takes part in the ballot.
    bool facing = row < pc.rowEnd && col < pc.colEnd && col != row && (col > row || pc.mirror == RSIM_K_FULL_ROWS);
    if (facing) {
        uint i = min(row, col), j = max(row, col);
        GpuTriangle gi = tri(i), gj = tri(j);
        facing = rsimCanFace(rsimTri(gi), gi.normal.xyz, rsimTri(gj), gj.normal.xyz);
    }
    uvec4 ballot = subgroupBallot(facing);
    uint count = subgroupBallotBitCount(ballot);
    if (count == 0u) return;
    FacingListRef list = FacingListRef(pc.facingList);
    uint base = 0u;
    if (subgroupElect()) {
        base = atomicAdd(list.header.count, count);
        if (list.header.tileListMax != 0u)
            UintRefs(list.header.tiles).v[gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x] = RSIM_TILE_FACING;
    }
    base = subgroupBroadcastFirst(base);
    if (facing) list.pairs[base + subgroupBallotExclusiveBitCount(ballot)] = rsimLaunchPairIndex(pc, row, col);
}
