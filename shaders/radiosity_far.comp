// SPDX-License-Identifier: MIT
// Far gather of one time block (MODEL.md §5, time-blocked as RSIM_TIME_BLOCK explains): for
// receivers i of one K chunk and every source j with tau_ij >= pc.nearBelow,
//   farB_i(t0 + q) = sum_j F_ij B_j(t0 + q - tau_ij),
//   farZ_i(t0 + q) = sum_j rho_j A_j F_ji Z_j(t0 + q - tau_ij),   q < steps,
// whose sources all lie before the block, for POSES poses of the batch per invocation
// (workgroup z picks which). A workgroup is 32 receivers (x, one warp) by SPLIT slices of the
// sources (y): a warp reads K[j][i..i+31] as one 128-byte line and computes tau and the
// coefficients once per block for all its poses, then reads each pose's history of the source
// as a short contiguous run (each pose's history is its own [n][T], gpu_layout.h). K stored as
// segments (kformat.h): a workgroup's 32 receivers are one tile, and its slices go through the
// tile's segments instead of every source. With STAGED (tuning.radiosity_staged) the workgroup
// stages 32 x SPLIT segments at a time in shared memory with their sources' records, one segment
// an invocation, so that a slice's segment waits for one load (its K value) instead of three
// dependent ones; each slice still takes its segments in order (e = slice, slice + SPLIT, ...),
// the same sums as unstaged.
#version 460
#extension GL_GOOGLE_include_directive : require
#include "common/rsim.glsl"
#include "common/kread.glsl"
#include "rsim/shared/transport.h"
layout(constant_id = RSIM_SPEC_RADIOSITY_SPLIT) const uint SPLIT = 8u;
layout(constant_id = RSIM_SPEC_RADIOSITY_UNROLL) const uint UNROLL = 1u;
layout(constant_id = RSIM_SPEC_RADIOSITY_POSES) const uint POSES = 1u; // 1, 2 or 4
layout(constant_id = RSIM_SPEC_RADIOSITY_STAGED) const uint STAGED = 0u;
layout(local_size_x = RSIM_WG_RADIOSITY_X, local_size_y_id = RSIM_SPEC_RADIOSITY_SPLIT) in;
layout(push_constant) uniform Push { RadiosityFarPush pc; };

#include "common/kread_table.glsl"

shared vec2 partial[RSIM_MAX_RADIOSITY_SPLIT][RSIM_WG_RADIOSITY_X];
// As segments with STAGED: a stage of the tile's segments (mask, first value), their sources and
// the sources' centroid and area and rho A.
const uint STAGE = KLAYOUT == RSIM_K_LAYOUT_DENSE || STAGED == 0u ? 1u : RSIM_WG_RADIOSITY_X * SPLIT;
shared uvec2 stagedSegments[STAGE];
shared uint stagedSources[STAGE];
shared vec4 stagedTris[STAGE];
shared float stagedRhoA[STAGE];

// Step q of the block gathers each pose's history entry `at` (rsimHistoryIndex) with coefficients f.
#define GATHER_STEP(q, at)                                                   \
    {                                                                        \
        accA[q].xy += f * hist.v[at];                                        \
        if (POSES >= 2u) accA[q].zw += f * hist.v[(at) + pc.poseStride];     \
        if (POSES == 4u) {                                                   \
            accB[q].xy += f * hist.v[(at) + 2u * pc.poseStride];             \
            accB[q].zw += f * hist.v[(at) + 3u * pc.poseStride];             \
        }                                                                    \
    }

// Pair (i, src) of K element kv, the source's centroid and area cjv and rho A rhoAv: its steps of
// the block.
#define GATHER_PAIR(kv, cjv, rhoAv, src)                                                             \
    {                                                                                                \
        uint tau = rsimDelaySteps(me.xyz, (cjv).xyz, pc.invCdtSq);                                   \
        if (!rsimIsNearDelay(tau, pc.nearBelow) && tau <= last) {                                    \
            vec2 f = rsimGatherCoefficients(kv, me.w, (cjv).w, rhoAv);                               \
            /* Step q reads time t0 + q - tau (>= 0 from q = tau - t0 on). Each pose's history is   \
               its own [n][T] (rsimHistoryIndex), so every pose's run is read as a single pose's. */ \
            uint first = tau > pc.t0 ? tau - pc.t0 : 0u;                                             \
            uint at = pose0 * pc.poseStride + (src) * pc.timesteps + pc.t0 - tau;                    \
            if (first == 0u && pc.steps == RSIM_TIME_BLOCK) {                                        \
                /* the common case: a whole block whose every step has its source */                 \
                for (uint q = 0u; q < RSIM_TIME_BLOCK; ++q) GATHER_STEP(q, at + q);                  \
            } else {                                                                                 \
                for (uint q = 0u; q < RSIM_TIME_BLOCK; ++q)                                          \
                    if (q >= first && q < pc.steps) GATHER_STEP(q, at + q);                          \
            }                                                                                        \
        }                                                                                            \
    }

