// SPDX-License-Identifier: MIT
// Path length and sensor distance of each triangle from its B_i(t) (MODEL.md §6), with the
// estimators shared with the CPU reference.
#version 460
#extension GL_GOOGLE_include_directive : require
#include "common/rsim.glsl"
layout(local_size_x = RSIM_WG_LINEAR) in;
layout(push_constant) uniform Push { DistancePush pc; };

uint gSignalBase; // the host checks n * T < 2^32
float rsimSignal(uint t) { return Vec2Refs(pc.history).v[gSignalBase + t].x; }
float rsimPulse(uint k) { return FloatRefs(pc.pulse).v[k]; }
#include "rsim/shared/estimators.h"

void main() {
    uint i = pc.begin + gl_GlobalInvocationID.x;
    if (i >= pc.end) return;
    GpuTransportTri me = TransportTriRefs(pc.tris).t[i];
    gSignalBase = i * pc.timesteps;
    // (path steps, or RSIM_NO_ECHO (also: no light, not seen) or RSIM_ECHO_CUT_OFF; sensor distance)
    vec4 result = vec4(RSIM_NO_ECHO, 0.0, 0.0, 0.0);
    float total = 0.0;
    // sum_t B_i(t) for triangles.csv, compensated (Kahan) so that T terms lose a few ulps only.
    precise float energy = 0.0, lost = 0.0;
    for (uint t = 0u; t < pc.timesteps; ++t) {
        float b = rsimSignal(t);
        total += b;
        precise float y = b - lost;
        precise float sum = energy + y;
        lost = (sum - energy) - y;
        energy = sum;
    }
    result.z = energy;
    if (total > 0.0 && me.source.w > 0.0) {
        float steps = rsimPathSteps(pc.mode, pc.timesteps, pc.pulseLength, pc.omegaLo, pc.omegaHi,
                                    int(pc.frequencies), uvec2(0u), me.sensorDirDelay.w);
        result.x = steps;
        if (steps >= 0.0)
            result.y = rsimSensorDistance(steps * pc.lightToSensor.w, pc.lightToSensor.xyz,
                                          me.sensorDirDelay.xyz);
    }
    Vec4Refs(pc.results).v[i] = result;
}
