// SPDX-License-Identifier: MIT
// Buffer records, push constants and workgroup sizes of the Vulkan backend, declared once for
// C++ and GLSL. Shaders reach buffers through 64-bit device addresses in push constants
// (GL_EXT_buffer_reference); only the scene that rays trace (the TLAS, or RayBvhHeader) uses a
// descriptor. Only vec4, uvec4, float, uint and uint64_t appear, 64-bit fields first, so std430
// and C++ layouts agree; the C++ side checks sizes with static_assert.
#ifndef RSIM_SHARED_GPU_LAYOUT_H
#define RSIM_SHARED_GPU_LAYOUT_H

#include "glsl_compat.h"

RSIM_SHARED_BEGIN

// Workgroup sizes.
RSIM_CONST uint RSIM_WG_LINEAR = 64u;         // 1-D passes (triangles, pixels)
RSIM_CONST uint RSIM_WG_ENCODE = 256u;        // K encoding: one 32-bit word per invocation
RSIM_CONST uint RSIM_WG_PAIRS_X = 64u;        // visibility: columns j of one row i
RSIM_CONST uint RSIM_WG_RADIOSITY_X = 32u;    // radiosity: receivers i (one warp)
RSIM_CONST uint RSIM_MAX_RADIOSITY_SPLIT = 32u; // radiosity: upper bound of the j-slices

// Timesteps per block of the transport (both backends). A pair whose delay is at least this
// long only reads sources from before the block, so the whole block gathers from it at once:
// K is read and tau computed once per block, and the history is read as a contiguous run.
// Pairs with shorter delays ("near pairs") are gathered step by step from a precomputed list.
RSIM_CONST uint RSIM_TIME_BLOCK = 8u;

// Specialization constant ids: the far gather's source slices per workgroup and sources per loop
// trip (radiosity_far.comp), and the K storage class (RSIM_K_*) of the shaders that read K.
RSIM_CONST uint RSIM_SPEC_RADIOSITY_SPLIT = 0u;
RSIM_CONST uint RSIM_SPEC_RADIOSITY_UNROLL = 1u;
RSIM_CONST uint RSIM_SPEC_K_FORMAT = 2u;
RSIM_CONST uint RSIM_SPEC_RADIOSITY_POSES = 3u;
// Poses one invocation of the far gather serves (radiosity_far.comp), at most.
RSIM_CONST uint RSIM_MAX_RADIOSITY_POSES = 4u;
// The pose-lane far gather (radiosity_far_lanes.comp): receivers and source slices per workgroup.
RSIM_CONST uint RSIM_SPEC_LANES_RECEIVERS = 4u;
RSIM_CONST uint RSIM_SPEC_LANES_SLICES = 5u;
// The near steps (radiosity_near.comp): invocations per receiver and pose, each summing every
// RSIM_SPEC_NEAR_SPLIT-th of its near pairs (1, 2, 4 or 8: divides RSIM_WG_LINEAR).
RSIM_CONST uint RSIM_SPEC_NEAR_SPLIT = 6u;
// How the shaders that read K find its elements: dense, or as segments (kformat.h; RSIM_K_LAYOUT_*).
RSIM_CONST uint RSIM_SPEC_K_LAYOUT = 11u;
RSIM_CONST uint RSIM_K_LAYOUT_DENSE = 0u;
RSIM_CONST uint RSIM_K_LAYOUT_SEGMENTS = 1u;
// Whether the far gather over segments stages them in shared memory (radiosity_far.comp; 0 or 1).
RSIM_CONST uint RSIM_SPEC_RADIOSITY_STAGED = 12u;

// Poses of a transport batch (MODEL.md §9) share K and one B/Z history buffer: each pose's
// plain [n][T] one after the other, entry (i, t) of pose p at rsimHistoryIndex (poseStride =
// n T; a pose-fastest interleave was measured slower, docs/benchmarks.md at c8397db, "Kernel
// variants measured on the way"). The passes that read one pose's history get the address of
// its own [n][T]. `poses` counts the batch's poses padded to a multiple of what one far-gather
// invocation serves (the padding poses have no sources and stay zero).

// Descriptor set 0 of every ray-tracing shader: the TLAS, or on the "bvh" ray path the storage
// buffer of a RayBvhHeader.
RSIM_CONST uint RSIM_BINDING_TLAS = 0u;

// The "bvh" ray path's scene (shaders/common/trace_bvh.glsl): rsim's own BVH, four wide
// (RayBvhNode[], src/accel/ray_bvh.h; boxes widened by the host so that no ray the triangle test
// accepts slips past one), and its leaves' triangles in leaf order, three vec4 each: v0 with the
// triangle's internal index in w (uint bits), v1, v2.
struct RayBvhHeader {
    uint64_t nodes;
    uint64_t triangles;
};

