// SPDX-License-Identifier: MIT
#version 460
#extension GL_EXT_ray_tracing : require
#extension GL_GOOGLE_include_directive : require
#include "common/payload.glsl"
layout(location = 0) rayPayloadInEXT RsimPayload rsimPayload;
void main() { rsimPayload.triangle = -1; }
