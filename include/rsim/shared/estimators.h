// SPDX-License-Identifier: MIT
// Distance estimators of MODEL.md §6, written once for the C++ reference and the shaders.
//
// The estimators read a signal s(t), t = 0..T-1, and the pulse p[k], k = 0..P-1, through two
// accessors the caller provides: in GLSL, functions `float rsimSignal(uint t)` and
// `float rsimPulse(uint k)` defined before this header is included; in C++, two callables
// passed as the trailing arguments (RSIM_SIGNAL_ARGS), usually lambdas.
#ifndef RSIM_SHARED_ESTIMATORS_H
#define RSIM_SHARED_ESTIMATORS_H

#include "physics.h"

#ifdef __cplusplus
#define RSIM_SIGNAL_FN template <class SignalFn, class PulseFn> inline
#define RSIM_SIGNAL_ARGS , [[maybe_unused]] SignalFn rsimSignal, [[maybe_unused]] PulseFn rsimPulse
#define RSIM_SIGNAL_PASS , rsimSignal, rsimPulse
// rsimPulsedPeakOf reads the matched filter m(t) through a callable `rsimMatched(int t)` (the
// CPU's pixels pass m computed for every t at once); in GLSL, rsimMatchedFilter of the signal.
#define RSIM_MATCHED_FN template <class MatchedFn> inline
#define RSIM_MATCHED_ARGS , MatchedFn rsimMatched
#else
#define RSIM_SIGNAL_FN
#define RSIM_SIGNAL_ARGS
#define RSIM_SIGNAL_PASS
#define RSIM_MATCHED_FN
#define RSIM_MATCHED_ARGS
#endif

RSIM_SHARED_BEGIN

// Matched filter m(t) = sum_k s(t + k) p[k] (s = 0 before 0 and past the end). m is defined
// for t < 0 too: a surface closer to the light than the pulse is long has part of its matched
// filter there, and cutting it off would bias the centroid.
RSIM_SIGNAL_FN float rsimMatchedFilter(int t, uint T, uint P RSIM_SIGNAL_ARGS) {
    float m = 0.0f;
    for (uint k = 0u; k < P; ++k) {
        int s = t + int(k);
        if (s >= int(T)) break;
        if (s >= 0) m += rsimSignal(uint(s)) * rsimPulse(k);
    }
    return m;
}

// What an estimator returns instead of a time when it has none.
RSIM_CONST float RSIM_NO_ECHO = -1.0f;      // the signal is zero
RSIM_CONST float RSIM_ECHO_CUT_OFF = -2.0f; // the pulsed peak window runs past the last timestep
// Sensor modes (DistancePush::mode, PixelPush::mode).
RSIM_CONST uint RSIM_MODE_PULSED = 0u;
RSIM_CONST uint RSIM_MODE_AMCW = 1u;
RSIM_CONST uint RSIM_MODE_GATED = 2u; // pixels only: triangles use the pulsed estimator

// Pulsed estimator: t* = centroid of m over [argmax - h, argmax + h], h = P + 1. Returns t* in
// timesteps, RSIM_NO_ECHO when the signal is zero, RSIM_ECHO_CUT_OFF when the peak window runs
// past the last timestep (the echo may be cut off).
#ifndef __cplusplus
float rsimMatched(int t, uint T, uint P) { return rsimMatchedFilter(t, T, P); }
#endif
// The estimator from m(t), t in [1 - P, T): rsimMatched(t, T, P).
RSIM_MATCHED_FN float rsimPulsedPeakOf(uint T, uint P RSIM_MATCHED_ARGS) {
    int first = 1 - int(P); // the earliest t with m(t) != 0
    int arg = first - 1;
    float best = 0.0f;
    for (int t = first; t < int(T); ++t) {
        float m = rsimMatched(t, T, P);
        if (m > best) {
            best = m;
            arg = t;
        }
    }
    if (arg < first) return RSIM_NO_ECHO;
    int h = rsimCentroidHalfWidth(int(P));
    if (arg + h > int(T) - 1) return RSIM_ECHO_CUT_OFF;
    float sum = 0.0f, moment = 0.0f;
    for (int t = max(first, arg - h); t <= arg + h; ++t) {
        float m = rsimMatched(t, T, P);
        sum += m;
        moment += m * float(t - arg); // relative to argmax: keeps fp32 precision at large t
    }
    return sum > 0.0f ? float(arg) + moment / sum : RSIM_NO_ECHO;
}

