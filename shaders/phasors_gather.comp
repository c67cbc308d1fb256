// SPDX-License-Identifier: MIT
// One Jacobi iteration of the phasors transport (MODEL.md §11) for the receivers of one K chunk:
// B^(k+1)_i = E^_i + rho_i sum_j F_ij exp(-j Omega r_ij) B^(k)_j for FREQS frequencies x POSES
// poses of the columns (include/rsim/shared/phasors.h, PhasorPush). The 32 invocations of a row
// are 32 consecutive receivers, so a source's K elements are read together; the rows (y) are
// slices of the sources, summed at the end. The workgroup stages RSIM_PHASOR_STEP sources'
// centroids and column values in shared memory at a time, so that a non-zero pair waits for no
// load but its K element's. Each sum runs over its sources in order. A frozen column (iterated 0)
// keeps its value. K stored as segments (kformat.h): the workgroup's 32 receivers are one tile, and
// it stages the tile's segments (their sources, masks and first values) instead of every source.
#version 460
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#include "common/rsim.glsl"
#include "common/kread.glsl"
#include "rsim/shared/phasors.h"
layout(constant_id = RSIM_SPEC_PHASOR_FREQS) const uint FREQS = 1u;
layout(constant_id = RSIM_SPEC_PHASOR_POSES) const uint POSES = 1u;
layout(constant_id = RSIM_SPEC_PHASOR_SLICES) const uint SLICES = 8u;
// Sources whose K elements an invocation loads at once; SLICES x AHEAD divides RSIM_PHASOR_STEP.
layout(constant_id = RSIM_SPEC_PHASOR_AHEAD) const uint AHEAD = 4u;
layout(local_size_x = RSIM_PHASOR_RECEIVERS, local_size_y_id = RSIM_SPEC_PHASOR_SLICES) in;
layout(push_constant) uniform Push { PhasorPush pc; };

const uint STEP = RSIM_PHASOR_STEP;
const uint INVOCATIONS = RSIM_PHASOR_RECEIVERS * SLICES;
shared vec2 partial[RSIM_PHASOR_RECEIVERS * SLICES];
shared vec4 stagedTris[STEP];                 // centroid, area
shared vec2 stagedX[STEP * FREQS * POSES];    // [source][f][pose]
shared uvec2 stagedSegments[KLAYOUT == RSIM_K_LAYOUT_DENSE ? 1u : STEP]; // as segments: mask, first value
#include "common/kread_table.glsl"

