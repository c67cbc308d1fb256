// SPDX-License-Identifier: MIT
// Included first by every rsim shader: extensions, the shared C++/GLSL headers, buffer
// reference types, and conversions from the GPU records to the shared structs.
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require

#include "rsim/shared/gpu_layout.h"
#include "rsim/shared/physics.h"

layout(buffer_reference, std430, buffer_reference_align = 16) readonly buffer TriangleRefs { GpuTriangle t[]; };
layout(buffer_reference, std430, buffer_reference_align = 16) readonly buffer TransportTriRefs { GpuTransportTri t[]; };
layout(buffer_reference, std430, buffer_reference_align = 16) readonly buffer LightSensorRef { LightSensorRecord r; };
layout(buffer_reference, std430, buffer_reference_align = 16) readonly buffer PixelOutputsRef { PixelOutputs r; };
layout(buffer_reference, std430, buffer_reference_align = 8) readonly buffer AddressRefs { uint64_t a[]; };
layout(buffer_reference, std430, buffer_reference_align = 4) buffer FloatRefs { float v[]; };
layout(buffer_reference, std430, buffer_reference_align = 4) buffer UintRefs { uint v[]; };
layout(buffer_reference, std430, buffer_reference_align = 8) buffer Vec2Refs { vec2 v[]; };
layout(buffer_reference, std430, buffer_reference_align = 16) buffer Vec4Refs { vec4 v[]; };

// The invocation's index in a 1-D compute pass of RSIM_WG_LINEAR-wide workgroups dispatched as
// rows (y) of workgroups when one row cannot hold them all (vk::Pass::dispatchRows). A macro:
// the ray-generation shaders include this file too, and have no workgroups.
#define RSIM_ROWS_INDEX() \
    ((gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * RSIM_WG_LINEAR + gl_LocalInvocationID.x)

Tri rsimTri(GpuTriangle g) { return Tri(g.v0Area.xyz, g.v1Rho.xyz, g.v2.xyz); }

PointLight rsimLight(LightSensorRecord r) {
    PointLight l;
    l.position = r.lightPosCos.xyz;
    l.direction = r.lightDirFalloff.xyz;
    l.cosHalfAngle = r.lightPosCos.w;
    l.falloffExp = r.lightDirFalloff.w;
    l.intensity = r.lightIntensity.x;
    l.profile = r.lightProfile;
    l.profileShape = r.lightProfileShape;
    l.profileRange = r.lightProfileRange;
    l.profileRight = r.lightProfileRight.xyz;
    return l;
}

PinholeSensor rsimSensor(LightSensorRecord r) {
    PinholeSensor s;
    s.position = r.sensorPosTanH.xyz;
    s.forward = r.sensorFwdTanV.xyz;
    s.right = r.sensorRight.xyz;
    s.up = r.sensorUp.xyz;
    s.tanHalfFovH = r.sensorPosTanH.w;
    s.tanHalfFovV = r.sensorFwdTanV.w;
    s.intrinsics = r.sensorIntrinsics;
    s.distortion = r.sensorDistortion;
    s.distortionK3Image = r.sensorDistortionK3Image;
    return s;
}

// Statistics counters are spread over this many slots to avoid one hot atomic; the host sums
// in 64 bits. Each slot is 32 bits: 4096 slots hold about 1.7e13 rays per device before one
// wraps (industry at 299k triangles and S = 16, every pair cast twice: 4.3e11).
const uint RSIM_STAT_SLOTS = 4096u;
void rsimCount(uint64_t stats, uint counter, uint slotSeed, uint amount) {
    if (amount != 0u)
        atomicAdd(UintRefs(stats).v[counter * RSIM_STAT_SLOTS + (slotSeed % RSIM_STAT_SLOTS)], amount);
}

struct RsimHit {
    int triangle; // internal index, -1 for none
    float t;
};