// A node of the bvh ray path's BVH: the boxes of up to four children, lane c for child c, so
// that one 128-byte load gives a ray four slab tests, and what each child is, a reference: an
// inner node's index, a leaf (RSIM_RAY_BVH_LEAF | count << 28 | its first triangle in leaf
// order, 1 to 7 triangles), or RSIM_RAY_BVH_EMPTY (no child). Node 0 is the root. Measured
// against nodes of two children (docs/benchmarks.md, "Visibility settings chosen by measurement").
struct RayBvhNode {
    vec4 loX;
    vec4 loY;
    vec4 loZ;
    vec4 hiX;
    vec4 hiY;
    vec4 hiZ;
    uvec4 child;  // the children's references
    uvec4 unused; // pads the node to 128 bytes, one cache line
};
RSIM_CONST uint RSIM_RAY_BVH_LEAF = 0x80000000u;
RSIM_CONST uint RSIM_RAY_BVH_EMPTY = 0xffffffffu;
RSIM_FN uint rsimRayBvhLeaf(uint first, uint count) { return RSIM_RAY_BVH_LEAF | (count << 28u) | first; }
RSIM_FN uint rsimRayBvhLeafFirst(uint ref) { return ref & 0x0fffffffu; }
RSIM_FN uint rsimRayBvhLeafCount(uint ref) { return (ref >> 28u) & 7u; }
// Lane c's box: child c's corners.
RSIM_FN vec3 rsimRayBvhLo(RayBvhNode n, uint c) { return vec3(n.loX[c], n.loY[c], n.loZ[c]); }
RSIM_FN vec3 rsimRayBvhHi(RayBvhNode n, uint c) { return vec3(n.hiX[c], n.hiY[c], n.hiZ[c]); }

// 1 / d for a ray's slab tests, a zero component made tiny (0 * inf would give NaN; a tiny one
// gives the same verdict).
RSIM_FN vec3 rsimRayBvhInverse(vec3 d) {
    return 1.0f / mix(d, mix(vec3(1e-30f), vec3(-1e-30f), lessThan(d, vec3(0.0f))), lessThan(abs(d), vec3(1e-30f)));
}
// Where a segment [tmin, tmax] enters and leaves each of a node's four boxes (entry > exit: it
// misses that box), from inv = rsimRayBvhInverse(d) and oinv = origin inv: each slab is
// lo inv - oinv in one fused multiply-add, whose rounding the boxes' widening covers
// (rayBvhWiden, src/accel/shaft_bvh.h).
struct RayBvhSlabs {
    vec4 entry;
    vec4 exit;
};
RSIM_FN RayBvhSlabs rsimRayBvhSlabs(RayBvhNode node, vec3 inv, vec3 oinv, float tmin, float tmax) {
    vec4 ax = fma(node.loX, vec4(inv.x), vec4(-oinv.x)), bx = fma(node.hiX, vec4(inv.x), vec4(-oinv.x));
    vec4 ay = fma(node.loY, vec4(inv.y), vec4(-oinv.y)), by = fma(node.hiY, vec4(inv.y), vec4(-oinv.y));
    vec4 az = fma(node.loZ, vec4(inv.z), vec4(-oinv.z)), bz = fma(node.hiZ, vec4(inv.z), vec4(-oinv.z));
    RayBvhSlabs r;
    r.entry = max(max(min(ax, bx), min(ay, by)), max(min(az, bz), vec4(tmin)));
    r.exit = min(min(max(ax, bx), max(ay, by)), min(max(az, bz), vec4(tmax)));
    return r;
}
// The deepest a RayBvhNode tree is (the collapse never deepens the binary tree it starts from,
// shaft.h's RSIM_SHAFT_BVH_MAX_DEPTH), and a ray traversal's stack: at most three children
// waiting per level (a shaft query, which pushes the four children of the deepest node, one
// more).
RSIM_CONST uint RSIM_RAY_BVH_MAX_DEPTH = 32u;
RSIM_CONST uint RSIM_RAY_BVH_STACK = 3u * RSIM_RAY_BVH_MAX_DEPTH;

RSIM_FN uint rsimHistoryIndex(uint i, uint t, uint T, uint pose, uint poseStride) {
    return pose * poseStride + i * T + t;
}

// Pose lanes: a batch of a multiple of RSIM_LANES poses may run its transport in another layout,
// blocks of RSIM_LANES poses side by side, [poses / RSIM_LANES][n][T][RSIM_LANES], so that the
// far gather's lanes are poses of one pair (radiosity_far_lanes.comp) and read one contiguous
// run per step. The passes after the transport read a pose's history out of it into a plain
// vec2[n][T] first (history_from_lanes.comp).
RSIM_CONST uint RSIM_LANES = 32u;
RSIM_FN uint rsimLaneHistoryIndex(uint i, uint t, uint T, uint n, uint pose) {
    return ((pose / RSIM_LANES * n + i) * T + t) * RSIM_LANES + pose % RSIM_LANES;
}
// Its inverse: the pose and the entry i T + t of that pose's plain [n][T] at index `at`.
RSIM_FN uvec2 rsimLaneHistoryEntry(uint at, uint T, uint n) {
    uint row = at / RSIM_LANES / T; // pose / RSIM_LANES * n + i
    return uvec2(row / n * RSIM_LANES + at % RSIM_LANES, row % n * T + at / RSIM_LANES % T);
}

// One triangle for the ray passes (internal order).
struct GpuTriangle {
    vec4 v0Area;    // v0, area
    vec4 v1Rho;     // v1, reflectance
    vec4 v2;        // v2, unused
    vec4 normal;    // unit normal (front side), unused
    uvec4 meta;     // stable id, internal index of the two-sided twin (0xffffffff: none), material index
                    // (PreparedScene::materialModels), unused
    uvec4 edges;    // the triangles across edges v0v1, v1v2, v2v0 (RSIM_NO_NEIGHBOUR: none, or more
                    // than one: geometry/edge_neighbours.h), unused
};
RSIM_CONST uint RSIM_NO_NEIGHBOUR = 0xffffffffu;

