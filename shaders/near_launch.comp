// SPDX-License-Identifier: MIT
// The launch sizes of a visibility launch's near phases (NearVisibilityListHeader in
// gpu_layout.h), from the near pairs its first phase listed, for indirect launches: a launch of
// the list's capacity would run mostly empty invocations. One invocation.
#version 460
#extension GL_GOOGLE_include_directive : require
#include "common/rsim.glsl"
layout(local_size_x = 1) in;
layout(push_constant) uniform Push { VisibilityPush pc; };
layout(buffer_reference, std430, buffer_reference_align = 16) buffer NearHeaderRef { NearVisibilityListHeader h; };

void main() {
    NearHeaderRef list = NearHeaderRef(pc.nearList);
    uint pairs = min(list.h.count, pc.nearCapacity);
    uint w = list.h.groupWidth;
    list.h.partsLaunch = uvec4((pairs * RSIM_NEAR_PARTS + w - 1u) / w, 1u, 1u, 0u);
    list.h.finishLaunch = uvec4((pairs + w - 1u) / w, 1u, 1u, 0u);
}
