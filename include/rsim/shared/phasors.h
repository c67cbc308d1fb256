// SPDX-License-Identifier: MIT
// AMCW in the frequency domain (MODEL.md §11), written once for the CPU solver and the phasor
// gather shader: complex numbers as vec2 (re, im), the delay factor exp(-j Omega r) of a path of
// r timesteps, and the Jacobi update B^ <- E^ + rho sum_n F_mn exp(-j Omega r_mn) B^_n.
#ifndef RSIM_SHARED_PHASORS_H
#define RSIM_SHARED_PHASORS_H

#include "gpu_layout.h"
#include "physics.h"

RSIM_SHARED_BEGIN

// (a.x + j a.y) (b.x + j b.y).
RSIM_FN vec2 rsimComplexMul(vec2 a, vec2 b) { return vec2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x); }

// exp(-j a): the factor of a delay of phase a (radians). The angle is reduced to [0, 2 pi) first,
// since Omega r reaches hundreds of radians on long paths and harmonics.
RSIM_FN vec2 rsimDelayFactor(float a) {
    float r = a - 6.28318530718f * floor(a / 6.28318530718f);
    return vec2(cos(r), -sin(r));
}

// The phasor of a unit quantity deposited at fractional time t by section 3's linear split:
// (1 - frac t) exp(-j Omega floor t) + frac t exp(-j Omega (floor t + 1)): what the time-stepped
// transport does with a continuous delay, for the solver's test mode (rounded delays).
RSIM_FN vec2 rsimSplitFactor(float omega, float t) {
    vec3 s = rsimLinearSplit(t);
    return s.y * rsimDelayFactor(omega * s.x) + s.z * rsimDelayFactor(omega * (s.x + 1.0f));
}

// The delay of the pair (i, j) in timesteps: |c_i - c_j| / (c dt), or with `rounded` section 3's
// tau_ij (rsimDelaySteps), which makes the solve the discrete-time transform of the time-stepped
// transport.
RSIM_FN float rsimPairDelay(vec3 ci, vec3 cj, float invCdtSq, bool rounded) {
    if (rounded) return float(rsimDelaySteps(ci, cj, invCdtSq));
    vec3 d = ci - cj;
    return sqrt((d.x * d.x + d.y * d.y + d.z * d.z) * invCdtSq);
}

// The factor of source n in receiver m's gather at angular frequency omega (radians per step):
// F_mn exp(-j omega r_mn). omega = 0 (the steady state) needs no trigonometry.
RSIM_FN vec2 rsimPhasorCoefficient(float formFactor, float omega, float delay) {
    if (omega == 0.0f) return vec2(formFactor, 0.0f);
    return formFactor * rsimDelayFactor(omega * delay);
}

// The phasor gather (shaders/phasors_gather.comp): an invocation is receiver i of a K chunk
// (x: 32 consecutive rows, so that a source's K elements are read together) and a slice of the
// sources (y); it sums RSIM_SPEC_PHASOR_FREQS frequencies x RSIM_SPEC_PHASOR_POSES poses of the
// columns, from frequency `freq0` and pose `pose0 + z * poses-per-invocation`. The slices' sums
// give B^(k+1) of its columns (`next`), and the largest change of each column (`changes`, float
// bits: atomicMax of non-negative floats).
RSIM_CONST uint RSIM_PHASOR_RECEIVERS = 32u;
RSIM_CONST uint RSIM_SPEC_PHASOR_FREQS = 7u;
RSIM_CONST uint RSIM_SPEC_PHASOR_POSES = 8u;
RSIM_CONST uint RSIM_SPEC_PHASOR_SLICES = 9u;
RSIM_CONST uint RSIM_SPEC_PHASOR_AHEAD = 10u;
// Accumulators of one invocation at most: frequencies x poses.
RSIM_CONST uint RSIM_PHASOR_MAX_ACC = 16u;
// Sources whose K elements an invocation of the plain gather loads at once, and sources whose
// centroids and column values its workgroup stages in shared memory at once.
RSIM_CONST uint RSIM_PHASOR_AHEAD = 4u;
RSIM_CONST uint RSIM_PHASOR_STEP = 128u;
// The tiled gather of a pose group (shaders/phasors_tiled.comp): sources per tile, which is also
// its pose lanes (the workgroup is RSIM_PHASOR_RECEIVERS x RSIM_PHASOR_TILE invocations); it takes
// groups of at least RSIM_PHASOR_TILED_POSES poses.
RSIM_CONST uint RSIM_PHASOR_TILE = 8u;
RSIM_CONST uint RSIM_PHASOR_TILED_POSES = 8u;

struct PhasorPush {
    KChunkRef k;
    uint64_t tris;    // vec4 [n]: centroid, area
    uint64_t rho;     // float [n]
    uint64_t x;       // vec2 [n][columns]: B^(k)
    uint64_t next;    // vec2 [n][columns]: B^(k+1)
    uint64_t sources; // vec2 [n][columns]: E^
    uint64_t omegas;  // float [frequencies]
    uint64_t iterated; // uint [columns]: 1 while the column is iterated (0: frozen)
    uint64_t changes; // uint [columns]: float bits of the largest |B^(k+1) - B^(k)|
    uint n;
    uint columns;
    uint poses;       // of the group: column = frequency * poses + pose
    float invCdtSq;
    uint freq0;       // this dispatch's first frequency
    uint rounded;     // section 3's rounded delays (test mode)
};

// One Jacobi step of receiver m: E^_m + rho_m times its gathered sum.
RSIM_FN vec2 rsimPhasorUpdate(vec2 source, float rho, vec2 gathered) { return source + rho * gathered; }

RSIM_SHARED_END

#ifdef __cplusplus
static_assert(sizeof(rsim::shared::PhasorPush) == 120); // within the 128 bytes every device has
#endif

#endif