RSIM_SIGNAL_FN float rsimPulsedPeak(uint T, uint P RSIM_SIGNAL_ARGS) {
#ifdef __cplusplus
    return rsimPulsedPeakOf(T, P, [&](int t, uint TT, uint PP) { return rsimMatchedFilter(t, TT, PP RSIM_SIGNAL_PASS); });
#else
    return rsimPulsedPeakOf(T, P);
#endif
}

// Phasor sum_t s(t) exp(-i w t) as (re, im), w in radians per timestep.
RSIM_SIGNAL_FN vec2 rsimPhasor(uint T, float omega RSIM_SIGNAL_ARGS) {
    vec2 acc = vec2(0.0f);
    for (uint t = 0u; t < T; ++t) {
        float s = rsimSignal(t);
        if (s == 0.0f) continue;
        // Reduce the angle before cos/sin: w t reaches hundreds of radians.
        float a = omega * float(t);
        a -= 6.28318530718f * floor(a / 6.28318530718f);
        acc += s * vec2(cos(a), -sin(a));
    }
    return acc;
}

// Phase of the emitted pulse itself, arg sum_k p[k] exp(-i w k) (0 for a delta pulse).
RSIM_SIGNAL_FN float rsimPulsePhase(uint P, float omega RSIM_SIGNAL_ARGS) {
    vec2 acc = vec2(0.0f);
    for (uint k = 0u; k < P; ++k) acc += rsimPulse(k) * vec2(cos(omega * float(k)), -sin(omega * float(k)));
    return atan(acc.y, acc.x);
}

// AMCW path length in timesteps from the phases phi_k in [0, 2 pi) of up to RSIM_MAX_FREQUENCIES
// modulation frequencies w_k = 2 pi f_k dt (radians per timestep): each gives the path modulo its
// ambiguity 2 pi / w_k, and rsimUnwrapPath finds the path below maxPathSteps that fits them all.
RSIM_FN float rsimAmcwPathFromPhases(float phi[RSIM_MAX_FREQUENCIES], vec4 omegaLo, vec4 omegaHi, int count,
                                     float maxPathSteps) {
    float L[RSIM_MAX_FREQUENCIES];
    float U[RSIM_MAX_FREQUENCIES];
    for (int k = 0; k < RSIM_MAX_FREQUENCIES; ++k) {
        L[k] = 0.0f;
        U[k] = 1.0f;
    }
    for (int k = 0; k < count; ++k) {
        float omega = k < 4 ? omegaLo[k] : omegaHi[k - 4];
        U[k] = 6.28318530718f / omega;
        L[k] = phi[k] / omega;
    }
    return rsimUnwrapPath(L, U, count, maxPathSteps);
}

// The phase in [0, 2 pi) of a path whose phasor at omega is `ph` (nonzero), with the pulse's
// phase removed and `delaySteps` added (section 8).
RSIM_FN float rsimPathPhase(vec2 ph, float pulsePhase, float omega, float delaySteps) {
    float p = -atan(ph.y, ph.x) + pulsePhase + omega * delaySteps;
    return p - 6.28318530718f * floor(p / 6.28318530718f);
}

// AMCW path length in timesteps of a signal (rsimAmcwPathFromPhases of its phasors' phases).
// delaySteps is added to the phase (tS_i for a triangle, 0 for a pixel whose signal already
// holds the sensor delay). Returns RSIM_NO_ECHO when the signal is zero.
RSIM_SIGNAL_FN float rsimAmcwPath(uint T, uint P, vec4 omegaLo, vec4 omegaHi, int count,
                                  float delaySteps, float maxPathSteps RSIM_SIGNAL_ARGS) {
    float phi[RSIM_MAX_FREQUENCIES];
    for (int k = 0; k < RSIM_MAX_FREQUENCIES; ++k) phi[k] = 0.0f;
    for (int k = 0; k < count; ++k) {
        float omega = k < 4 ? omegaLo[k] : omegaHi[k - 4];
        vec2 ph = rsimPhasor(T, omega RSIM_SIGNAL_PASS);
        if (ph.x == 0.0f && ph.y == 0.0f) return RSIM_NO_ECHO;
        phi[k] = rsimPathPhase(ph, rsimPulsePhase(P, omega RSIM_SIGNAL_PASS), omega, delaySteps);
    }
    return rsimAmcwPathFromPhases(phi, omegaLo, omegaHi, count, maxPathSteps);
}

