// SPDX-License-Identifier: MIT
// The occluder lists of one visibility launch's tiles (tile_shaft.h; the layout in gpu_layout.h,
// FacingListHeader): one invocation per tile that facing_pairs.comp marked, which builds the
// tile's shaft from its two blocks of triangles and lists every triangle of the scene that may
// meet it, by a traversal of rsim's own BVH (the one of the clear pairs' query, shaft.h), the
// triangles larger than the blocks' mean first. A tile with more than tileListMax is marked
// RSIM_TILE_LONG, and its rays are traced.
#version 460
#extension GL_GOOGLE_include_directive : require
#include "common/rsim.glsl"
#include "common/visibility_lists.glsl"
#include "rsim/shared/tile_shaft.h"
layout(local_size_x = RSIM_WG_LINEAR) in;
layout(push_constant) uniform Push { VisibilityPush pc; };
layout(buffer_reference, std430, buffer_reference_align = 16) readonly buffer ShaftNodeRefs { RayBvhNode n[]; };

GpuTriangle tri(uint k) { return TriangleRefs(pc.triangles).t[k]; }

void main() {
    FacingListRef list = FacingListRef(pc.facingList);
    const uint E = RSIM_TILE_EDGE;
    uint colEnd = min(pc.colEnd, pc.n);
    uint tilesX = rsimTilesAcross(pc);
    uint tile = gl_GlobalInvocationID.x;
    if (tile >= tilesX * rsimTilesDown(pc)) return;
    UintRefs tiles = UintRefs(list.header.tiles);
    if (tiles.v[tile] != RSIM_TILE_FACING) return;
    uint r0 = pc.rowBegin + (tile / tilesX) * E, r1 = min(r0 + E, pc.rowEnd);
    uint c0 = pc.colBegin + (tile % tilesX) * E, c1 = min(c0 + E, colEnd);
    uint rows = r1 - r0, count = rows + (c1 - c0);

    // Three passes over the blocks' triangles: where they are, how far they reach across the
    // axis between them, then the planes' offsets.
    TileBlocks b = rsimTileBlocksEmpty();
    float blockArea = 0.0;
    for (uint k = 0u; k < count; ++k) {
        GpuTriangle g = tri(k < rows ? r0 + k : c0 + k - rows);
        b = rsimTileBlocksAdd(b, rsimTri(g), g.normal.xyz, k < rows);
        blockArea += g.v0Area.w;
    }
    // Listed triangles larger than the blocks' mean come first: a large one blocks more of the
    // tile's segments, and a blocked ray stops at its first hit.
    float large = blockArea / float(count);
    mat3 frame = rsimTileFrame(b);
    vec3 centre = 0.5 * (b.lo + b.hi);
    TileExtents e = rsimTileExtentsEmpty();
    for (uint k = 0u; k < count; ++k) {
        Tri t = rsimTri(tri(k < rows ? r0 + k : c0 + k - rows));
        e = rsimTileExtentsAdd(e, frame, centre, t.v0, k < rows);
        e = rsimTileExtentsAdd(e, frame, centre, t.v1, k < rows);
        e = rsimTileExtentsAdd(e, frame, centre, t.v2, k < rows);
    }
    TileShaft s = rsimTileShaftBegin(b, frame, e, pc.shaftEps);
    for (uint k = 0u; k < count; ++k) {
        Tri t = rsimTri(tri(k < rows ? r0 + k : c0 + k - rows));
        s = rsimTileShaftAdd(s, t.v0);
        s = rsimTileShaftAdd(s, t.v1);
        s = rsimTileShaftAdd(s, t.v2);
    }

    // The traversal of ShaftBvh::forEachTileCandidate (src/accel/shaft_bvh.h) over its four-wide
    // collapse (RayBvhNode, src/accel/ray_bvh.h: the same leaves): each child whose box the shaft
    // does not exclude waits on the stack, the first child on top.
    uint limit = list.header.tileListMax;
    uint out0 = list.header.tileCapacity + tile * limit;
    uint found = 0u, first = 0u; // the large ones from the list's start, the others from its end
    uint stack[RSIM_RAY_BVH_STACK + 1u];
    uint top = 0u, ref = 0u;
    for (;;) {
        if ((ref & RSIM_RAY_BVH_LEAF) == 0u) {
            RayBvhNode node = ShaftNodeRefs(pc.shaftNodes).n[ref];
            for (uint c = 4u; c-- > 0u;) {
                uint r = node.child[c];
                if (r != RSIM_RAY_BVH_EMPTY &&
                    !rsimTileShaftExcludesBox(s, rsimRayBvhLo(node, c), rsimRayBvhHi(node, c), pc.shaftEps))
                    stack[top++] = r;
            }
        } else {
            uint p0 = rsimRayBvhLeafFirst(ref), p1 = p0 + rsimRayBvhLeafCount(ref);
            for (uint p = p0; p < p1; ++p) {
                uint t = UintRefs(pc.shaftPrims).v[p];
                if (rsimTileShaftExcludes(s, rsimTri(tri(t)), pc.shaftEps)) continue;
                if (found == limit) {
                    tiles.v[tile] = RSIM_TILE_LONG;
                    rsimCount(pc.stats, 6u, tile, 1u);
                    return;
                }
                if (tri(t).v0Area.w >= large) tiles.v[out0 + first++] = t;
                else tiles.v[out0 + limit - 1u - (found - first)] = t;
                ++found;
            }
        }
        if (top == 0u) break;
        ref = stack[--top];
    }
    // The others, at the end of the list's room, joined to the large ones: those outside the
    // list's final extent fill the gap after the large ones.
    for (uint p = max(found, limit - (found - first)), to = first; p < limit; ++p)
        tiles.v[out0 + to++] = tiles.v[out0 + p];
    tiles.v[tile] = found;
    rsimCount(pc.stats, 5u, tile, 1u);
    rsimCount(pc.stats, 7u, tile, found);
}
