// SPDX-License-Identifier: MIT
// `rsim run`: the options a user chooses, shown by --help; the tuning and test switches of
// docs/tuning.md, hidden there and the same as `--set tuning.KEY=VALUE`.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli/cli.h"
#include "cli/validators.h"
#include "pipeline/run_simulation.h"
#include "util/early_exit.h"
#include "util/error.h"
#include "util/ranks.h"

namespace rsim {
namespace {

// Full precision, always with a decimal point or exponent so TOML reads it as a float.
std::string fmtDouble(double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.17g", v);
    std::string s = buf;
    if (s.find_first_of(".eEn") == std::string::npos) s += ".0";
    return s;
}

// A scene value set twice on one command line (--samples 8 --set simulation.samples=16) is an
// error: which one wins would be a rule the user has to know.
void checkOverridesOnce(const std::vector<SceneOverride>& overrides) {
    for (std::size_t a = 0; a < overrides.size(); ++a)
        for (std::size_t b = a + 1; b < overrides.size(); ++b)
            if (overrides[a].key == overrides[b].key) {
                auto said = [](const SceneOverride& o) {
                    return o.origin.empty() ? "--set " + o.key + "=" + o.value : o.origin;
                };
                throw InputError(said(overrides[a]) + " and " + said(overrides[b]) + " both set " + overrides[a].key +
                                 "; give it once");
            }
}

// What `rsim run` was given.
struct RunArgs {
    RunRequest req;
    std::string output, posesFile, kCache;
    std::vector<std::string> sets;
    std::uint32_t samples = 0, directSamples = 0, timesteps = 0, seed = 0;
    double dtNs = 0.0, maxEdgeM = -1.0;
    bool directOnly = false, kij = false, noImages = false, noTimeseries = false;
};

// The tuning and test switches (docs/tuning.md): hidden from --help, each the same as
// `--set tuning.KEY=VALUE`, kept so that scripts written for them still run. A flag sets true;
// --exit-after-release sets early_exit = false, the default since one run is one process.
struct TuningSwitch {
    const char* option;
    const char* key;
    const char* flagValue; // nullptr: an option with a value
};
constexpr TuningSwitch kTuningSwitches[] = {
    {"--pass-blocks", "pass_blocks", nullptr},
    {"--radiosity-split", "radiosity_split", nullptr},
    {"--radiosity-poses", "radiosity_poses", nullptr},
    {"--radiosity-lanes", "radiosity_lanes", nullptr},
    {"--radiosity-lane-receivers", "radiosity_lane_receivers", nullptr},
    {"--radiosity-unroll", "radiosity_unroll", nullptr},
    {"--chunk-mb", "chunk_mb", nullptr},
    {"--kij-errors", "kij_errors", "true"},
    {"--host-rays", "host_rays", nullptr},
    {"--writers", "writers", nullptr},
    {"--pose-group", "pose_group", nullptr},
    {"--validation", "validation", "true"},
    {"--exit-after-release", "early_exit", "false"},
};

void addDeviceOptions(CLI::App* cmd, RunArgs& a) {
    cmd->add_option("-b,--backend", a.req.backend.backend,
                    "auto: the best Vulkan GPU, else the CPU (a software Vulkan device such as lavapipe is "
                    "slower than the CPU backend: only with --backend vulkan or --devices); cpu: the CPU "
                    "reference (Embree); vulkan: a Vulkan device or fail")
        ->check(CLI::IsMember({"auto", "cpu", "vulkan"}))
        ->capture_default_str();
    cmd->add_option("--devices", a.req.backend.devices,
                    "Vulkan devices: auto (the best), all (every GPU), or indices from 'rsim devices' "
                    "(0,1; an index may repeat: each entry is its own VkDevice)")
        ->capture_default_str();
    cmd->add_option("--visibility", a.req.backend.visibility,
                    "Ray path on the GPU: auto (ray queries when the device has them, else bvh), "
                    "ray-query, pipeline (the driver's ray-tracing pipeline), or bvh (rsim's own BVH "
                    "traversed by compute shaders: no ray-tracing extension, a device created sooner; "
                    "faster than the pipeline on GPUs without ray-tracing cores)")
        ->check(CLI::IsMember({"auto", "ray-query", "pipeline", "bvh"}))
        ->capture_default_str();
    cmd->add_option("--stream", a.req.backend.stream,
                    "K in host memory, streamed to the GPU every 8 timesteps: auto (only when it "
                    "does not fit the device), always (to measure it), never (fail if it does not fit)")
        ->check(CLI::IsMember({"auto", "always", "never"}))
        ->capture_default_str();
    cmd->add_option("--max-device-mb", a.req.backend.maxDeviceMb,
                    "Use at most this many MiB on each GPU (0: its memory budget); below K's size, "
                    "--stream auto streams")
        ->check(nonNegativeNumber());
    cmd->add_option("--max-host-mb", a.req.backend.maxHostMb,
                    "Host memory K's computation may take, in MiB (0: half the memory available at the start, a "
                    "cgroup's limit included). Above it, each GPU computes the full rows of its own K chunks "
                    "(every pair cast twice) instead of assembling K in fp32 on the host (docs/scaling.md)")
        ->check(nonNegativeNumber());
}

void addSceneOptions(CLI::App* cmd, RunArgs& a) {
    cmd->add_option("--samples", a.samples, "S, samples per triangle pair for K_ij, half from each side")
        ->check(CLI::Range(1u, 1u << 20));
    cmd->add_option("--direct-samples", a.directSamples, "Samples per triangle, light/sensor")
        ->check(CLI::Range(1u, 1u << 20));
    cmd->add_option("--timesteps", a.timesteps, "T, number of timesteps")->check(CLI::Range(1u, 10000000u));
    cmd->add_option("--dt-ns", a.dtNs, std::string("Timestep in nanoseconds, in ") + kDtRangeText)
        ->check(CLI::Validator(
            [](std::string& text) {
                double v = 0.0;
                if (!CLI::detail::lexical_cast(text, v) || !(v >= kMinDtNs && v <= kMaxDtNs))
                    return std::string("must be a number of nanoseconds in ") + kDtRangeText + ", got " + text;
                return std::string();
            },
            std::string("NS in ") + kDtRangeText));
    cmd->add_option("--seed", a.seed, "Seed of the sample patterns");
    cmd->add_option("--max-edge-m", a.maxEdgeM, "Subdivide until no edge is longer (0: off)")->check(nonNegativeNumber());
    cmd->add_flag("--direct-only", a.directOnly, "Direct light only (indirect = false)");
    cmd->add_flag("--write-kij", a.kij, "Also write the decoded K (N x N) into timeseries.h5 (small scenes)");
    cmd->add_flag("--no-images", a.noImages, "Skip the sensor images");
    cmd->add_flag("--no-timeseries", a.noTimeseries, "Skip timeseries.h5");
    cmd->add_option("--set", a.sets,
                    "Override any scene value: TABLE.KEY=VALUE (TOML value), or a material's as "
                    "material.NAME.KEY=VALUE; repeatable, e.g. --set sensor.mode=amcw "
                    "--set 'light.position=[0,0,1.2]' --set material.wall.reflectance=0.3; tuning.KEY=VALUE "
                    "for the switches of docs/tuning.md");
}

void addBatchAndCacheOptions(CLI::App* cmd, RunArgs& a) {
    cmd->add_option("--kij", a.req.kFormat,
                    "Storage of K: fp32, fp16, lut8-log, lut8-range, lut4-log, lut4-range (default "
                    "lut8-log: 8-bit codes into a per-chunk table spaced in ln K; docs/benchmarks.md, \"K compression\")");
    cmd->add_option("--poses", a.posesFile,
                    "Batch: simulate the scene at every camera pose of this CSV file "
                    "(name,x,y,z,look_x,look_y,look_z[,up_x,up_y,up_z]; 'rsim poses' writes one). K is "
                    "computed once; each pose gets its own results directory, plus batch.csv and batch.h5. "
                    "[[pose]] tables in the scene file do the same");
    cmd->add_option("--mpi-split", a.req.mpiSplit,
                    "Under mpirun: how the ranks share the work. 'rows': each rank owns a block of K's rows "
                    "(its visibility and gathers; far sums exchanged every time block), for a scene too large "
                    "for one machine; 'poses': each rank runs a block of a batch's poses (K from "
                    "the K cache, computed once by rank 0). Default: poses for a batch, rows for one pose")
        ->check(CLI::IsMember({"rows", "poses"}));
    cmd->add_option("--k-cache", a.kCache,
                    "Folder of the K cache: K is stored there after visibility and read back by later runs "
                    "of the same triangles and K settings instead of tracing rays. Where a GPU computes K "
                    "where it lives (the largest scenes), each chunk is kept there as it is cast, and a run "
                    "stopped during visibility goes on from those chunks when started again (default: "
                    "$XDG_CACHE_HOME/rsim/k or ~/.cache/rsim/k)");
    cmd->add_flag("--no-k-cache", a.req.noKCache, "Neither read nor store K in the K cache");
    cmd->add_option("--k-cache-max-gb", a.req.kCacheMaxGb,
                    "Most the K cache may hold; the least recently used files go first")
        ->check(finiteNumber() & CLI::Range(0.0, 1e6))
        ->capture_default_str();
}

void addTuningSwitches(CLI::App* cmd, std::vector<std::string>& values) {
    values.resize(std::size(kTuningSwitches));
    for (std::size_t k = 0; k < std::size(kTuningSwitches); ++k) {
        const TuningSwitch& s = kTuningSwitches[k];
        const std::string help = std::string("= --set tuning.") + s.key + " (docs/tuning.md)";
        if (s.flagValue) cmd->add_flag(s.option, help)->group("");
        else cmd->add_option(s.option, values[k], help)->group("");
    }
}

// Options that would do nothing are errors, not silently ignored.
void checkOptionsApply(CLI::App* cmd, const RunArgs& a) {
    if (a.req.backend.backend == "cpu")
        for (const char* gpuOnly : {"--devices", "--visibility", "--stream", "--max-device-mb", "--validation",
                                    "--pass-blocks", "--max-host-mb"})
            if (cmd->count(gpuOnly))
                throw InputError(std::string(gpuOnly) +
                                 ": only the Vulkan backend uses it; drop it or use --backend vulkan (or auto)");
    if (cmd->count("--mpi-split") && !Ranks::world().many())
        throw InputError("--mpi-split: this is one process; it chooses how the ranks of an MPI job share the "
                         "work (mpirun -np R rsim run ...)");
    if (a.directOnly)
        for (const char* kOption : {"--samples", "--kij", "--chunk-mb", "--kij-errors", "--write-kij", "--k-cache",
                                    "--k-cache-max-gb", "--stream", "--pass-blocks", "--max-host-mb"})
            if (cmd->count(kOption))
                throw InputError(std::string(kOption) + ": sets how K is computed or kept, and --direct-only "
                                                        "computes no K; drop one of them");
    for (const char* named : {"--output", "--k-cache", "--poses"})
        if (cmd->count(named) && cmd->get_option(named)->results().back().empty())
            throw InputError(std::string(named) + " \"\": an empty name; give a path");
}

// Every scene value the command line sets, each with the option as written (for messages).
std::vector<SceneOverride> overridesOf(CLI::App* cmd, const RunArgs& a, const std::vector<std::string>& tuning) {
    std::vector<SceneOverride> out;
    for (const std::string& s : a.sets) {
        const auto eq = s.find('=');
        if (eq == std::string::npos) throw InputError("--set " + s + ": expected TABLE.KEY=VALUE");
        if (s.find_first_of("\r\n") != std::string::npos)
            throw InputError("--set " + s.substr(0, s.find_first_of("\r\n")) +
                             "...: a value must be on one line (a newline would add TOML keys)");
        out.push_back(SceneOverride{s.substr(0, eq), s.substr(eq + 1)});
    }
    auto written = [&](const char* name) {
        const auto& results = cmd->get_option(name)->results();
        return std::string(name) + (results.empty() ? "" : " " + results.back());
    };
    auto add = [&](const char* option, const char* key, const std::string& value) {
        if (cmd->count(option)) out.push_back(SceneOverride{key, value, written(option)});
    };
    add("--samples", "simulation.samples", std::to_string(a.samples));
    add("--direct-samples", "simulation.direct_samples", std::to_string(a.directSamples));
    add("--timesteps", "simulation.timesteps", std::to_string(a.timesteps));
    add("--dt-ns", "simulation.dt_ns", fmtDouble(a.dtNs));
    add("--seed", "simulation.seed", std::to_string(a.seed));
    add("--max-edge-m", "simulation.max_edge_m", fmtDouble(a.maxEdgeM));
    add("--direct-only", "simulation.indirect", "false");
    add("--write-kij", "output.kij", "true");
    add("--no-images", "output.images", "false");
    add("--no-timeseries", "output.timeseries", "false");
    for (std::size_t k = 0; k < std::size(kTuningSwitches); ++k) {
        const TuningSwitch& s = kTuningSwitches[k];
        if (!cmd->count(s.option)) continue;
        out.push_back(SceneOverride{std::string("tuning.") + s.key, s.flagValue ? s.flagValue : tuning[k],
                                    s.flagValue ? std::string(s.option) : written(s.option)});
    }
    checkOverridesOnce(out);
    return out;
}

} // namespace

void addRunCommand(CLI::App& app, CommandAction& action, const std::string& commandLine) {
    auto* cmd = app.add_subcommand("run", "Simulate a scene and write its results directory");
    auto a = std::make_shared<RunArgs>();
    auto tuning = std::make_shared<std::vector<std::string>>();
    a->req.commandLine = commandLine;
    cmd->add_option("scene", a->req.sceneFile, "Scene file (TOML); see scenes/example.toml")->required();
    cmd->add_option("-o,--output", a->output,
                    "Results directory (default: [output] dir of the scene file, relative to it)");
    addDeviceOptions(cmd, *a);
    addSceneOptions(cmd, *a);
    addBatchAndCacheOptions(cmd, *a);
    addTuningSwitches(cmd, *tuning);
    cmd->footer("Command-line values override the scene file's. Every file of the results "
                "directory is described in README.md, \"What a run writes\"; the switches that tune how the "
                "work is done (--set tuning.KEY=VALUE) in docs/tuning.md.\n"
                "Examples:\n"
                "  rsim run scenes/tiny-room/scene.toml --output results/tiny-room\n"
                "  rsim run scene.toml --backend cpu --samples 64 --timesteps 2000\n"
                "  rsim run scene.toml --backend vulkan --visibility pipeline --set tuning.validation=true\n"
                "  rsim run scene.toml --devices all --kij lut8-log --stream auto\n"
                "  rsim poses scene.toml --orbit 32 -o poses.csv && rsim run scene.toml --poses poses.csv --no-timeseries\n"
                "  rsim run scene.toml --direct-only --set light.pulse=gaussian "
                "--set light.pulse_fwhm_ns=1.0");
    cmd->callback([&action, cmd, a, tuning] {
        action = [cmd, a, tuning]() {
            RunRequest& req = a->req;
            checkOptionsApply(cmd, *a);
            req.overrides = overridesOf(cmd, *a, *tuning);
            if (!a->output.empty()) req.outputDir = a->output;
            if (!a->posesFile.empty()) req.posesFile = a->posesFile;
            if (!a->kCache.empty()) {
                if (req.noKCache) throw InputError("--k-cache " + a->kCache + " and --no-k-cache: choose one");
                req.kCacheDir = a->kCache;
            }
            // One run is one process unless asked (tuning.early_exit, docs/tuning.md): before any
            // thread, the command then ends when its results are in place (util/early_exit.h).
            for (const SceneOverride& o : req.overrides)
                if (o.key == "tuning.early_exit" && o.value == "true") earlyexit::forkWorker();
            runSimulation(req);
            return int(kExitOk);
        };
    });
}

} // namespace rsim
