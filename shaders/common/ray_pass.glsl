// SPDX-License-Identifier: MIT
// What every ray pass (direct terms, primary rays, visibility) starts with. Each is built
// three times: as a compute shader with ray queries (RSIM_RAY_QUERY defined), as a compute
// shader that traverses rsim's own BVH (RSIM_RAY_BVH), and as a ray-generation shader of the RT
// pipeline. The compute builds' workgroup width is RSIM_RAY_PASS_GROUP, which a pass may define
// before including this file (default RSIM_WG_LINEAR).
#include "common/rsim.glsl"
#ifndef RSIM_RAY_PASS_GROUP
#define RSIM_RAY_PASS_GROUP RSIM_WG_LINEAR
#endif
#if defined(RSIM_RAY_QUERY)
#include "common/trace_ray_query.glsl"
layout(local_size_x = RSIM_RAY_PASS_GROUP) in;
#elif defined(RSIM_RAY_BVH)
#include "common/trace_bvh.glsl"
layout(local_size_x = RSIM_RAY_PASS_GROUP) in;
#else
#include "common/trace_pipeline.glsl"
#endif