// One triangle for the transport and distance passes.
struct GpuTransportTri {
    vec4 centroidArea;   // centroid, area A_i
    vec4 source;         // rho_i, E amount rho_i Irr_i, tL_i (steps), R amount w_i
    vec4 sensorDirDelay; // unit direction sensor -> centroid, tS_i (steps)
    vec4 extra;          // rho_i A_i, unused x3
};

// Visibility pass: pairs (i, j), i in [rowBegin, rowEnd), j in [colBegin, n), j > i. First
// shaders/facing_pairs.comp lists the pairs that can face each other (facingList). Phase
// RSIM_VIS_PAIRS then casts S/2 samples per side of every listed pair, one per invocation, and stores K; a near pair (more
// samples, form_factor.h) instead appends its partial sums to the near list when it has room.
// Phase RSIM_VIS_NEAR casts the listed pairs' other samples in RSIM_NEAR_PARTS parts, one part
// per invocation (the parts of a pair side by side in a warp), and stores each part's sums; a
// launch's near pairs are too few to fill the device one per invocation, and each would cast
// (nearFactor - 1) x S rays one after the other. Phase RSIM_VIS_NEAR_FINISH adds a pair's parts
// in order and stores K. A near pair finished in phase 0 (list full) adds the same parts in the
// same order, so both give the same sums.
//
// Blocker rounds (docs/model-choices.md, "A pair's blockers"), when the near list's header names
// their area (the host's choice, which rsimBlockerRounds in form_factor.h bounds): on the traced
// pairs phase RSIM_VIS_PAIRS traces only the first of a pair's S/2 + S/2 rays, tests the others
// against the triangle that blocked it and the triangles across its edges, and keeps what is
// left in the pair's PairRays; each round RSIM_VIS_ROUND_FROM_0/1 takes the pairs with rays left
// (an active list, compacted by active_pairs.comp), does the same for the first ray left,
// RSIM_BLOCKER_ROUNDS times; RSIM_VIS_REST_FROM_0/1 traces what is still left, and
// RSIM_VIS_PAIRS_FINISH adds each pair's open rays in the order castSides adds them and stores
// K (or lists a near pair as above). The rays are the same and so are their verdicts, but for
// rays that graze a blocker's edge (the segment test's tolerance); the rounds keep every
// invocation of a launch tracing.
RSIM_CONST uint RSIM_VIS_PAIRS = 0u;
RSIM_CONST uint RSIM_VIS_NEAR = 1u;
RSIM_CONST uint RSIM_VIS_NEAR_FINISH = 2u;
RSIM_CONST uint RSIM_VIS_ROUND_FROM_0 = 3u; // reads active list 0, appends to list 1
RSIM_CONST uint RSIM_VIS_ROUND_FROM_1 = 4u;
RSIM_CONST uint RSIM_VIS_REST_FROM_0 = 5u;
RSIM_CONST uint RSIM_VIS_REST_FROM_1 = 6u;
RSIM_CONST uint RSIM_VIS_PAIRS_FINISH = 7u;
// shaders/near_launch.comp only: the launches that read the list at VisibilityPush::facingList
// (FacingListHeader::launch and computeLaunch), sized by the pairs it holds.
RSIM_CONST uint RSIM_VIS_FACING_LAUNCH = 8u;
RSIM_CONST uint RSIM_NEAR_PARTS = 16u;
// Rounds after the first, before the rest is traced: 4 (8 until 2026-11-28, chosen for industry at
// 129k; at today's code 4 is faster on every scene measured, docs/benchmarks.md, "Visibility
// settings chosen by measurement").
RSIM_CONST uint RSIM_BLOCKER_ROUNDS = 4u;
// A traced pair's rays between the rounds: bit b < S/2 is side i's sample b, bit S/2 + b side
// j's sample b; the pair itself is its slot's in the launch's traced pairs. A ray is never both
// open and pending, so both all ones (RSIM_PAIR_DONE) marks a pair finished in phase
// RSIM_VIS_PAIRS.
struct PairRays {
    uint open;    // rays found unoccluded
    uint pending; // rays with no verdict yet
};
RSIM_CONST uint RSIM_PAIR_DONE = 0xffffffffu;
RSIM_FN bool rsimPairDone(PairRays p) { return (p.open & p.pending) == RSIM_PAIR_DONE; }
// The rounds' area: this header, PairRays[capacity] (slot: the pair's index in the launch's
// traced pairs), then two active lists uint[capacity] of slots.
struct BlockerRoundsHeader {
    uvec4 launch;        // the indirect launch (x, y, z) of the next round's ray pass, and
    uvec4 compactLaunch; // of its compaction (active_pairs.comp), written by near_launch.comp
    uint active0;        // entries of active list 0
    uint active1;        // and of list 1
    uint capacity;       // pairs the area holds
    uint pad0;
};
RSIM_CONST uint RSIM_BLOCKER_ROUNDS_HEADER_BYTES = 48u;
RSIM_FN uint64_t rsimBlockerRoundsBytes(uint capacity) {
    return uint64_t(RSIM_BLOCKER_ROUNDS_HEADER_BYTES) + uint64_t(capacity) * uint64_t(8u + 2u * 4u);
}
RSIM_FN uint64_t rsimActiveListOffset(uint capacity, uint list) {
    return uint64_t(RSIM_BLOCKER_ROUNDS_HEADER_BYTES) + uint64_t(capacity) * uint64_t(8u + list * 4u);
}
struct NearVisibilityPair {
    uint i;         // the element's row
    uint j;         // and column
    float sumFromI; // unoccluded weights of the first S/2 samples of each side of the pair
                    // (min(i, j), max(i, j))
    float sumFromJ;
};
// The near list's header, followed by NearVisibilityPair[nearCapacity], then the parts' sums,
// vec2[nearCapacity][RSIM_NEAR_PARTS] (from side i, from side j).
struct NearVisibilityListHeader {
    uint count;        // pairs appended (may exceed the capacity: those were finished in phase 0)
    uint groupWidth;   // invocations per unit of a launch's x: 1 on a ray-tracing pipeline, the
                       // workgroup's width in the compute build
    uint64_t rounds;   // the blocker rounds' area (BlockerRoundsHeader); 0 when they are off
    uvec4 partsLaunch;  // the indirect launch (x, y, z) of RSIM_VIS_NEAR, written by
                        // shaders/near_launch.comp once phase 0 has listed the pairs
    uvec4 finishLaunch; // and of RSIM_VIS_NEAR_FINISH
};
RSIM_CONST uint RSIM_NEAR_LIST_HEADER_BYTES = 48u;
// Where a near list of `capacity` pairs keeps its parts' sums, and its whole size in bytes.
RSIM_FN uint64_t rsimNearPartsOffset(uint capacity) {
    return uint64_t(RSIM_NEAR_LIST_HEADER_BYTES) + uint64_t(16u) * uint64_t(capacity);
}
RSIM_FN uint64_t rsimNearListBytes(uint capacity) {
    return rsimNearPartsOffset(capacity) + uint64_t(capacity) * uint64_t(RSIM_NEAR_PARTS * 8u);
}
// The facing pairs of one visibility launch, listed by shaders/facing_pairs.comp so that the
// ray phase's invocations all cast rays: the header, then uint (rsimLaunchPairIndex)[pairs of
// the launch], tile by tile (RSIM_TILE_EDGE x RSIM_TILE_EDGE pairs, tile_shaft.h) in the launch's
// order within each subgroup.
//
// With occluder lists (tileListMax > 0), `tiles` holds uint info[tileCapacity], then uint
// lists[tileCapacity][tileListMax]. Tile (ty, tx) of the launch, ty = (row - rowBegin) / E and
// tx = (column - colBegin) / E for E = RSIM_TILE_EDGE, is info[ty * tilesX + tx] with
// tilesX = ceil((min(colEnd, n) - colBegin) / E). The host fills info with RSIM_TILE_NONE; facing_pairs.comp marks
// the tiles with a facing pair RSIM_TILE_FACING; tile_shafts.comp replaces each mark by the
// length of the tile's list of possible occluders, or RSIM_TILE_LONG when it has more than
// tileListMax. visibility_listed.comp then computes the pairs of listed tiles and appends the
// others to `traced` (a header and pairs like this list's), which the ray pass takes instead.
// One word a pair, not (row, column): the lists are allocated before the first launch, at a
// cost the driver's allocation puts on the phase's critical path (docs/benchmarks.md, "NVIDIA
// driver costs").
//
// The passes that take one pair of a list per invocation are launched indirectly, as large as the
// list (`launch` for the ray pass, whose unit is NearVisibilityListHeader::groupWidth invocations;
// `computeLaunch` for the compute passes, in workgroups of RSIM_WG_PAIRS_X), written by
// shaders/near_launch.comp once the list is complete: a launch of the rows x columns a list may
// hold ran its empty workgroups too.
struct FacingListHeader {
    uint count;
    uint tileListMax;  // 0: no occluder lists, every ray traced
    uint tileCapacity; // tiles the area holds
    uint pad0;
    uint64_t tiles;    // the tiles' area; 0 without lists
    uint64_t traced;   // the pairs left to the rays (a FacingListHeader and pairs); 0 without lists
    uvec4 launch;        // (x, y, z) of the ray pass over this list (RSIM_VIS_PAIRS, RSIM_VIS_PAIRS_FINISH)
    uvec4 computeLaunch; // of the compute passes over it (visibility_listed.comp, active_pairs.comp)
};
RSIM_CONST uint RSIM_FACING_LIST_HEADER_BYTES = 64u;
// The bytes of a facing list (or of the pairs left to the rays) of `capacity` pairs.
RSIM_FN uint64_t rsimFacingListBytes(uint capacity) {
    return uint64_t(RSIM_FACING_LIST_HEADER_BYTES) + uint64_t(capacity) * uint64_t(4u);
}
RSIM_CONST uint RSIM_TILE_EDGE = 8u;          // a tile's rows, and its columns
RSIM_CONST uint RSIM_TILE_NONE = 0xfffffffdu;   // info: the tile has no facing pair
RSIM_CONST uint RSIM_TILE_FACING = 0xfffffffeu; // info: the tile has a facing pair
RSIM_CONST uint RSIM_TILE_LONG = 0xffffffffu;   // info: more possible occluders than tileListMax
struct VisibilityPush {
    uint64_t triangles;  // GpuTriangle[n]
    uint64_t kChunks;    // uint64_t[chunks]: device address of each K row chunk (fp32)
    uint64_t stats;      // counters: candidate pairs, non-zero pairs, rays cast, clear pairs
    uint64_t nearList;   // NearVisibilityListHeader, then NearVisibilityPair[nearCapacity], then the parts; 0: none
    uint n;
    uint samples;
    uint seed;
    float rayEps;
    uint rowBegin;
    uint rowEnd;
    uint colBegin;
    uint rowsPerChunk;   // K chunk c holds rows [c R, (c+1) R), stored [j][i - c R]
    uint kStorage;       // RSIM_K_FP32, or RSIM_K_FP16 (converted in-band)
    uint mirror;         // RSIM_K_UPPER, RSIM_K_MIRRORED or RSIM_K_FULL_ROWS
    uint estimator;      // RSIM_K_ESTIMATOR_* (form_factor.h)
    uint nearFactor;     // near pairs take nearFactor x S samples (form_factor.h)
    uint nearCapacity;   // entries of the near list
    uint phase;          // RSIM_VIS_PAIRS, RSIM_VIS_NEAR or RSIM_VIS_NEAR_FINISH
    uint64_t shaftNodes; // RayBvhNode[]: the shaft queries' BVH four wide (src/accel/ray_bvh.h)
    uint64_t shaftPrims; // uint[n]: the triangles the BVH's leaves list
    float shaftEps;      // touching tolerance of the shafts, m
    uint clearPairs;     // 1: pairs nothing can occlude take rsimClearPairValue, no rays
    uint pad0;
    uint colEnd;         // the launch's columns are [colBegin, colEnd) (n: to the last)
    uint64_t facingList; // FacingListHeader, then the launch's facing pairs (RSIM_VIS_PAIRS reads them)
};

