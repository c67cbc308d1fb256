// SPDX-License-Identifier: MIT
// Signal and depth of each sensor pixel (MODEL.md §6): the direct term recomputed at the hit
// point (from primary.glsl) plus the indirect part B_i - E_i delayed by the hit distance, run
// through the estimators shared with the CPU reference.
#version 460
#extension GL_GOOGLE_include_directive : require
#include "common/rsim.glsl"
#include "common/sources.glsl"
#include "rsim/shared/sensor_noise.h"
#include "rsim/shared/primary_hit.h"
layout(local_size_x = RSIM_WG_LINEAR) in;
layout(push_constant) uniform Push { PixelPush pc; };

// The signal of the current pixel, set up in main(): its centre ray's hit (the one ray whose
// signal it is when gRays is 1), or the gRays records from gFirst whose signals it averages.
GpuTransportTri gTri;
uint gBase; // the host checks n * T < 2^32
float gDirectAmount, gDirectDelay;
vec3 gShift; // rsimLinearSplit of the hit distance
uint gRays, gFirst;
float gInvRays;
bool gDirectOnly; // the signal without its indirect part
// The sensor model's electrons (sensor_noise.h): on, per unit of signal and ambient per bin,
// read noise per bin, seed, pixel.
bool gNoisy;
vec2 gElectrons;
float gReadSigma;
uint gSeed, gPixel;

float rsimPulse(uint k) { return FloatRefs(pc.pulse).v[k]; }
// X(u) = B_i(u) - E_i(u) of the triangle whose history starts at `base`, 0 before the start.
float indirectAt(uint base, vec3 source, int u) {
    if (u < 0) return 0.0;
    float b = Vec2Refs(pc.history).v[base + uint(u)].x;
    return b - rsimSourceAt(source.y, source.z, uint(u), pc.pulse, pc.pulseLength);
}
// One ray's signal at t: the direct term at its hit point plus the hit triangle's indirect part,
// delayed by the hit distance (`shift`).
float raySignal(float amount, float delay, vec3 shift, uint base, vec3 source, uint t) {
    float direct = rsimSourceAt(amount, delay, t, pc.pulse, pc.pulseLength);
    if (gDirectOnly) return direct;
    int u = int(t) - int(shift.x);
    return direct + rsimDelayedValue(shift, indirectAt(base, source, u), indirectAt(base, source, u - 1));
}
// The signal of record k of the pixel's averaged rays (0 for a miss or a back face).
float recordSignal(uint k, uint t) {
    vec4 hit = Vec4Refs(pc.hits).v[gFirst + k];
    if (!rsimPrimarySignal(hit)) return 0.0;
    uint tri = rsimPrimaryTriangle(hit);
    vec3 source = TransportTriRefs(pc.tris).t[tri].source.xyz;
    return raySignal(hit.z, hit.w, rsimLinearSplit(hit.y * pc.invCdt), tri * pc.timesteps, source, t);
}
float rsimSignal(uint t) {
    float s;
    if (gRays == 1u) {
        s = raySignal(gDirectAmount, gDirectDelay, gShift, gBase, gTri.source.xyz, t);
    } else {
        s = 0.0;
        for (uint k = 0u; k < gRays; ++k) s += recordSignal(k, t);
        s *= gInvRays;
    }
    if (!gNoisy) return s;
    return rsimNoisyElectrons(s * gElectrons.x, gElectrons.y, gReadSigma, rsimPairHash(gPixel, t, gSeed)) / gElectrons.x;
}
#include "rsim/shared/estimators.h"
#include "rsim/shared/pixel_outputs.h"

// The AMCW and gated raw data and the transient of pixel p (PixelOutputs), from the signal set up
// in main().
void writeOutputs(uint p, bool valid) {
    PixelOutputs o = PixelOutputsRef(pc.outputs).r;
    gDirectOnly = false;
    if (o.amcw != 0ul) {
        FloatRefs dst = FloatRefs(o.amcw);
        uint stride = o.taps + 3u;
        for (uint f = 0u; f < pc.frequencies; ++f) {
            uint at = (p * pc.frequencies + f) * stride;
            float omega = f < 4u ? pc.omegaLo[f] : pc.omegaHi[f - 4u];
            vec2 ph = valid ? rsimPhasor(pc.timesteps, omega) : vec2(0.0);
            dst.v[at] = ph.x;
            dst.v[at + 1u] = ph.y;
            vec2 weighted = vec2(0.0);
            for (uint k = 0u; k < o.taps; ++k) {
                float tap = valid ? rsimTap(pc.timesteps, omega, o.waveform, k, o.taps, ph) : 0.0;
                dst.v[at + 2u + k] = tap;
                weighted += tap * rsimTapWeight(k, o.taps);
            }
            dst.v[at + 2u + o.taps] = ph.x != 0.0 || ph.y != 0.0
                                          ? rsimTapsPhase(weighted, rsimPulsePhase(pc.pulseLength, omega))
                                          : uintBitsToFloat(0x7fc00000u);
        }
    }
    if (o.gates != 0ul) {
        vec3 G = valid ? rsimGateSums(pc.timesteps, pc.pulseLength, pc.gateStart, pc.gates) : vec3(0.0);
        for (uint k = 0u; k < pc.gates; ++k) FloatRefs(o.gates).v[p * pc.gates + k] = G[int(k)];
    }
    uint width = LightSensorRef(pc.lightSensor).r.image.x;
    uint x = p % width, y = p / width;
    if (o.transient != 0ul && x >= o.roi.x && x < o.roi.x + o.roi.z && y >= o.roi.y && y < o.roi.y + o.roi.w) {
        FloatRefs dst = FloatRefs(o.transient);
        uint at = ((y - o.roi.y) * o.roi.z + (x - o.roi.x)) * o.transientBins;
        for (uint b = 0u; b < o.transientBins; ++b) dst.v[at + b] = valid ? rsimSignal(o.transientStart + b) : 0.0;
        if (o.directTransient != 0ul) {
            FloatRefs direct = FloatRefs(o.directTransient);
            gDirectOnly = true;
            for (uint b = 0u; b < o.transientBins; ++b)
                direct.v[at + b] = valid ? rsimSignal(o.transientStart + b) : 0.0;
            gDirectOnly = false;
        }
    }
}

