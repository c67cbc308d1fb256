// SPDX-License-Identifier: MIT
// The sensor model's noise (MODEL.md §8, images.h5 `noise/`), written once for the C++
// reference and the pixel shader: each time bin of a pixel is a count of electrons, Poisson
// in the signal and ambient electrons it holds, plus Gaussian read noise, drawn from a hash of
// (pixel, bin, seed) so that both backends draw the same numbers.
#ifndef RSIM_SHARED_SENSOR_NOISE_H
#define RSIM_SHARED_SENSOR_NOISE_H

#include "physics.h"

RSIM_SHARED_BEGIN

// A standard normal variate from hash h (Box-Muller; u1 in (0, 1]).
RSIM_FN float rsimStdNormal(uint h) {
    float u1 = 1.0f - rsimUnitFloat(rsimHash32(h + 0x68e31da4u));
    float u2 = rsimUnitFloat(rsimHash32(h + 0xb5297a4du));
    return sqrt(-2.0f * log(u1)) * cos(6.28318530718f * u2);
}

// A Poisson variate of the given mean from hash h: by inversion below a mean of 30, else the
// normal approximation rounded to a count (its error is below the shot noise's own scale).
RSIM_FN float rsimPoisson(float mean, uint h) {
    if (!(mean > 0.0f)) return 0.0f;
    if (mean < 30.0f) {
        float u = rsimUnitFloat(rsimHash32(h + 0x1b873593u));
        float p = exp(-mean), cdf = p, k = 0.0f;
        while (u > cdf && k < 200.0f) {
            k += 1.0f;
            p *= mean / k;
            cdf += p;
        }
        return k;
    }
    return max(0.0f, floor(mean + sqrt(mean) * rsimStdNormal(h) + 0.5f));
}

// A pixel's electrons per unit of its signal (x) and of ambient light per bin (y), from the
// on-axis factors of SimConfig::Noise, the reflectance seen and cos of the ray's angle to the
// optical axis (the lens's cos^4 falloff).
RSIM_FN vec2 rsimPixelElectrons(float perUnit, float ambientPerBin, float reflectance, float cosAxis) {
    float falloff = cosAxis * cosAxis * cosAxis * cosAxis;
    return vec2(perUnit * falloff, ambientPerBin * reflectance * falloff);
}

// One bin's electrons as read out: Poisson(signal + ambient) + N(0, readSigma), minus the
// ambient's mean (which a camera measures and subtracts).
RSIM_FN float rsimNoisyElectrons(float signal, float ambient, float readSigma, uint h) {
    return rsimPoisson(max(signal, 0.0f) + ambient, h) + readSigma * rsimStdNormal(rsimHash32(h ^ 0x5bd1e995u)) -
           ambient;
}

RSIM_SHARED_END

#endif
