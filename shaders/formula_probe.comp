// SPDX-License-Identifier: MIT
// The formula probe (tests only): rsimFormulaProbe of include/rsim/shared/formula_probe.h on a
// table of inputs, for tests/test_formula_probe.cpp to compare with the C++ build bit for bit.
#version 460
#extension GL_GOOGLE_include_directive : require
#include "common/rsim.glsl"
#include "rsim/shared/formula_probe.h"
layout(local_size_x = RSIM_WG_LINEAR) in;
layout(push_constant) uniform Push { FormulaProbePush pc; };
layout(buffer_reference, std430, buffer_reference_align = 16) readonly buffer ProbeInputs { FormulaProbeRecord r[]; };
layout(buffer_reference, std430, buffer_reference_align = 16) buffer ProbeOutputs { FormulaProbeOutput o[]; };

void main() {
    uint k = gl_GlobalInvocationID.x;
    if (k >= pc.count) return;
    ProbeOutputs(pc.outputs).o[k] = rsimFormulaProbe(ProbeInputs(pc.inputs).r[k]);
}
