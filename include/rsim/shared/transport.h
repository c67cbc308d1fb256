// SPDX-License-Identifier: MIT
// The time-resolved transport of MODEL.md §5 for the C++ reference (src/transport) and the
// radiosity shaders: which pairs are gathered step by step, the coefficients of a gather and
// the update of B and Z. The gathers accumulate in RSIM_WIDE (double on the CPU, float on the GPU).
#ifndef RSIM_SHARED_TRANSPORT_H
#define RSIM_SHARED_TRANSPORT_H

#include "gpu_layout.h"
#include "physics.h"

RSIM_SHARED_BEGIN

// A pair whose delay is shorter than the steps gathered at once (one time block, RSIM_TIME_BLOCK
// steps; several when K is streamed) may have its source inside them: it is gathered step by
// step from a list ("near"); all others once per block ("far").
RSIM_FN bool rsimIsNearDelay(uint tau, uint nearBelow) { return tau < nearBelow; }

// The coefficients with which receiver i gathers source j: B_i takes F_ij B_j and Z_i takes
// rho_j A_j F_ji Z_j (Z's 1 / A_i comes in rsimRadiosityUpdate). rhoAreaJ = rho_j A_j.
RSIM_FN vec2 rsimGatherCoefficients(float kij, float areaI, float areaJ, float rhoAreaJ) {
    return vec2(rsimFormFactor(kij, areaJ), rhoAreaJ * rsimFormFactor(kij, areaI));
}

// B_i(t) = E_i(t) + rho_i sum_B and Z_i(t) = R_i(t) + sum_Z / A_i, from the gathered sums.
RSIM_FN vec2 rsimRadiosityUpdate(float E, float R, RSIM_WIDE sumB, RSIM_WIDE sumZ, float rho, float area) {
    return vec2(E + float(RSIM_WIDE(rho) * sumB), R + float(sumZ / RSIM_WIDE(area)));
}

RSIM_SHARED_END

#endif