void main() {
    uint lane = gl_LocalInvocationID.x, slice = gl_LocalInvocationID.y;
    rsimLoadKTable(slice * RSIM_PHASOR_RECEIVERS + lane, RSIM_PHASOR_RECEIVERS * SLICES);
    uint rows = pc.k.rowEnd - pc.k.rowBegin;
    uint col = gl_WorkGroupID.x * RSIM_PHASOR_RECEIVERS + lane;
    bool isActive = col < rows;
    uint i = pc.k.rowBegin + (isActive ? col : 0u);
    uint pose0 = gl_WorkGroupID.y * POSES;
    uint frequencies = pc.columns / pc.poses;
    Vec4Refs tris = Vec4Refs(pc.tris);
    Vec2Refs x = Vec2Refs(pc.x);
    // A frequency is live while one of the invocation's columns of it is iterated: a frozen
    // frequency costs no trigonometry (its columns keep their values).
    float omega[FREQS];
    bool live[FREQS];
    bool anyLive = false;
    [[unroll]] for (uint f = 0u; f < FREQS; ++f) {
        uint fr = pc.freq0 + f;
        omega[f] = fr < frequencies ? FloatRefs(pc.omegas).v[fr] : 0.0;
        live[f] = false;
        for (uint u = 0u; fr < frequencies && u < POSES && pose0 + u < pc.poses; ++u)
            live[f] = live[f] || UintRefs(pc.iterated).v[fr * pc.poses + pose0 + u] != 0u;
        anyLive = anyLive || live[f];
    }
    vec2 acc[FREQS * POSES];
    [[unroll]] for (uint a = 0u; a < FREQS * POSES; ++a) acc[a] = vec2(0.0);
    vec3 ci = tris.v[i].xyz;
    // Per step of STEP sources: the workgroup stages them, then each slice sums its sources of the
    // step in order, AHEAD of them at a time (their K elements are loaded together). anyLive and so
    // the barriers are the same for the whole workgroup.
    uint local = slice * RSIM_PHASOR_RECEIVERS + lane;
    // The sources to go through: every column (dense), or the segments of the workgroup's tile.
    uint tiles = (rows + RSIM_K_SEGMENT_ROWS - 1u) / RSIM_K_SEGMENT_ROWS;
    uint begin = KLAYOUT == RSIM_K_LAYOUT_DENSE ? 0u : rsimKTileStart(pc.k.segments, gl_WorkGroupID.x);
    uint end = KLAYOUT == RSIM_K_LAYOUT_DENSE ? pc.n : rsimKTileStart(pc.k.segments, gl_WorkGroupID.x + 1u);
    for (uint j0 = begin; anyLive && j0 < end; j0 += STEP) {
        barrier(); // the previous step's staged sources have been read
        for (uint e = local; e < STEP; e += INVOCATIONS) {
            bool some = j0 + e < end;
            uint j = min(j0 + e, end); // dense: the source; as segments: the segment
            if (KLAYOUT != RSIM_K_LAYOUT_DENSE) {
                stagedSegments[e] = some ? uvec2(rsimKSegmentWord(pc.k.segments, tiles, j, 1u),
                                                 rsimKSegmentWord(pc.k.segments, tiles, j, 2u))
                                         : uvec2(0u);
                j = some ? rsimKSegmentWord(pc.k.segments, tiles, j, 0u) : 0u;
            }
            stagedTris[e] = some ? tris.v[j] : vec4(0.0);
            [[unroll]] for (uint f = 0u; f < FREQS; ++f)
                [[unroll]] for (uint u = 0u; u < POSES; ++u) {
                    uint fr = pc.freq0 + f;
                    stagedX[(e * FREQS + f) * POSES + u] = some && fr < frequencies && pose0 + u < pc.poses
                                                               ? x.v[j * pc.columns + fr * pc.poses + pose0 + u]
                                                               : vec2(0.0);
                }
        }
        barrier();
        for (uint b = slice; b < STEP; b += SLICES * AHEAD) {
            float ks[AHEAD];
            [[unroll]] for (uint t = 0u; t < AHEAD; ++t) {
                uint j = j0 + b + t * SLICES;
                if (KLAYOUT == RSIM_K_LAYOUT_DENSE) {
                    ks[t] = isActive && j < end ? loadK(j * rows + col) : 0.0;
                } else {
                    uvec2 seg = stagedSegments[b + t * SLICES]; // mask 0 past the tile's end
                    uint v = rsimKSegmentValue(seg.y, seg.x, lane);
                    ks[t] = isActive && v != ~0u ? loadK(v) : 0.0;
                }
            }
            [[unroll]] for (uint t = 0u; t < AHEAD; ++t) {
                float k = ks[t];
                if (k == 0.0) continue;
                uint s = b + t * SLICES;
                vec4 cj = stagedTris[s];
                float F = rsimFormFactor(k, cj.w);
                float r = rsimPairDelay(ci, cj.xyz, pc.invCdtSq, pc.rounded != 0u);
                [[unroll]] for (uint f = 0u; f < FREQS; ++f) {
                    if (!live[f]) continue;
                    vec2 coef = rsimPhasorCoefficient(F, omega[f], r);
                    if (omega[f] == 0.0) { // the steady state's coefficient is real: half the products
                        [[unroll]] for (uint u = 0u; u < POSES; ++u)
                            acc[f * POSES + u] += coef.x * stagedX[(s * FREQS + f) * POSES + u];
                        continue;
                    }
                    [[unroll]] for (uint u = 0u; u < POSES; ++u)
                        acc[f * POSES + u] += rsimComplexMul(coef, stagedX[(s * FREQS + f) * POSES + u]);
                }
            }
        }
    }
    // The slices' sums, one accumulator at a time; slice 0 writes the new value.
    float rho = FloatRefs(pc.rho).v[i];
    [[unroll]] for (uint a = 0u; a < FREQS * POSES; ++a) {
        partial[slice * RSIM_PHASOR_RECEIVERS + lane] = acc[a];
        barrier();
        uint f = a / POSES, u = a % POSES;
        if (slice == 0u && isActive && pc.freq0 + f < frequencies && pose0 + u < pc.poses) {
            vec2 sum = partial[lane];
            for (uint s = 1u; s < SLICES; ++s) sum += partial[s * RSIM_PHASOR_RECEIVERS + lane];
            uint c = (pc.freq0 + f) * pc.poses + pose0 + u;
            uint at = i * pc.columns + c;
            vec2 old = x.v[at];
            vec2 v = UintRefs(pc.iterated).v[c] != 0u ? rsimPhasorUpdate(Vec2Refs(pc.sources).v[at], rho, sum) : old;
            Vec2Refs(pc.next).v[at] = v;
            atomicMax(UintRefs(pc.changes).v[c], floatBitsToUint(length(v - old)));
        }
        barrier();
    }
}
