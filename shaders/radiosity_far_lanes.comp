// SPDX-License-Identifier: MIT
// The far gather of radiosity_far.comp with poses as lanes: for a batch whose history is in pose
// lanes (rsimLaneHistoryIndex), each row of RSIM_LANES invocations is one receiver i and
// RSIM_LANES poses. A pair's K, delay and coefficients are the same for every pose, so a row
// computes them for RSIM_LANES sources at once, one per lane, and leaves them in shared memory;
// then every lane gathers its own pose from each of those sources in turn, reading, per step, one
// contiguous run of the source's history (the RSIM_LANES poses of one (j, t)). A workgroup is
// RECEIVERS consecutive receivers (y) by SLICES slices of the sources (z); the receivers of a slice
// take the same sources at the same time, and being neighbours (Morton order) their delays to a
// source differ little, so their history reads share cache lines. Workgroup z of the dispatch
// picks the block of RSIM_LANES poses. K stored as segments (kformat.h): a workgroup's receivers
// lie in one tile of 32 rows (RECEIVERS divides 32), and its batches are 32 of the tile's segments
// instead of 32 consecutive sources; each lane's source is then kept beside its pair.
#version 460
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#include "common/rsim.glsl"
#include "common/kread.glsl"
#include "rsim/shared/transport.h"
layout(constant_id = RSIM_SPEC_LANES_RECEIVERS) const uint RECEIVERS = 8u;
layout(constant_id = RSIM_SPEC_LANES_SLICES) const uint SLICES = 2u;
// Sources gathered per loop trip (1 to MAX_PER_TRIP).
layout(constant_id = RSIM_SPEC_RADIOSITY_UNROLL) const uint PER_TRIP = 4u;
const uint MAX_PER_TRIP = 8u;
layout(local_size_x = RSIM_LANES, local_size_y_id = RSIM_SPEC_LANES_RECEIVERS,
       local_size_z_id = RSIM_SPEC_LANES_SLICES) in;
layout(push_constant) uniform Push { RadiosityFarPush pc; };

const uint ROWS = RECEIVERS * SLICES;

// Per row (receiver, slice) and lane: the coefficients (B, Z) of the pair with source j0 + lane,
// its delay (bits) and 1 when it is gathered (0: K = 0, near, or too late for the block); two
// sets, so that one barrier per batch of sources suffices. At the end, set 0 holds the slices'
// partial sums.
shared vec4 pairs[2][ROWS][RSIM_LANES];
// As segments: the source of each lane's pair, in the same two sets.
shared uint sources[2][KLAYOUT == RSIM_K_LAYOUT_DENSE ? 1u : ROWS][RSIM_LANES];
// Per row, bit s: the batch's source s is gathered; three sets, so that one is cleared while
// another is filled and the third read (bitwise or: the same bits in any order).
shared uint gathered[3][ROWS];
#include "common/kread_table.glsl"