// The tiles of a visibility launch (FacingListHeader): how many across its columns and down its
// rows, and the index of the tile that holds its pair (row, col).
RSIM_FN uint rsimTilesAcross(VisibilityPush p) {
    return (min(p.colEnd, p.n) - p.colBegin + RSIM_TILE_EDGE - 1u) / RSIM_TILE_EDGE;
}
RSIM_FN uint rsimTilesDown(VisibilityPush p) { return (p.rowEnd - p.rowBegin + RSIM_TILE_EDGE - 1u) / RSIM_TILE_EDGE; }
// A pair of the launch as one word, and back: rows x columns of a launch stay within
// visibilityPairsPerLaunch (at most 2^24) or one row of n columns.
RSIM_FN uint rsimLaunchWidth(VisibilityPush p) { return min(p.colEnd, p.n) - p.colBegin; }
RSIM_FN uint rsimLaunchPairIndex(VisibilityPush p, uint row, uint col) {
    return (row - p.rowBegin) * rsimLaunchWidth(p) + (col - p.colBegin);
}
RSIM_FN uvec2 rsimLaunchPair(VisibilityPush p, uint index) {
    uint width = rsimLaunchWidth(p);
    return uvec2(p.rowBegin + index / width, p.colBegin + index % width);
}
RSIM_FN uint rsimTileOf(VisibilityPush p, uint row, uint col) {
    return ((row - p.rowBegin) / RSIM_TILE_EDGE) * rsimTilesAcross(p) + (col - p.colBegin) / RSIM_TILE_EDGE;
}

