// SPDX-License-Identifier: MIT
// The scene's [tuning] table (scene/tuning.h, docs/tuning.md) applied to a run's request.
#include <spdlog/spdlog.h>

#include "pipeline/run_simulation.h"
#include "util/error.h"

namespace rsim {

RunRequest tunedRequest(const RunRequest& request, const SceneDesc& scene) {
    RunRequest r = request;
    const TuningDesc& t = scene.tuning;
    BackendChoice& b = r.backend;
    // The Vulkan backend's own: with --backend cpu they would do nothing.
    const bool gpuTuning = t.passBlocks || t.radiositySplit || t.radiosityUnroll || t.radiosityPoses || t.radiosityLanes ||
                           t.radiosityLaneReceivers || t.radiosityStaged.value_or(false) || t.validation.value_or(false);
    if (b.backend == "cpu" && gpuTuning)
        throw InputError("tuning: pass_blocks, radiosity_* and validation tune the Vulkan backend; with --backend cpu "
                         "they would do nothing (docs/tuning.md)");
    if (t.passBlocks) b.passBlocks = *t.passBlocks;
    if (t.radiositySplit) b.radiositySplit = *t.radiositySplit;
    if (t.radiosityUnroll) b.radiosityUnroll = *t.radiosityUnroll;
    if (t.radiosityPoses) b.radiosityPoses = *t.radiosityPoses;
    if (t.radiosityLanes) b.radiosityLanes = *t.radiosityLanes;
    if (t.radiosityLaneReceivers) b.laneReceivers = *t.radiosityLaneReceivers;
    if (t.radiosityStaged) b.radiosityStaged = *t.radiosityStaged;
    if (t.validation) b.validation = *t.validation;
    if (t.chunkMb) r.chunkMb = *t.chunkMb;
    if (t.kijErrors) r.kFormatErrors = *t.kijErrors;
    if (t.hostRays) r.hostRays = *t.hostRays;
    if (t.cpuIsa) r.cpuIsa = *t.cpuIsa;
    if (t.writers) r.writers = *t.writers;
    if (t.poseGroup) r.maxPoseGroup = *t.poseGroup;
    if (r.kFormatErrors && r.kFormat != "fp32")
        throw InputError("tuning.kij_errors measures every format against fp32 K, so it needs --kij fp32 (now " +
                         (r.kFormat.empty() ? std::string("the default, lut8-log") : "--kij " + r.kFormat) + ")");
    if (!scene.sim.indirect && (t.chunkMb || t.kijErrors || t.passBlocks))
        throw InputError("tuning: chunk_mb, kij_errors and pass_blocks tune how K is computed or kept, and "
                         "simulation.indirect = false computes no K; drop one of them");
    // A [tuning] early_exit in the scene file comes too late: the process would fork before it
    // reads the scene. The command line's is read before (cli/cmd_run.cpp).
    if (t.earlyExit.value_or(false)) {
        bool onCommandLine = false;
        for (const SceneOverride& o : request.overrides) onCommandLine = onCommandLine || o.key == "tuning.early_exit";
        if (!onCommandLine)
            spdlog::warn("{}: [tuning] early_exit takes effect only on the command line (--set tuning.early_exit=true): "
                         "the process would fork before it reads the scene",
                         scene.file.string());
    }
    return r;
}

} // namespace rsim
