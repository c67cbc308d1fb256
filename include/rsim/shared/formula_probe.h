// SPDX-License-Identifier: MIT
// What the formula probe evaluates: shared functions whose results must be the same bits on
// every backend (only exact operations, or RSIM_PRECISE ones: no division, no transcendental
// function). shaders/formula_probe.comp runs it on a GPU, tests/test_formula_probe.cpp on the
// host, and the two must match bit for bit.
#ifndef RSIM_SHARED_FORMULA_PROBE_H
#define RSIM_SHARED_FORMULA_PROBE_H

#include "form_factor.h"
#include "gpu_layout.h"
#include "kformat.h"
#include "transport.h"

RSIM_SHARED_BEGIN

RSIM_FN FormulaProbeOutput rsimFormulaProbe(FormulaProbeRecord r) {
    FormulaProbeOutput o;
    Tri t1 = Tri(vec3(r.a.x, r.a.y, r.a.z), vec3(r.b.x, r.b.y, r.b.z), vec3(r.c.x, r.c.y, r.c.z));
    Tri t2 = Tri(vec3(r.d.x, r.d.y, r.d.z), vec3(r.e.x, r.e.y, r.e.z), vec3(r.f.x, r.f.y, r.f.z));
    vec3 n1 = vec3(r.na.x, r.na.y, r.na.z), n2 = vec3(r.nb.x, r.nb.y, r.nb.z);
    uint tau = rsimDelaySteps(t1.v0, t2.v1, r.c.w);
    vec3 split = rsimLinearSplit(r.d.w);
    // Delays and deposits (MODEL §3, §5), the delayed pixel signal (§6).
    o.o0 = vec4(float(tau), split.x, split.y, split.z);
    o.o1 = vec4(rsimGatherCoefficients(r.a.w, r.b.w, r.c.w, r.d.w), rsimDeposit(r.a.w, r.d.w, r.b.w, r.c.w),
                rsimDelayedValue(split, r.b.w, r.a.w));
    // The K estimator's sample pattern (§2): the offsets and the R4 point.
    vec4 offset = rsimKSideOffset(r.u.y, r.u.z, r.u.w);
    o.o2 = offset;
    o.o3 = rsimR4Point(r.u.x % 4096u, offset);
    // K's storage (issue 4): an fp16 element and the codes of a LUT8 and a LUT4 word.
    o.o4 = vec4(rsimKPlain(RSIM_K_FP16, r.u.y, r.u.x), float(rsimKCode(RSIM_K_LUT8, r.u.z, r.u.x)),
                float(rsimKCode(RSIM_K_LUT4, r.u.w, r.u.x)), rsimKPlain(RSIM_K_FP32, r.u.z, 0u));
    // Decisions: the near-delay rule (§5), near pairs (§2), the facing cull, a shared vertex.
    o.flags = uvec4(rsimIsNearDelay(r.u.x % 16u, RSIM_TIME_BLOCK) ? 1u : 0u, rsimPairIsNear(t1, t2) ? 1u : 0u,
                    rsimCanFace(t1, n1, t2, n2) ? 1u : 0u, rsimShareVertex(t1, t2) ? 1u : 0u);
    return o;
}

RSIM_SHARED_END

#endif