// What a visibility launch stores (VisibilityPush::mirror). Every pair's value is computed in one
// order, (i, j) with i < j, so all three give the same K.
RSIM_CONST uint RSIM_K_UPPER = 0u;     // K_ij of i < j only (the host mirrors it: K assembled there)
RSIM_CONST uint RSIM_K_MIRRORED = 1u;  // K_ij and K_ji from one computation (K in place on one device)
RSIM_CONST uint RSIM_K_FULL_ROWS = 2u; // every K_ij of the rows, j < i computed again (K computed
                                       // where it lives, chunk by chunk: no mirror anywhere)

// One chunk of K on a device, as the passes that read K see it.
struct KChunkRef {
    uint64_t data;  // K rows [rowBegin, rowEnd), stored [j][i - rowBegin], in the K format; as
                    // segments, their values
    uint64_t table; // the chunk's table (LUT formats; 0 otherwise)
    uint64_t segments; // as segments: the tiles' starts (tiles + 1 words), then the segments'
                       // words (RSIM_K_SEGMENT_WORDS each); 0 when dense
    uint rowBegin;
    uint rowEnd;
};

// Form-factor diagnostics of K: row sums sum_j min(1, K_ij A_j) of the rows of one chunk, in two
// phases. RSIM_ROW_SUMS_BLOCKS: invocation (row i, workgroup y = b) sums columns
// [b columns, (b + 1) columns) into partials[b n + i]: a row's n terms one after the other, one
// invocation a row, leave too few warps per SM to hide the memory's latency. RSIM_ROW_SUMS_TOTAL:
// rowSums[i] = the row's partials added in block order, so the result does not depend on the
// device.
struct FormFactorPush {
    uint64_t triangles;  // GpuTriangle[n]
    KChunkRef k;
    uint64_t rowSums;    // float[n]
    uint64_t stats;      // counters: clamped form factors
    uint64_t partials;   // float[blocks][n], blocks = ceil(n / columns)
    uint n;
    uint columns;        // of a block
    uint phase;          // RSIM_ROW_SUMS_BLOCKS or RSIM_ROW_SUMS_TOTAL
    uint pad0;
};
RSIM_CONST uint RSIM_ROW_SUMS_BLOCKS = 0u;
RSIM_CONST uint RSIM_ROW_SUMS_TOTAL = 1u;

