// SPDX-License-Identifier: MIT
// A run decided once: the request (command line or import rsim) and the scene file interpreted
// in one place, into what every later step reads instead of the request: the scene with the
// command line's settings, the poses, the backend and devices, where K comes from (the K cache),
// whether the CPU may cast rays for a GPU (pipeline/host_rays.h), MPI row blocks, and how a
// batch's groups run. A run of one pose is a batch of one with the same policies; only its
// results directory's layout differs.
#pragma once
#include <vector>

#include "pipeline/host_rays.h"
#include "pipeline/run_request.h"
#include "pipeline/simulate.h"
#include "scene/poses.h"
#include "scene/scene_desc.h"

namespace rsim {

struct RunPlan {
    RunRequest request;          // with the scene's [tuning] applied (tunedRequest)
    SceneDesc scene;             // the scene file with --set; output.dir from --output
    // The poses of a batch (--poses FILE, else the scene's [[pose]] tables, else the caller's);
    // empty for one pose at the scene's own light and sensor.
    std::vector<PoseDesc> poses;
    bool batch = false;          // results written as a batch directory (one folder per pose)
    bool rowBlocks = false;      // under MPI: K's rows shared among the ranks (k/row_share.h)
    HostRays hostRays = HostRays::Auto;
    SimConfig config;            // the scene's simulation settings with the request's K options
    RunOptions options;          // outputs, pose group and K cache of the run

    // The simulation settings of the scene at a pose (`posed`: applyPose of `scene`).
    SimConfig configAt(const SceneDesc& posed) const;
    // Whether the run may read and store K in the K cache.
    bool kCache() const { return !options.k.cacheDir.empty(); }
};

// The plan of `rsim run`: the scene file and the poses read and checked, the [tuning] table
// applied, and under MPI the ranks checked to run the same job (the job's first collective).
// Throws InputError for a run that cannot be done, before any work.
RunPlan planRun(const RunRequest& request);

// The plan of a batch on an already read scene (import rsim): its poses come with each call.
RunPlan planBatchOn(const RunRequest& request, const SceneDesc& scene);

} // namespace rsim