void main() {
    uint lane = gl_LocalInvocationID.x, slice = gl_LocalInvocationID.y;
    rsimLoadKTable(slice * RSIM_WG_RADIOSITY_X + lane, SPLIT * RSIM_WG_RADIOSITY_X);
    uint i = pc.k.rowBegin + gl_WorkGroupID.x * RSIM_WG_RADIOSITY_X + lane;
    uint pose0 = gl_WorkGroupID.z * POSES; // pc.poses is a multiple of POSES
    bool isActive = i < pc.k.rowEnd;
    TransportTriRefs tris = TransportTriRefs(pc.tris);
    Vec2Refs hist = Vec2Refs(pc.history);
    // Per step: poses 0, 1 in accA (B, Z, B, Z), poses 2, 3 in accB; a single pose in accA.xy.
    // Indexed by the step only, so that both stay in registers once the step loop is unrolled.
    vec4 accA[RSIM_TIME_BLOCK], accB[RSIM_TIME_BLOCK];
    for (uint q = 0u; q < RSIM_TIME_BLOCK; ++q) {
        accA[q] = vec4(0.0);
        accB[q] = vec4(0.0);
    }
    // Nothing can arrive before a block that ends at or before the shortest far delay (the same
    // for the whole workgroup, and so are its barriers).
    bool arrives = pc.t0 + pc.steps > pc.nearBelow;
    vec4 me = tris.t[isActive ? i : pc.k.rowBegin].centroidArea;
    uint rows = pc.k.rowEnd - pc.k.rowBegin, col = i - pc.k.rowBegin;
    uint last = pc.t0 + pc.steps - 1u;
    bool staged = KLAYOUT != RSIM_K_LAYOUT_DENSE && STAGED != 0u;
    // The sources to go through: every column (dense), or the segments of the workgroup's tile of
    // 32 receivers (as segments: kformat.h), whose columns are the sources.
    uint tiles = (rows + RSIM_K_SEGMENT_ROWS - 1u) / RSIM_K_SEGMENT_ROWS;
    uint begin = KLAYOUT == RSIM_K_LAYOUT_DENSE ? 0u : rsimKTileStart(pc.k.segments, gl_WorkGroupID.x);
    uint end = KLAYOUT == RSIM_K_LAYOUT_DENSE ? pc.n : rsimKTileStart(pc.k.segments, gl_WorkGroupID.x + 1u);
    if (!staged && arrives && isActive) {
        for (uint e0 = begin + slice; e0 < end; e0 += SPLIT * UNROLL) {
            float k[UNROLL];
            vec4 cj[UNROLL];
            float rhoA[UNROLL];
            uint src[UNROLL];
            for (uint u = 0u; u < UNROLL; ++u) {
                uint e = min(e0 + u * SPLIT, end - 1u);
                bool some = e0 + u * SPLIT < end;
                if (KLAYOUT == RSIM_K_LAYOUT_DENSE) {
                    src[u] = e;
                    k[u] = some ? loadK(e * rows + col) : 0.0;
                } else {
                    src[u] = rsimKSegmentWord(pc.k.segments, tiles, e, 0u);
                    uint v = rsimKSegmentValue(rsimKSegmentWord(pc.k.segments, tiles, e, 2u),
                                               rsimKSegmentWord(pc.k.segments, tiles, e, 1u), lane);
                    k[u] = some && v != ~0u ? loadK(v) : 0.0;
                }
                cj[u] = tris.t[src[u]].centroidArea;
                rhoA[u] = tris.t[src[u]].extra.x;
            }
            for (uint u = 0u; u < UNROLL; ++u)
                if (k[u] != 0.0) GATHER_PAIR(k[u], cj[u], rhoA[u], src[u]);
        }
    }
    if (staged && arrives) {
        uint local = slice * RSIM_WG_RADIOSITY_X + lane;
        for (uint s0 = begin; s0 < end; s0 += STAGE) {
            barrier(); // the previous stage has been read
            {
                bool some = s0 + local < end;
                uint e = min(s0 + local, end - 1u);
                uint src = rsimKSegmentWord(pc.k.segments, tiles, e, 0u);
                stagedSegments[local] = some ? uvec2(rsimKSegmentWord(pc.k.segments, tiles, e, 1u),
                                                     rsimKSegmentWord(pc.k.segments, tiles, e, 2u))
                                             : uvec2(0u); // mask 0: no value
                stagedSources[local] = src;
                stagedTris[local] = tris.t[src].centroidArea;
                stagedRhoA[local] = tris.t[src].extra.x;
            }
            barrier();
            uint count = min(STAGE, end - s0);
            for (uint e0 = slice; isActive && e0 < count; e0 += SPLIT * UNROLL) {
                float k[UNROLL];
                for (uint u = 0u; u < UNROLL; ++u) {
                    uvec2 seg = stagedSegments[min(e0 + u * SPLIT, STAGE - 1u)];
                    uint v = rsimKSegmentValue(seg.y, seg.x, lane);
                    k[u] = e0 + u * SPLIT < count && v != ~0u ? loadK(v) : 0.0;
                }
                for (uint u = 0u; u < UNROLL; ++u) {
                    uint e = min(e0 + u * SPLIT, STAGE - 1u);
                    if (k[u] != 0.0) GATHER_PAIR(k[u], stagedTris[e], stagedRhoA[e], stagedSources[e]);
                }
            }
        }
    }
    // Sum the slices, one step and pose at a time.
    for (uint q = 0u; q < RSIM_TIME_BLOCK; ++q)
        for (uint p = 0u; p < POSES; ++p) {
            partial[slice][lane] = p == 0u ? accA[q].xy : p == 1u ? accA[q].zw : p == 2u ? accB[q].xy : accB[q].zw;
            barrier();
            if (slice == 0u && isActive && q < pc.steps) {
                vec2 sum = partial[0][lane];
                for (uint s = 1u; s < SPLIT; ++s) sum += partial[s][lane];
                Vec2Refs(pc.farSums).v[(q * pc.n + i) * pc.poses + pose0 + p] = sum;
            }
            barrier();
        }
}