void main() {
    uint lane = gl_LocalInvocationID.x, slice = gl_LocalInvocationID.z;
    uint row = slice * RECEIVERS + gl_LocalInvocationID.y;
    rsimLoadKTable(row * RSIM_LANES + lane, ROWS * RSIM_LANES);
    if (lane == 0u) gathered[0][row] = 0u;
    barrier();
    uint i = pc.k.rowBegin + gl_WorkGroupID.x * RECEIVERS + gl_LocalInvocationID.y;
    uint pose = gl_WorkGroupID.z * RSIM_LANES + lane;
    bool isActive = i < pc.k.rowEnd;
    TransportTriRefs tris = TransportTriRefs(pc.tris);
    Vec2Refs hist = Vec2Refs(pc.history);
    vec2 acc[RSIM_TIME_BLOCK];
    for (uint q = 0u; q < RSIM_TIME_BLOCK; ++q) acc[q] = vec2(0.0);
    // Nothing can arrive before a block that ends at or before the shortest far delay (the same
    // for the whole workgroup, as the barriers below need).
    if (pc.t0 + pc.steps > pc.nearBelow) {
        vec4 me = tris.t[isActive ? i : pc.k.rowBegin].centroidArea;
        uint rows = pc.k.rowEnd - pc.k.rowBegin, col = i - pc.k.rowBegin;
        uint last = pc.t0 + pc.steps - 1u;
        // The sources to go through: every column (dense), or the segments of the workgroup's tile.
        uint tiles = (rows + RSIM_K_SEGMENT_ROWS - 1u) / RSIM_K_SEGMENT_ROWS;
        uint tile = gl_WorkGroupID.x * RECEIVERS / RSIM_K_SEGMENT_ROWS;
        uint begin = KLAYOUT == RSIM_K_LAYOUT_DENSE ? 0u : rsimKTileStart(pc.k.segments, tile);
        uint end = KLAYOUT == RSIM_K_LAYOUT_DENSE ? pc.n : rsimKTileStart(pc.k.segments, tile + 1u);
        uint batches = (end - begin + RSIM_LANES - 1u) / RSIM_LANES;
        // Every row runs the same number of trips (the barrier); slices past the end find no source.
        uint trips = (batches + SLICES - 1u) / SLICES;
        // rsimLaneHistoryIndex split in two: this lane's pose block and lane here, each source's
        // (j, t) below.
        uint poseBase = (gl_WorkGroupID.z * pc.n * pc.timesteps) * RSIM_LANES + lane;
        for (uint b = 0u; b < trips; ++b) {
            uint j0 = begin + (b * SLICES + slice) * RSIM_LANES;
            uint j = j0 + lane; // dense: the source; as segments: the segment
            vec4 mine = vec4(0.0);
            if (isActive && j < end) {
                float k;
                if (KLAYOUT == RSIM_K_LAYOUT_DENSE) {
                    k = loadK(j * rows + col);
                } else {
                    uint v = rsimKSegmentValue(rsimKSegmentWord(pc.k.segments, tiles, j, 2u),
                                               rsimKSegmentWord(pc.k.segments, tiles, j, 1u), col % RSIM_K_SEGMENT_ROWS);
                    j = rsimKSegmentWord(pc.k.segments, tiles, j, 0u);
                    k = v != ~0u ? loadK(v) : 0.0;
                }
                if (k != 0.0) {
                    vec4 cj = tris.t[j].centroidArea;
                    uint tau = rsimDelaySteps(me.xyz, cj.xyz, pc.invCdtSq);
                    if (!rsimIsNearDelay(tau, pc.nearBelow) && tau <= last)
                        mine = vec4(rsimGatherCoefficients(k, me.w, cj.w, tris.t[j].extra.x), uintBitsToFloat(tau), 1.0);
                }
            }
            pairs[b & 1u][row][lane] = mine;
            if (KLAYOUT != RSIM_K_LAYOUT_DENSE) sources[b & 1u][row][lane] = j;
            if (mine.w != 0.0) atomicOr(gathered[b % 3u][row], 1u << lane);
            // The set of batch b + 1, last read in batch b - 2: every lane is past that.
            if (lane == 0u) gathered[(b + 1u) % 3u][row] = 0u;
            barrier();
            // Only the sources that are gathered, in order (the same for the whole row), PER_TRIP
            // per trip so that their history runs are all requested before their sums (four: 17%
            // faster than one, docs/benchmarks.md, "Pose lanes"); the trip's last sources may
            // repeat its first at coefficient 0.
            for (uint left = gathered[b % 3u][row]; left != 0u;) {
                uint at[MAX_PER_TRIP], first[MAX_PER_TRIP];
                vec2 f[MAX_PER_TRIP];
                bool whole = pc.steps == RSIM_TIME_BLOCK;
                uint s0 = findLSB(left);
                [[unroll]] for (uint u = 0u; u < PER_TRIP; ++u) {
                    bool some = left != 0u;
                    uint s = some ? findLSB(left) : s0;
                    left &= left - 1u;
                    vec4 pair = pairs[b & 1u][row][s];
                    f[u] = some ? pair.xy : vec2(0.0);
                    uint tau = floatBitsToUint(pair.z);
                    // Step q reads time t0 + q - tau (>= 0 from q = tau - t0 on); unsigned
                    // wrap-around keeps `at + q * RSIM_LANES` right for those q.
                    uint src = KLAYOUT == RSIM_K_LAYOUT_DENSE ? j0 + s : sources[b & 1u][row][s];
                    at[u] = poseBase + (src * pc.timesteps + pc.t0 - tau) * RSIM_LANES;
                    first[u] = tau > pc.t0 ? tau - pc.t0 : 0u;
                    whole = whole && first[u] == 0u;
                }
                if (whole) {
                    [[unroll]] for (uint q = 0u; q < RSIM_TIME_BLOCK; ++q) {
                        vec2 h[MAX_PER_TRIP];
                        [[unroll]] for (uint u = 0u; u < PER_TRIP; ++u) h[u] = hist.v[at[u] + q * RSIM_LANES];
                        [[unroll]] for (uint u = 0u; u < PER_TRIP; ++u) acc[q] += f[u] * h[u];
                    }
                } else {
                    for (uint q = 0u; q < RSIM_TIME_BLOCK; ++q)
                        [[unroll]] for (uint u = 0u; u < PER_TRIP; ++u)
                            if (q >= first[u] && q < pc.steps) acc[q] += f[u] * hist.v[at[u] + q * RSIM_LANES];
                }
            }
        }
    }
    // Sum the slices, one step at a time (after the last batch's reads of `pairs`).
    barrier();
    for (uint q = 0u; q < RSIM_TIME_BLOCK; ++q) {
        pairs[0][row][lane].xy = acc[q];
        barrier();
        if (slice == 0u && isActive && q < pc.steps) {
            vec2 sum = pairs[0][row][lane].xy;
            for (uint s = 1u; s < SLICES; ++s) sum += pairs[0][s * RECEIVERS + gl_LocalInvocationID.y][lane].xy;
            Vec2Refs(pc.farSums).v[(q * pc.n + i) * pc.poses + pose] = sum;
        }
        barrier();
    }
}
