// SPDX-License-Identifier: MIT
// The raw AMCW data of a pixel (MODEL.md §8, images.h5 `amcw/`), written once for the C++
// reference and the pixel shader: the correlation function of the camera's modulation
// waveform, its taps, and the phase a K-tap camera computes from them. Include after
// estimators.h (the signal accessors, rsimPhasor).
#ifndef RSIM_SHARED_PIXEL_OUTPUTS_H
#define RSIM_SHARED_PIXEL_OUTPUTS_H

#include "estimators.h"

RSIM_SHARED_BEGIN

RSIM_CONST uint RSIM_WAVEFORM_SINUSOIDAL = 0u;
RSIM_CONST uint RSIM_WAVEFORM_SQUARE = 1u;
RSIM_CONST uint RSIM_MAX_TAPS = 16u;

// The correlation g(x) of the camera's illumination modulation with its demodulation, at a lag
// of x cycles, normalised to g(0) = 1: cos(2 pi x) for sinusoidal modulation, and for square
// modulation (two 50% duty square waves) the triangle wave from 1 at x = 0 to -1 at x = 1/2.
RSIM_FN float rsimCorrelation(uint waveform, float cycles) {
    float x = cycles - floor(cycles);
    if (waveform == RSIM_WAVEFORM_SQUARE) return 1.0f - 4.0f * min(x, 1.0f - x);
    return cos(6.28318530718f * x);
}

// Phase offset of tap k of K, radians: theta_k = 2 pi k / K.
RSIM_FN float rsimTapPhase(uint k, uint K) { return 6.28318530718f * float(k) / float(K); }

// Tap k of K at angular frequency w (radians per timestep): c_k = sum_t s(t) g(w t / 2 pi -
// k / K). For sinusoidal modulation this is exactly Re(conj(P) exp(-i theta_k)) with the
// phasor P = rsimPhasor, which is how it is computed (`phasor`); square modulation sums.
RSIM_SIGNAL_FN float rsimTap(uint T, float omega, uint waveform, uint k, uint K, vec2 phasor RSIM_SIGNAL_ARGS) {
    float theta = rsimTapPhase(k, K);
    if (waveform != RSIM_WAVEFORM_SQUARE) return phasor.x * cos(theta) - phasor.y * sin(theta);
    float cyclesPerStep = omega / 6.28318530718f, lag = float(k) / float(K);
    float acc = 0.0f;
    for (uint t = 0u; t < T; ++t) {
        float s = rsimSignal(t);
        if (s != 0.0f) acc += s * rsimCorrelation(RSIM_WAVEFORM_SQUARE, cyclesPerStep * float(t) - lag);
    }
    return acc;
}

// Tap k's weight (cos theta_k, sin theta_k) in the sum whose angle is the taps' phase.
RSIM_FN vec2 rsimTapWeight(uint k, uint K) {
    float theta = rsimTapPhase(k, K);
    return vec2(cos(theta), sin(theta));
}

// The phase a K-tap camera computes, wrapped to [0, 2 pi): atan2(sum_k c_k sin theta_k,
// sum_k c_k cos theta_k) plus the emitted pulse's own phase (as rsimAmcwPath adds it), so that
// for sinusoidal modulation it equals the phasor's phase -arg P + that offset.
RSIM_FN float rsimWrapPhase(float phi) { return phi - 6.28318530718f * floor(phi / 6.28318530718f); }
RSIM_FN float rsimTapsPhase(vec2 weighted, float pulsePhase) {
    return rsimWrapPhase(atan(weighted.y, weighted.x) + pulsePhase);
}

RSIM_SHARED_END

#endif
