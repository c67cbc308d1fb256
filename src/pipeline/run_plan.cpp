// SPDX-License-Identifier: MIT
#include "pipeline/run_plan.h"

#include <spdlog/spdlog.h>

#include "k/k_cache.h"
#include "pipeline/job_agreement.h"
#include "scene/scene_config.h"
#include "util/cpu_isa.h"
#include "util/error.h"
#include "util/ranks.h"

namespace rsim {
namespace {

SimConfig configFor(const SceneDesc& scene, const RunRequest& req) {
    SimConfig config = makeSimConfig(scene);
    if (!req.kFormat.empty()) config.k.format = parseKFormat(req.kFormat);
    config.k.chunkBytes = std::uint64_t(req.chunkMb * 1048576.0);
    config.k.formatErrors = req.kFormatErrors;
    return config;
}

RunOptions optionsFor(const SceneDesc& scene, const RunRequest& req) {
    RunOptions options;
    options.keepK = scene.output.kij;
    options.images = scene.output.images;
    options.timeseries = scene.output.timeseries;
    options.maxPoseGroup = req.maxPoseGroup;
    if (!req.noKCache) options.k.cacheDir = req.kCacheDir ? *req.kCacheDir : KCache::defaultDir();
    options.k.cacheMaxBytes = std::uint64_t(req.kCacheMaxGb * 1073741824.0);
    if (options.k.cacheDir.empty() && !req.noKCache)
        spdlog::debug("K cache: off (neither XDG_CACHE_HOME nor HOME is set; use --k-cache DIR)");
    return options;
}

// Under MPI: whether this run shares K's rows among the ranks (row-block mode, k/row_share.h);
// throws InputError for what that mode cannot do, and leaves ranks other than 0 logging errors
// only. False with one rank.
bool rowBlockMode(const RunRequest& req, const SceneDesc& scene, bool batch) {
    if (!Ranks::world().many()) return false;
    const bool rows = req.mpiSplit.empty() ? !batch : req.mpiSplit == "rows";
    if (!rows) return false;
    // Each rank holds its rows of K only: what needs all of K in one place cannot run.
    if (scene.output.kij)
        throw InputError("output.kij (--write-kij) needs all of K in one process; under mpirun with --mpi-split rows "
                         "each rank holds its rows only. Drop it, or run one process");
    if (req.kFormatErrors)
        throw InputError("--kij-errors needs all of K in one process; under mpirun with --mpi-split rows each rank "
                         "holds its rows only. Drop it, or run one process");
    // Every rank runs the same phases and would repeat rank 0's warnings: the others report
    // errors only.
    if (Ranks::world().rank() > 0) spdlog::set_level(spdlog::level::err);
    return true;
}

// What a run of one pose cannot be asked.
void checkOnePose(const RunRequest& req, bool rowBlocks) {
    if (req.maxPoseGroup > 0 || req.writers > 0)
        throw InputError(std::string(req.maxPoseGroup > 0 ? "tuning.pose_group" : "tuning.writers") +
                         " (--" + (req.maxPoseGroup > 0 ? "pose-group" : "writers") +
                         "): sets how a batch of poses runs, and this run has one pose (no --poses FILE, no [[pose]] "
                         "tables in the scene file); drop it");
    if (Ranks::world().many() && !rowBlocks)
        throw InputError("--mpi-split poses shares the poses of a batch (--poses FILE or [[pose]] tables) among the "
                         "ranks; this run has one pose. Use --mpi-split rows (the default for one pose)");
}

// What the `paths` transport (MODEL.md §10.2) cannot be asked: it computes no K.
void checkPaths(const RunPlan& plan) {
    if (plan.scene.sim.transport != Transport::Paths) return;
    if (plan.scene.output.kij)
        throw InputError("output.kij (--write-kij): simulation.transport = \"paths\" computes no K; drop it or use "
                         "the radiosity transport");
    if (!plan.scene.output.images)
        throw InputError("output.images = false (--no-images): simulation.transport = \"paths\" computes only the "
                         "images; drop it or use the radiosity transport");
    if (plan.rowBlocks)
        throw InputError("simulation.transport = \"paths\" has no K whose rows MPI ranks could share; under mpirun "
                         "give it a batch of poses (--poses FILE) with --mpi-split poses");
}

// The plan's settings that follow from its request, scene and poses.
void settle(RunPlan& plan) {
    checkPaths(plan);
    plan.hostRays = parseHostRays(plan.request.hostRays);
    // Process-wide, like --threads: each run sets it, so that one run's limit does not outlast it.
    setCpuIsaLimit(parseCpuIsa(plan.request.cpuIsa));
    plan.config = configFor(plan.scene, plan.request);
    plan.options = optionsFor(plan.scene, plan.request);
}

} // namespace

SimConfig RunPlan::configAt(const SceneDesc& posed) const { return configFor(posed, request); }

RunPlan planRun(const RunRequest& given) {
    RunPlan plan;
    plan.scene = loadSceneFile(given.sceneFile, given.overrides);
    plan.request = tunedRequest(given, plan.scene);
    const RunRequest& req = plan.request;
    if (req.outputDir) plan.scene.output.dir = std::filesystem::absolute(*req.outputDir);
    // Under MPI: the first collective of every job, before the ranks take their ways (a rank
    // with --poses beside one without would otherwise wait in another collective for ever).
    if (Ranks::world().many()) checkRanksAgree(Ranks::world(), jobFingerprint(req, plan.scene));
    if (req.posesFile) {
        if (!plan.scene.poses.empty())
            spdlog::warn("--poses {}: replaces the scene file's {} [[pose]] table(s)", req.posesFile->string(),
                         plan.scene.poses.size());
        plan.poses = readPosesCsv(*req.posesFile);
    } else {
        plan.poses = plan.scene.poses;
    }
    plan.batch = !plan.poses.empty();
    // Every pose is checked before any work.
    if (plan.batch) checkPoses(plan.poses, plan.scene);
    plan.rowBlocks = rowBlockMode(req, plan.scene, plan.batch);
    if (!plan.batch) checkOnePose(req, plan.rowBlocks);
    settle(plan);
    return plan;
}

RunPlan planBatchOn(const RunRequest& request, const SceneDesc& scene) {
    RunPlan plan;
    plan.scene = scene;
    plan.request = request;
    plan.batch = true;
    settle(plan);
    return plan;
}

} // namespace rsim
