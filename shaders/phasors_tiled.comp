// SPDX-License-Identifier: MIT
// One Jacobi iteration of the phasors transport (MODEL.md §11) for a pose group: the sums of
// phasors_gather.comp, B^(k+1)_i = E^_i + rho_i sum_j F_ij exp(-j Omega r_ij) B^(k)_j, tiled as a
// matrix product whose factors are worked out once per pair and frequency and used for every pose.
// A workgroup is 32 receivers of a K chunk (x) x RSIM_PHASOR_TILE pose lanes (y); it sums FREQS
// frequencies (from freq0) x RSIM_PHASOR_TILE * POSES poses (block z of the group's poses). An
// invocation owns receiver x's columns of poses y, y + TILE, ... Per tile of RSIM_PHASOR_TILE
// sources: each invocation works out one pair's factors into shared memory, the workgroup copies
// the sources' column values beside them, and each invocation accumulates its columns; a tile
// whose K block is all zero is skipped. Each sum runs over the sources in order; a frozen column
// (iterated 0) keeps its value, and a frequency whose columns are all frozen costs nothing. K
// stored as segments (kformat.h): the workgroup's 32 receivers are one tile, and its tiles of
// sources are RSIM_PHASOR_TILE of the tile's segments.
#version 460
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_KHR_shader_subgroup_vote : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#include "common/rsim.glsl"
#include "common/kread.glsl"
#include "rsim/shared/phasors.h"
layout(constant_id = RSIM_SPEC_PHASOR_FREQS) const uint FREQS = 1u;
layout(constant_id = RSIM_SPEC_PHASOR_POSES) const uint POSES = 1u;
layout(local_size_x = RSIM_PHASOR_RECEIVERS, local_size_y = RSIM_PHASOR_TILE) in;
layout(push_constant) uniform Push { PhasorPush pc; };

const uint TILE = RSIM_PHASOR_TILE;
const uint LANES = RSIM_PHASOR_TILE; // pose lanes: one per source of a tile
const uint INVOCATIONS = RSIM_PHASOR_RECEIVERS * LANES;
shared vec2 factors[FREQS * TILE * RSIM_PHASOR_RECEIVERS]; // [f][source][receiver]
shared vec2 values[TILE * FREQS * LANES * POSES];          // [source][f][pose of the block]
shared uint tileLive;
shared uint tileSources[TILE]; // as segments: each pose lane's source (n past the tile's end)
#include "common/kread_table.glsl"