// Gated camera (MODEL §6): `gates` (2 or 3) contiguous gates of W bins (the rectangular pulse's
// length), gate k summing s(t) over bins [start + k W, start + (k + 1) W).
RSIM_SIGNAL_FN vec3 rsimGateSums(uint T, uint W, uint start, uint gates RSIM_SIGNAL_ARGS) {
    vec3 G = vec3(0.0f);
    for (uint k = 0u; k < gates && k < 3u; ++k)
        for (uint t = start + k * W; t < start + (k + 1u) * W && t < T; ++t) G[int(k)] += rsimSignal(t);
    return G;
}

// The gated path from the gate sums G: the adjacent pair (k, k + 1), (1, 2) when there are three
// gates and G_2 > G_0, gives tau = start + k W + W G_{k+1} / (G_k + G_{k+1}), exact for a pure
// delay tau in [start, start + (gates - 1) W) (the linear split makes the sums linear in tau).
// RSIM_NO_ECHO when the pair holds nothing; RSIM_GATE_OUT_OF_RANGE when its first gate is empty
// (or its second negative, as noise can make it): the echo began after the pair's first gate
// closed, so tau would stop at the range's end however far the surface is.
RSIM_CONST float RSIM_GATE_OUT_OF_RANGE = -3.0f;
RSIM_FN float rsimGatedFromGates(vec3 G, uint W, uint start, uint gates) {
    uint k = gates == 3u && G[2] > G[0] ? 1u : 0u;
    float first = G[int(k)], second = G[int(k + 1u)];
    float sum = first + second;
    if (!(sum > 0.0f)) return RSIM_NO_ECHO;
    if (!(first > 0.0f) || second < 0.0f) return RSIM_GATE_OUT_OF_RANGE;
    return float(start + k * W) + float(W) * (second / sum);
}

RSIM_SIGNAL_FN float rsimGatedPath(uint T, uint W, uint start, uint gates RSIM_SIGNAL_ARGS) {
    return rsimGatedFromGates(rsimGateSums(T, W, start, gates RSIM_SIGNAL_PASS), W, start, gates);
}

// A path in timesteps from an estimator's t (or RSIM_NO_ECHO, RSIM_ECHO_CUT_OFF, ...) and the
// delay added to it.
RSIM_FN RSIM_WIDE rsimPathWithDelay(float t, float delaySteps) {
    return t < 0.0f ? RSIM_WIDE(t) : RSIM_WIDE(t) + RSIM_WIDE(delaySteps);
}

// Path length in timesteps of one signal with the sensor's mode (MODEL §6), the delay
// delaySteps added (tS_i for a triangle, 0 for a pixel), or RSIM_NO_ECHO / RSIM_ECHO_CUT_OFF.
// omegaLo/Hi hold w_k = 2 pi f_k dt of the AMCW frequencies.
// gating = (first bin of the gates, number of gates) in RSIM_MODE_GATED.
RSIM_SIGNAL_FN RSIM_WIDE rsimPathSteps(uint mode, uint T, uint P, vec4 omegaLo, vec4 omegaHi, int count,
                                       uvec2 gating, float delaySteps RSIM_SIGNAL_ARGS) {
    if (mode == RSIM_MODE_GATED) return rsimPathWithDelay(rsimGatedPath(T, P, gating.x, gating.y RSIM_SIGNAL_PASS), delaySteps);
    if (mode == RSIM_MODE_PULSED) return rsimPathWithDelay(rsimPulsedPeak(T, P RSIM_SIGNAL_PASS), delaySteps);
    return RSIM_WIDE(rsimAmcwPath(T, P, omegaLo, omegaHi, count, delaySteps, float(T) + delaySteps RSIM_SIGNAL_PASS));
}

RSIM_SHARED_END

#endif
