// SPDX-License-Identifier: MIT
// Signal and depth of each sensor pixel (MODEL.md §6): the direct term recomputed at the hit
// point (from primary.glsl) plus the indirect part B_i - E_i delayed by the hit distance, run
// through the estimators shared with the CPU reference.
#version 460
#extension GL_GOOGLE_include_directive : require
#include "common/rsim.glsl"
#include "common/sources.glsl"
layout(local_size_x = RSIM_WG_LINEAR) in;
layout(push_constant) uniform Push { PixelPush pc; };

// The signal of the current pixel, set up in main().
GpuTransportTri gTri;
uint gBase; // the host checks n * T < 2^32
float gDirectAmount, gDirectDelay;
vec3 gShift; // rsimLinearSplit of the hit distance
bool gDirectOnly; // the signal without its indirect part

float rsimPulse(uint k) { return FloatRefs(pc.pulse).v[k]; }
// X(u) = B_i(u) - E_i(u), 0 before the start.
float indirectAt(int u) {
    if (u < 0) return 0.0;
    float b = Vec2Refs(pc.history).v[gBase + uint(u)].x;
    return b - rsimSourceAt(gTri.source.y, gTri.source.z, uint(u), pc.pulse, pc.pulseLength);
}
float rsimSignal(uint t) {
    float direct = rsimSourceAt(gDirectAmount, gDirectDelay, t, pc.pulse, pc.pulseLength);
    if (gDirectOnly) return direct;
    int u = int(t) - int(gShift.x);
    return direct + rsimDelayedValue(gShift, indirectAt(u), indirectAt(u - 1));
}
#include "rsim/shared/estimators.h"

void main() {
    uint p = pc.begin + gl_GlobalInvocationID.x;
    if (p >= pc.end) return;
    vec4 hit = Vec4Refs(pc.hits).v[p];
    float nan = uintBitsToFloat(0x7fc00000u);
    vec4 result = vec4(nan, 0.0, nan, 0.0); // depth, amplitude, direct-only depth
    if (hit.x >= 0.0 && hit.w >= 0.0) {
        uint tri = uint(hit.x);
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
        float steps = rsimPathSteps(pc.mode, pc.timesteps, pc.pulseLength, pc.omegaLo, pc.omegaHi,
                                    int(pc.frequencies), 0.0);
        if (steps >= 0.0) result.x = rsimSensorDistance(steps * pc.cdt, a, dir);
        // The direct signal alone (a pure delay: MODEL.md §6's exact case).
        gDirectOnly = true;
        steps = rsimPathSteps(pc.mode, pc.timesteps, pc.pulseLength, pc.omegaLo, pc.omegaHi, int(pc.frequencies), 0.0);
        if (steps >= 0.0) result.z = rsimSensorDistance(steps * pc.cdt, a, dir);
    }
    Vec4Refs(pc.results).v[p] = result;
}