// Encoding one fp32 K chunk in a logarithmic LUT format on the device (shaders/kencode.comp).
// Pass 0 finds the range of the chunk's non-zero values; the host builds the table and code
// boundaries from it (logTable in src/k/k_encode.h); pass 1 writes words [begin, end).
struct KEncodePush {
    uint64_t values;   // float[count]: the chunk in fp32
    uint64_t words;    // uint[]: the encoded chunk (pass 1)
    uint64_t table;    // float[L]: the chunk's table (pass 1)
    uint64_t bounds;   // float[L]: the chunk's code boundaries, +inf padded (pass 1)
    uint64_t stats;    // uint[4]: bits of the smallest and largest non-zero value (pass 0), of the largest |error| (pass 1)
    uint64_t partials; // float[]: sum of squared errors of each workgroup of the chunk (pass 1)
    uint begin;        // first word of this launch
    uint end;          // one past the last word of this launch
    uint count;        // elements of the chunk
    uint pass;         // 0: range, 1: encode
};

// K stored as segments made on the device from a dense chunk (shaders/kcompact.comp,
// src/k/vulkan_k_compact.h; the layout is kformat.h's). The workgroups of passes 0 and 2 are
// (block of RSIM_WG_COMPACT columns, tile of RSIM_K_SEGMENT_ROWS rows). Pass 0 counts each
// block's segments and value slots; pass 1 (one workgroup a tile) turns a tile's block counts
// into their offsets in the tile and the tile's totals; the host adds up the tiles and
// allocates; pass 2 writes the tile starts, the segments and their values.
RSIM_CONST uint RSIM_WG_COMPACT = 256u;
RSIM_CONST uint RSIM_K_COMPACT_COUNT = 0u;
RSIM_CONST uint RSIM_K_COMPACT_SCAN = 1u;
RSIM_CONST uint RSIM_K_COMPACT_WRITE = 2u;
struct KCompactPush {
    uint64_t dense;      // uint[]: the dense chunk (element (r, j) at j rows + r, packed)
    uint64_t blockSums;  // uvec2[tiles * blocks]: segments, value slots of (tile, block); offsets after pass 1
    uint64_t tileTotals; // uvec2[tiles]: segments, value slots of each tile (pass 1)
    uint64_t tileBases;  // uvec2[tiles]: the first segment and value slot of each tile (pass 2)
    uint64_t chunkOut;   // uint[]: tiles + 1 tile starts, the segments, the values (pass 2)
    uint rows;           // of the chunk
    uint n;              // columns
    uint blocks;         // of RSIM_WG_COMPACT columns
    uint tiles;          // of the chunk
    uint tileBegin;      // the launch's first tile (a launch covers at most 65,535)
    uint pass;           // RSIM_K_COMPACT_*
    uint segments;       // of the chunk (pass 2)
    uint valuesAt;       // word of `out` where the values start (pass 2)
};

// Direct pass: triangles [begin, end).
struct DirectPush {
    uint64_t triangles;  // GpuTriangle[n]
    uint64_t results;      // vec2[n]: irradiance Irr_i, importance w_i
    uint64_t stats;      // uint64_t[1]: shadow rays cast
    uint64_t lightSensor; // LightSensorRecord
    uint n;
    uint samples;        // S_d
    uint seed;
    float rayEps;
    uint begin;
    uint end;
    uint pad0;
    uint pad1;
};

// Light and sensor as the shaders read them (PointLight and PinholeSensor flattened).
struct LightSensorRecord {
    vec4 lightPosCos;     // position, cos(half angle)
    vec4 lightDirFalloff; // direction, falloff exponent
    vec4 lightIntensity;  // I = P / 4 pi, unused x3
    vec4 sensorPosTanH;   // position, tan(fov_h / 2)
    vec4 sensorFwdTanV;   // forward, tan(fov_v / 2)
    vec4 sensorRight;     // right, unused
    vec4 sensorUp;        // up, unused
    uvec4 image;          // width, height, unused x2
    vec4 sensorIntrinsics; // fx, fy, cx, cy (fx = 0: no lens model)
    vec4 sensorDistortion; // k1, k2, p1, p2
    vec4 sensorDistortionK3Image; // k3, width, height, unused
    uint64_t lightProfile;        // the light's angular profile (PointLight::profile), 0: none
    uint64_t unused;
    uvec4 lightProfileShape;      // PointLight::profileShape
    vec4 lightProfileRange;       // PointLight::profileRange
    vec4 lightProfileRight;       // PointLight::profileRight, unused
};

// A pair gathered step by step (delay < RSIM_TIME_BLOCK), from the receiver's list.
struct NearPair {
    uint source;  // j
    uint delay;   // tau_ij
    float coefB;  // F_ij
    float coefZ;  // rho_j A_j F_ji (the gather divides by A_i)
};

// Far gather of one time block [t0, t0 + steps) for the receivers of one K chunk: partial sums
// of the pairs with delay >= RSIM_TIME_BLOCK.
struct RadiosityFarPush {
    uint64_t tris;       // GpuTransportTri[n] (pose 0's: only the geometry is read)
    KChunkRef k;
    uint64_t history;    // vec2: (B, Z) per triangle, timestep and pose (rsimHistoryIndex)
    uint64_t farSums;    // vec2[RSIM_TIME_BLOCK][n][poses]
    uint n;
    uint timesteps;
    uint t0;
    uint steps;
    float invCdtSq;
    uint poses;
    uint poseStride;     // n T
    uint nearBelow;      // delays below this are near (rsimIsNearDelay); the far sums' step q of
                         // this dispatch is that of the address in farSums
};