void main() {
    uint lane = gl_LocalInvocationID.x, poseLane = gl_LocalInvocationID.y;
    uint local = poseLane * RSIM_PHASOR_RECEIVERS + lane;
    if (local == 0u) tileLive = 0u;
    barrier();
    rsimLoadKTable(local, INVOCATIONS);
    uint rows = pc.k.rowEnd - pc.k.rowBegin;
    uint col = gl_WorkGroupID.x * RSIM_PHASOR_RECEIVERS + lane;
    bool isActive = col < rows;
    uint i = pc.k.rowBegin + (isActive ? col : 0u);
    uint blockPoses = LANES * POSES;
    uint pose0 = gl_WorkGroupID.y * blockPoses;
    uint frequencies = pc.columns / pc.poses;
    Vec4Refs tris = Vec4Refs(pc.tris);
    Vec2Refs x = Vec2Refs(pc.x);
    UintRefs iterated = UintRefs(pc.iterated);
    // A frequency is live while one of the block's columns of it is iterated.
    float omega[FREQS];
    bool live[FREQS];
    bool anyLive = false;
    [[unroll]] for (uint f = 0u; f < FREQS; ++f) {
        uint fr = pc.freq0 + f;
        omega[f] = fr < frequencies ? FloatRefs(pc.omegas).v[fr] : 0.0;
        live[f] = false;
        for (uint q = 0u; fr < frequencies && q < blockPoses && pose0 + q < pc.poses; ++q)
            live[f] = live[f] || iterated.v[fr * pc.poses + pose0 + q] != 0u;
        anyLive = anyLive || live[f];
    }
    vec2 acc[FREQS * POSES];
    [[unroll]] for (uint a = 0u; a < FREQS * POSES; ++a) acc[a] = vec2(0.0);
    vec3 ci = tris.v[i].xyz;
    // The sources to go through: every column (dense), or the segments of the workgroup's tile.
    uint tiles = (rows + RSIM_K_SEGMENT_ROWS - 1u) / RSIM_K_SEGMENT_ROWS;
    uint begin = KLAYOUT == RSIM_K_LAYOUT_DENSE ? 0u : rsimKTileStart(pc.k.segments, gl_WorkGroupID.x);
    uint end = KLAYOUT == RSIM_K_LAYOUT_DENSE ? pc.n : rsimKTileStart(pc.k.segments, gl_WorkGroupID.x + 1u);
    for (uint j0 = begin; anyLive && j0 < end; j0 += TILE) {
        // The pair (receiver lane, source j0 + poseLane, or segment j0 + poseLane's): its factors
        // for the live frequencies.
        uint j = j0 + poseLane;
        float k;
        if (KLAYOUT == RSIM_K_LAYOUT_DENSE) {
            k = isActive && j < pc.n ? loadK(j * rows + col) : 0.0;
        } else {
            bool some = j < end;
            uint v = some ? rsimKSegmentValue(rsimKSegmentWord(pc.k.segments, tiles, j, 2u),
                                              rsimKSegmentWord(pc.k.segments, tiles, j, 1u), lane)
                          : ~0u;
            j = some ? rsimKSegmentWord(pc.k.segments, tiles, j, 0u) : pc.n;
            if (lane == 0u) tileSources[poseLane] = j;
            k = isActive && v != ~0u ? loadK(v) : 0.0;
        }
        vec2 factor[FREQS];
        [[unroll]] for (uint f = 0u; f < FREQS; ++f) factor[f] = vec2(0.0);
        if (k != 0.0) {
            vec4 cj = tris.v[j];
            float F = rsimFormFactor(k, cj.w);
            float r = rsimPairDelay(ci, cj.xyz, pc.invCdtSq, pc.rounded != 0u);
            [[unroll]] for (uint f = 0u; f < FREQS; ++f)
                if (live[f]) factor[f] = rsimPhasorCoefficient(F, omega[f], r);
        }
        [[unroll]] for (uint f = 0u; f < FREQS; ++f)
            factors[(f * TILE + poseLane) * RSIM_PHASOR_RECEIVERS + lane] = factor[f];
        if (subgroupAny(k != 0.0) && subgroupElect()) tileLive = 1u;
        barrier();
        bool tile = tileLive != 0u;
        if (tile) { // the tile's sources' column values
            for (uint e = local; e < TILE * FREQS * blockPoses; e += INVOCATIONS) {
                uint q = e % blockPoses, f = (e / blockPoses) % FREQS, s = e / (blockPoses * FREQS);
                uint js = KLAYOUT == RSIM_K_LAYOUT_DENSE ? j0 + s : tileSources[s], fr = pc.freq0 + f, p = pose0 + q;
                values[e] = js < pc.n && fr < frequencies && p < pc.poses ? x.v[js * pc.columns + fr * pc.poses + p] : vec2(0.0);
            }
        }
        barrier();
        if (local == 0u) tileLive = 0u; // read by every invocation before the barrier above
        if (tile) {
            [[unroll]] for (uint s = 0u; s < TILE; ++s)
                [[unroll]] for (uint f = 0u; f < FREQS; ++f) {
                    if (!live[f]) continue;
                    vec2 c = factors[(f * TILE + s) * RSIM_PHASOR_RECEIVERS + lane];
                    if (omega[f] == 0.0) { // the steady state's factor is real: half the products
                        [[unroll]] for (uint u = 0u; u < POSES; ++u)
                            acc[f * POSES + u] += c.x * values[(s * FREQS + f) * blockPoses + poseLane + LANES * u];
                        continue;
                    }
                    [[unroll]] for (uint u = 0u; u < POSES; ++u)
                        acc[f * POSES + u] += rsimComplexMul(c, values[(s * FREQS + f) * blockPoses + poseLane + LANES * u]);
                }
        }
        barrier();
    }
    // Each column's new value and change; one atomic per subgroup and column where a subgroup
    // holds one pose lane.
    float rho = FloatRefs(pc.rho).v[i];
    [[unroll]] for (uint f = 0u; f < FREQS; ++f)
        [[unroll]] for (uint u = 0u; u < POSES; ++u) {
            uint fr = pc.freq0 + f, p = pose0 + poseLane + LANES * u;
            bool mine = isActive && fr < frequencies && p < pc.poses;
            uint c = fr * pc.poses + p;
            float change = 0.0;
            if (mine) {
                uint at = i * pc.columns + c;
                vec2 old = x.v[at];
                vec2 v = iterated.v[c] != 0u ? rsimPhasorUpdate(Vec2Refs(pc.sources).v[at], rho, acc[f * POSES + u]) : old;
                Vec2Refs(pc.next).v[at] = v;
                change = length(v - old);
            }
            if (gl_SubgroupSize <= RSIM_PHASOR_RECEIVERS) {
                float most = subgroupMax(change);
                if (subgroupElect() && fr < frequencies && p < pc.poses)
                    atomicMax(UintRefs(pc.changes).v[c], floatBitsToUint(most));
            } else if (mine) {
                atomicMax(UintRefs(pc.changes).v[c], floatBitsToUint(change));
            }
        }
}