void main() {
    uint p = pc.begin + gl_GlobalInvocationID.x;
    if (p >= pc.end) return;
    uint R = pc.outputs != 0ul ? max(PixelOutputsRef(pc.outputs).r.raysPerPixel, 1u) : 1u;
    vec4 hit = Vec4Refs(pc.hits).v[p * R];
    gRays = R == 1u ? 1u : R - 1u;
    gFirst = R == 1u ? p : p * R + 1u;
    gInvRays = 1.0 / float(gRays);
    float nan = uintBitsToFloat(0x7fc00000u);
    vec4 result = vec4(nan, 0.0, nan, nan); // depth, amplitude, direct-only depth, noisy depth
    gNoisy = false;
    // A pixel with area has a signal when any of its rays has; its centre ray names what it sees.
    bool signal = rsimPrimarySignal(hit);
    for (uint k = 0u; R > 1u && k < gRays && !signal; ++k) signal = rsimPrimarySignal(Vec4Refs(pc.hits).v[gFirst + k]);
    if (signal) {
        uint tri = rsimPrimaryHits(hit) ? rsimPrimaryTriangle(hit) : 0u; // the centre may miss (R > 1)
        gTri = TransportTriRefs(pc.tris).t[tri];
        gBase = tri * pc.timesteps;
        gDirectAmount = hit.z;
        gDirectDelay = hit.w;
        gShift = rsimLinearSplit(hit.y * pc.invCdt);
        gDirectOnly = false;
        float amplitude = 0.0;
        for (uint t = 0u; t < pc.timesteps; ++t) amplitude += rsimSignal(t);
        result.y = amplitude;
        LightSensorRecord ls = LightSensorRef(pc.lightSensor).r;
        PinholeSensor sensor = rsimSensor(ls);
        vec3 dir = rsimPixelDirection(sensor, p % ls.image.x, p / ls.image.x, ls.image.x, ls.image.y);
        vec3 a = sensor.position - ls.lightPosCos.xyz;
        uvec2 gating = uvec2(pc.gateStart, pc.gates);
        float steps = rsimPathSteps(pc.mode, pc.timesteps, pc.pulseLength, pc.omegaLo, pc.omegaHi,
                                    int(pc.frequencies), gating, 0.0);
        if (steps >= 0.0) result.x = rsimSensorDistance(steps * pc.cdt, a, dir);
        // The direct signal alone (a pure delay: MODEL.md §6's exact case).
        gDirectOnly = true;
        steps = rsimPathSteps(pc.mode, pc.timesteps, pc.pulseLength, pc.omegaLo, pc.omegaHi, int(pc.frequencies), gating, 0.0);
        if (steps >= 0.0) result.z = rsimSensorDistance(steps * pc.cdt, a, dir);
        gDirectOnly = false;
        vec4 noise = pc.outputs != 0ul ? PixelOutputsRef(pc.outputs).r.noise : vec4(0.0);
        if (noise.x > 0.0) {
            float rho = rsimPrimaryHits(hit) ? gTri.source.x : 0.0; // the reflectance the centre ray sees
            gElectrons = rsimPixelElectrons(noise.x, noise.y, rho, dot(dir, sensor.forward));
            gReadSigma = noise.z;
            gSeed = floatBitsToUint(noise.w);
            gPixel = p;
            gNoisy = true;
            steps = rsimPathSteps(pc.mode, pc.timesteps, pc.pulseLength, pc.omegaLo, pc.omegaHi, int(pc.frequencies), gating, 0.0);
            if (steps >= 0.0) result.w = rsimSensorDistance(steps * pc.cdt, a, dir);
            gNoisy = false;
        }
    }
    if (pc.outputs != 0ul) writeOutputs(p, signal);
    Vec4Refs(pc.results).v[p] = result;
}