// Near gather and the new values of one timestep t = t0 + q, receivers [0, n).
struct RadiosityNearPush {
    uint64_t tris;        // GpuTransportTri[poses][n]
    uint64_t history;     // vec2, rsimHistoryIndex
    uint64_t farSums;     // vec2[RSIM_TIME_BLOCK][n][poses]
    uint64_t nearOffsets; // uint[n + 1]: receiver i's near pairs are [offsets[i], offsets[i+1])
    uint64_t nearPairs;   // NearPair[]
    uint64_t pulse;       // float[P]
    uint n;
    uint timesteps;
    uint t;
    uint q;
    uint pulseLength;
    uint poses;
    uint poseStride;      // n T
    uint lanes;           // 1: the history in pose lanes (rsimLaneHistoryIndex), 0: rsimHistoryIndex
};

// One pose's history out of the pose lanes' (rsimLaneHistoryIndex) into a plain vec2[n][T], one
// invocation per entry of the destination.
struct HistoryFromLanesPush {
    uint64_t source;
    uint64_t destination;
    uint n;
    uint timesteps;
    uint pose;
    uint pad0;
};

// Near-pair lists from K: pass 0 counts the near pairs of each receiver in each block of
// columns, pass 1 writes them where the host placed each (receiver, block) from the counts (a
// receiver's blocks in order, so its pairs stay in column order). A row's n columns one after
// the other, one invocation a row, leave too few warps per SM to hide the memory's latency.
struct NearListPush {
    uint64_t tris;        // GpuTransportTri[n]
    KChunkRef k;
    uint64_t nearOffsets; // uint[n][blocks]: pass 0 counts, pass 1 where each (row, block) begins
    uint64_t nearPairs;   // pass 1: NearPair[]
    uint n;
    uint pass;
    float invCdtSq;
    uint nearBelow;       // delays below this are near (rsimIsNearDelay)
    uint columns;         // invocation (row i, workgroup y = b) scans columns [b columns, (b + 1) columns)
    uint blocks;          // ceil(n / columns)
};

// Distance pass over triangles [begin, end): path length (steps) and sensor distance.
struct DistancePush {
    uint64_t tris;       // GpuTransportTri[n] of this pose
    uint64_t history;    // vec2[n][T] of this pose
    uint64_t pulse;      // float[P]
    uint64_t results;      // vec4[n]: path steps (or -1 none, -2 cut off), d_i (m), 0, 0
    vec4 omegaLo;        // AMCW w_k = 2 pi f_k dt, k < 4
    vec4 omegaHi;        // k = 4..7
    vec4 lightToSensor;  // a = p_S - p_L, c dt (m)
    uint n;
    uint timesteps;
    uint pulseLength;
    uint mode;           // 0 pulsed, 1 amcw
    uint frequencies;
    uint begin;
    uint end;
    uint pad0;
};

// Total sensor signal of one pose (MODEL.md §5): s_fwd(t) = sum_i A_i (B_i * R_i)(t) and
// s_adj(t) = sum_i A_i (E_i * Z_i)(t), partial sums over the triangles of one slice (workgroup
// y) per invocation and t (shaders/sensor_signals.comp); the host adds the slices.
struct SignalPush {
    uint64_t tris;       // GpuTransportTri[n] of this pose
    uint64_t history;    // vec2[n][T] of this pose
    uint64_t pulse;      // float[P]
    uint64_t results;    // vec2[slices][T]: s_fwd, s_adj of triangles i = slice mod slices
    uint n;
    uint timesteps;
    uint pulseLength;
    uint begin;          // timesteps [begin, end) of this launch
    uint end;
    uint slices;
    uint pad0;
    uint pad1;
};

// Primary-ray pass: pixels [begin, end) of the sensor image.
struct PrimaryPush {
    uint64_t triangles;   // GpuTriangle[n]
    uint64_t lightSensor; // LightSensorRecord
    uint64_t results;       // vec4[pixels][raysPerPixel]: hit triangle (as float, -1 none), hit t, direct amount,
                            // direct delay (steps)
    uint raysPerPixel;      // SimConfig::primaryRaysPerPixel (rsimPrimaryRayDirection)
    uint seed;              // of the rays' points in their pixel
    float rayEps;
    float invCdt;         // 1 / (c dt), steps per metre
    uint begin;
    uint end;
};

// The `paths` transport (MODEL.md §10.2, shaders/paths.glsl): one invocation traces all the camera
// paths of one pixel of [begin, end), writing its signal at (p - first) T.
struct PathsPush {
    uint64_t triangles;   // GpuTriangle[n] (meta.z: the triangle's material)
    uint64_t lightSensor; // LightSensorRecord
    uint64_t materials;   // MaterialBsdf[materials]
    uint64_t pulse;       // float[P]
    uint64_t signal;      // float[pixels of the chunk][T], zeroed: the pixel's signal
    uint64_t direct;      // float[pixels of the chunk][T], zeroed: its first vertices' deposits
    uint64_t hits;        // vec2[pixels of the chunk]: the centre ray's triangle (int bits, -1 none), t
    uint64_t stats;       // counter 0: the rays cast (rsimCount slots)
    float rayEps;
    float cdt;            // c dt, metres per step
    uint timesteps;
    uint pulseLength;
    uint perPixel;
    uint boxFilter;
    uint maxBounces;      // 0: no cap
    uint seed;
    uint first;           // the chunk's first pixel
    uint begin;
    uint end;
    uint pad;
};

// Pixel-signal pass: pixels [begin, end).
struct PixelPush {
    uint64_t tris;        // GpuTransportTri[n] of this pose
    uint64_t history;     // vec2[n][T] of this pose
    uint64_t pulse;       // float[P]
    uint64_t hits;        // vec4[pixels] from the primary pass
    uint64_t results;     // vec4[pixels]: depth (m, NaN none), amplitude, direct-only depth, noisy depth
    uint64_t lightSensor; // LightSensorRecord
    vec4 omegaLo;
    vec4 omegaHi;
    float invCdt;
    float cdt;
    uint timesteps;
    uint pulseLength;
    uint mode;
    uint frequencies;
    uint begin;
    uint end;
    uint64_t outputs;     // PixelOutputs, or 0: depth and amplitude only
    uint gateStart;       // RSIM_MODE_GATED: first bin of the gates
    uint gates;           // and their number
};

// What the pixel pass writes besides depth and amplitude (images.h5, MODEL.md §8).
struct PixelOutputs {
    uint64_t amcw;      // float[pixels][frequencies][taps + 3]: Re P, Im P, taps, taps' phase; 0: none
    uint64_t transient; // float[roi.w][roi.h][bins] as [y][x][bin]; 0: none
    uint64_t gates;     // float[pixels][gates]: the gated camera's gate sums (rsimGateSums); 0: none
    uint64_t directTransient; // as transient, of the direct signal alone; 0: none
    uint64_t unused;    // keeps the vectors below 16-byte aligned
    uint raysPerPixel;  // primary hit records per pixel: the centre's, then (when > 1) the samples'
                        // whose signals the pixel averages; 0 stands for 1
    uint pad;
    uint taps;
    uint waveform;       // RSIM_WAVEFORM_*
    uint transientStart; // first bin
    uint transientBins;
    uvec4 roi;           // x0, y0, w, h of the transient's pixels
    vec4 noise;          // pulsed mode's sensor model, or 0 per unit: electrons per unit signal and of
                         // ambient per bin (on the axis), read noise per bin, seed (as bits)
};

// The formula probe (shaders/formula_probe.comp, tests only): shared functions evaluated by the
// GPU on a table of inputs, to compare with their C++ build bit for bit (formula_probe.h).
struct FormulaProbeRecord {
    vec4 a;
    vec4 b;
    vec4 c;
    vec4 d;
    vec4 e;
    vec4 f;
    vec4 na; // unit normal of triangle (a, b, c)
    vec4 nb; // unit normal of triangle (d, e, f)
    uvec4 u;
};
struct FormulaProbeOutput {
    vec4 o0;
    vec4 o1;
    vec4 o2;
    vec4 o3;
    vec4 o4;
    uvec4 flags;
};
struct FormulaProbePush {
    uint64_t inputs;  // FormulaProbeRecord[count]
    uint64_t outputs; // FormulaProbeOutput[count]
    uint count;
    uint pad0;
};

RSIM_SHARED_END

#ifdef __cplusplus
static_assert(sizeof(rsim::shared::FormulaProbeRecord) == 144);
static_assert(sizeof(rsim::shared::FormulaProbeOutput) == 96);
static_assert(sizeof(rsim::shared::FormulaProbePush) == 24);
static_assert(sizeof(rsim::shared::KChunkRef) == 32);
static_assert(sizeof(rsim::shared::GpuTriangle) == 96);
static_assert(sizeof(rsim::shared::RayBvhHeader) == 16);
static_assert(sizeof(rsim::shared::RayBvhNode) == 128);
static_assert(sizeof(rsim::shared::GpuTransportTri) == 64);
static_assert(sizeof(rsim::shared::VisibilityPush) == 128);
static_assert(sizeof(rsim::shared::NearVisibilityPair) == 16);
static_assert(sizeof(rsim::shared::PairRays) == 8);
static_assert(sizeof(rsim::shared::BlockerRoundsHeader) == rsim::shared::RSIM_BLOCKER_ROUNDS_HEADER_BYTES);
static_assert(sizeof(rsim::shared::NearVisibilityListHeader) == rsim::shared::RSIM_NEAR_LIST_HEADER_BYTES);
static_assert(sizeof(rsim::shared::FacingListHeader) == rsim::shared::RSIM_FACING_LIST_HEADER_BYTES);
static_assert(sizeof(rsim::shared::DirectPush) == 64);
static_assert(sizeof(rsim::shared::FormFactorPush) == 80);
static_assert(sizeof(rsim::shared::KEncodePush) == 64);
static_assert(sizeof(rsim::shared::KCompactPush) == 72);
static_assert(sizeof(rsim::shared::LightSensorRecord) == 240);
static_assert(sizeof(rsim::shared::NearPair) == 16);
static_assert(sizeof(rsim::shared::RadiosityFarPush) == 88);
static_assert(sizeof(rsim::shared::RadiosityNearPush) == 80);
static_assert(sizeof(rsim::shared::NearListPush) == 80);
static_assert(sizeof(rsim::shared::DistancePush) == 112);
static_assert(sizeof(rsim::shared::PrimaryPush) == 48);
static_assert(sizeof(rsim::shared::SignalPush) == 64);
static_assert(sizeof(rsim::shared::PixelPush) == 128);
static_assert(sizeof(rsim::shared::PixelOutputs) == 96);
// Vulkan guarantees 128 bytes of push constants on every device.
static_assert(sizeof(rsim::shared::PixelPush) <= 128 && sizeof(rsim::shared::DistancePush) <= 128);
#endif

#endif
