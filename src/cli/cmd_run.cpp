// SPDX-License-Identifier: MIT
#include <cstdio>

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

} // namespace

void addRunCommand(CLI::App& app, CommandAction& action, const std::string& commandLine) {
    auto* cmd = app.add_subcommand("run", "Simulate a scene and write its results directory");
    auto req = std::make_shared<RunRequest>();
    req->commandLine = commandLine;
    auto output = std::make_shared<std::string>();
    auto sets = std::make_shared<std::vector<std::string>>();
    struct Numbers {
        std::uint32_t samples = 0, directSamples = 0, timesteps = 0, seed = 0;
        double dtNs = 0.0, maxEdgeM = -1.0;
        bool seedSet = false, directOnly = false, kij = false, noImages = false, noTimeseries = false;
        bool exitAfterRelease = false;
    };
    auto num = std::make_shared<Numbers>();

    cmd->add_option("scene", req->sceneFile, "Scene file (TOML); see scenes/example.toml")
        ->required();
    cmd->add_option("-o,--output", *output,
                    "Results directory (default: [output] dir of the scene file, relative to it)");
    cmd->add_option("-b,--backend", req->backend.backend,
                    "auto: the best Vulkan GPU, else the CPU (a software Vulkan device such as lavapipe is "
                    "slower than the CPU backend: only with --backend vulkan or --devices); cpu: the CPU "
                    "reference (Embree); vulkan: a Vulkan device or fail")
        ->check(CLI::IsMember({"auto", "cpu", "vulkan"}))
        ->capture_default_str();
    cmd->add_option("--devices", req->backend.devices,
                    "Vulkan devices: auto (the best), all (every GPU), or indices from 'rsim devices' "
                    "(0,1; an index may repeat: each entry is its own VkDevice)")
        ->capture_default_str();
    cmd->add_option("--visibility", req->backend.visibility,
                    "Ray path on the GPU: auto (ray queries when the device has them, else bvh), "
                    "ray-query, pipeline (the driver's ray-tracing pipeline), or bvh (rsim's own BVH "
                    "traversed by compute shaders: no ray-tracing extension, a device created sooner; "
                    "faster than the pipeline on GPUs without RT cores such as the H100)")
        ->check(CLI::IsMember({"auto", "ray-query", "pipeline", "bvh"}))
        ->capture_default_str();
    cmd->add_option("--stream", req->backend.stream,
                    "K in host memory, streamed to the GPU every 8 timesteps: auto (only when it "
                    "does not fit the device), always (to measure it), never (fail if it does not fit)")
        ->check(CLI::IsMember({"auto", "always", "never"}))
        ->capture_default_str();
    cmd->add_option("--pass-blocks", req->backend.passBlocks,
                    "With K streamed or on several GPUs: gather this many 8-step time blocks per pass "
                    "over K (1 to 4), so K is copied (streaming is bound by the PCIe link) and far sums "
                    "exchanged once per pass; more turn more pairs into near pairs, gathered step by step. "
                    "0: 4 when K is streamed, else 2")
        ->check(CLI::Range(0u, 4u))
        ->capture_default_str();
    cmd->add_option("--max-device-mb", req->backend.maxDeviceMb,
                    "Use at most this many MiB on each GPU (0: its memory budget); below K's size, "
                    "--stream auto streams")
        ->check(nonNegativeNumber());
    cmd->add_option("--max-host-mb", req->backend.maxHostMb,
                    "Host memory K's computation may take, in MiB (0: half the memory available at the start, a "
                    "cgroup's limit included). Several GPUs that each hold their rows of K in fp32 swap half "
                    "blocks of it through host memory (about a quarter of K's fp32 size for two GPUs); streaming, or "
                    "GPUs that cannot hold their rows, assemble K in fp32 there. When that needs more, each GPU "
                    "computes the full rows of its own K chunks instead: host memory stays small, at the price "
                    "of casting every pair twice")
        ->check(nonNegativeNumber());
    cmd->add_option("--radiosity-split", req->backend.radiositySplit,
                    "Tuning: source slices per workgroup of the GPU's far gather (0: the most the device "
                    "allows; in pose lanes 2); for sweeps, see scripts/device/gpu-run.sh split")
        ->check(CLI::Range(0u, 32u))
        ->capture_default_str();
    cmd->add_option("--radiosity-poses", req->backend.radiosityPoses,
                    "Tuning: poses per invocation of a batch's far gather (1, 2 or 4; 0: the default); "
                    "see scripts/batch_benchmark.py")
        ->check(CLI::IsMember({0u, 1u, 2u, 4u}))
        ->capture_default_str();
    cmd->add_option("--radiosity-lanes", req->backend.radiosityLanes,
                    "Tuning: on the GPU, a batch group of a multiple of 32 poses gathers with poses as "
                    "the lanes of a warp (auto), or as one pose per invocation like smaller groups (off)")
        ->check(CLI::IsMember({"auto", "off"}))
        ->capture_default_str();
    cmd->add_option("--radiosity-lane-receivers", req->backend.laneReceivers,
                    "Tuning: receivers per workgroup of the pose lanes' far gather (0: the default, 8 on "
                    "a GPU); --radiosity-split sets its source slices (0: 2)")
        ->check(CLI::Range(0u, 32u))
        ->capture_default_str();
    cmd->add_option("--radiosity-unroll", req->backend.radiosityUnroll,
                    "Tuning: sources per loop trip of the GPU's far gather (0: the default, 1; in pose lanes "
                    "4, at most 8)")
        ->check(CLI::Range(0u, 16u))
        ->capture_default_str();
    cmd->add_flag("--validation", req->backend.validation,
                  "Run under the Khronos validation layer and report its errors (slow)");
    cmd->add_option("--samples", num->samples, "S, samples per triangle pair for K_ij, half from each side")
        ->check(CLI::Range(1u, 1u << 20));
    cmd->add_option("--direct-samples", num->directSamples, "Samples per triangle, light/sensor")
        ->check(CLI::Range(1u, 1u << 20));
    cmd->add_option("--timesteps", num->timesteps, "T, number of timesteps")
        ->check(CLI::Range(1u, 10000000u));
    cmd->add_option("--dt-ns", num->dtNs, std::string("Timestep in nanoseconds, in ") + kDtRangeText)
        ->check(CLI::Validator(
            [](std::string& text) {
                double v = 0.0;
                if (!CLI::detail::lexical_cast(text, v) || !(v >= kMinDtNs && v <= kMaxDtNs))
                    return std::string("must be a number of nanoseconds in ") + kDtRangeText + ", got " + text;
                return std::string();
            },
            std::string("NS in ") + kDtRangeText));
    cmd->add_option("--seed", num->seed, "Seed of the sample patterns");
    cmd->add_option("--max-edge-m", num->maxEdgeM, "Subdivide until no edge is longer (0: off)")
        ->check(nonNegativeNumber());
    cmd->add_flag("--direct-only", num->directOnly, "Direct light only (indirect = false)");
    cmd->add_option("--kij", req->kFormat,
                    "Storage of K: fp32, fp16, lut8-log, lut8-range, lut4-log, lut4-range (default "
                    "lut8-log: 8-bit codes into a per-chunk table spaced in ln K; see docs/benchmarks.md)");
    cmd->add_option("--chunk-mb", req->chunkMb,
                    "K chunk size in MiB: rows per look-up table (and per streamed chunk)")
        ->check(finiteNumber() & CLI::Range(0.001, 1048576.0))
        ->capture_default_str();
    cmd->add_flag("--kij-errors", req->kFormatErrors,
                  "With --kij fp32: report every format's error against this K in summary.json "
                  "(k_format_errors; for scripts/kij_accuracy_study.py)");
    cmd->add_flag("--write-kij", num->kij, "Also write the decoded K (N x N) into timeseries.h5 (small scenes)");
    cmd->add_flag("--no-images", num->noImages, "Skip the sensor images");
    cmd->add_flag("--no-timeseries", num->noTimeseries, "Skip timeseries.h5");
    auto posesFile = std::make_shared<std::string>();
    cmd->add_option("--poses", *posesFile,
                    "Batch: simulate the scene at every camera pose of this CSV file "
                    "(name,x,y,z,look_x,look_y,look_z[,up_x,up_y,up_z]; 'rsim poses' writes one). K is "
                    "computed once; each pose gets its own results directory, plus batch.csv and batch.h5. "
                    "[[pose]] tables in the scene file do the same");
    cmd->add_option("--pose-group", req->maxPoseGroup,
                    "Batch: poses whose transport runs at once, at most (default: as many as memory allows)")
        ->check(CLI::Range(1u, 1u << 20));
    cmd->add_option("--writers", req->writers,
                    "Batch: background threads that write the poses' files while the next poses run "
                    "(default: one per CPU thread, at most 16, with the transport on a GPU; half the threads, at most 8, "
                    "on the CPU backend; one where HDF5 is not thread-safe)")
        ->check(CLI::Range(1u, 256u));
    cmd->add_option("--mpi-split", req->mpiSplit,
                    "Under mpirun: how the ranks share the work. 'rows': each rank owns a block of K's rows "
                    "(its visibility and gathers; far sums exchanged every time block), for a scene too large "
                    "for one machine; 'poses': each rank runs a block of a batch's poses (K from "
                    "the K cache, computed once by rank 0). Default: poses for a batch, rows for one pose")
        ->check(CLI::IsMember({"rows", "poses"}));
    auto kCache = std::make_shared<std::string>();
    cmd->add_option("--k-cache", *kCache,
                    "Folder of the K cache: K is stored there after visibility and read back by later runs "
                    "of the same triangles and K settings instead of tracing rays (default: "
                    "$XDG_CACHE_HOME/rsim/k or ~/.cache/rsim/k)");
    cmd->add_flag("--no-k-cache", req->noKCache, "Neither read nor store K in the K cache");
    cmd->add_option("--host-rays", req->hostRays,
                    "GPU runs that cast few rays: 'auto' casts them on the CPU when they take it well under "
                    "0.2 s, and creates the GPU without ray tracing, which starts 0.2 s sooner on NVIDIA's "
                    "driver: the direct terms' and the image's rays when K comes from the K cache, and K's "
                    "as well when the scene is small (a few hundred triangles on 16 threads; not on the bvh "
                    "path, whose device costs no more with rays; such a K is not stored in the cache); "
                    "'always' does so whatever their number (tests; K while its fp32 "
                    "copy takes at most a quarter of the free host memory); 'never' "
                    "casts every ray on the GPU, so that a run from the cache repeats the run that stored K "
                    "bit for bit")
        ->check(CLI::IsMember({"auto", "always", "never"}))
        ->capture_default_str();
    cmd->add_option("--k-cache-max-gb", req->kCacheMaxGb,
                    "Most the K cache may hold; the least recently used files go first")
        ->check(finiteNumber() & CLI::Range(0.0, 1e6))
        ->capture_default_str();
    cmd->add_flag("--exit-after-release", num->exitAfterRelease,
                  "End only when the devices and memory are released. By default a run whose devices "
                  "hold at most 4 GiB, and the process as much, ends as soon as its results, log and "
                  "caches are in place, and a child process it forked at the start releases them unseen "
                  "(0.04-0.05 s of a driver's teardown on an H100): 'time' then measures the parent only");
    cmd->add_option("--set", *sets,
                    "Override any scene value: TABLE.KEY=VALUE (TOML value), or a material's as "
                    "material.NAME.KEY=VALUE; repeatable, e.g. --set sensor.mode=amcw "
                    "--set 'light.position=[0,0,1.2]' --set material.wall.reflectance=0.3");
    cmd->footer("Command-line values override the scene file's. Every file of the results "
                "directory is described in README.md, \"What a run writes\".\n"
                "Examples:\n"
                "  rsim run scenes/tiny-room/scene.toml --output results/tiny-room\n"
                "  rsim run scene.toml --backend cpu --samples 64 --timesteps 2000\n"
                "  rsim run scene.toml --backend vulkan --visibility pipeline --validation\n"
                "  rsim run scene.toml --devices all --kij lut8-log --stream auto\n"
                "  rsim poses scene.toml --orbit 32 -o poses.csv && rsim run scene.toml --poses poses.csv --no-timeseries\n"
                "  rsim run scene.toml --direct-only --set light.pulse=gaussian "
                "--set light.pulse_fwhm_ns=1.0");
    cmd->callback([&action, cmd, req, output, sets, num, posesFile, kCache] {
        action = [cmd, req, output, sets, num, posesFile, kCache]() {
            // Errors about these values name the option as written, not a scene-file line.
            auto add = [&](const char* key, const std::string& value, const std::string& option) {
                req->overrides.push_back(SceneOverride{key, value, option});
            };
            // Options that only a Vulkan backend uses are errors with --backend cpu, not silently
            // ignored.
            if (req->backend.backend == "cpu")
                for (const char* gpuOnly : {"--devices", "--visibility", "--stream", "--max-device-mb", "--validation",
                                            "--pass-blocks", "--max-host-mb"})
                    if (cmd->count(gpuOnly))
                        throw InputError(std::string(gpuOnly) +
                                         ": only the Vulkan backend uses it; drop it or use --backend vulkan (or auto)");
            if (cmd->count("--mpi-split") && !Ranks::world().many())
                throw InputError("--mpi-split: this is one process; it chooses how the ranks of an MPI job share the "
                                 "work (mpirun -np R rsim run ...)");
            if (req->kFormatErrors && req->kFormat != "fp32")
                throw InputError("--kij-errors measures every format against fp32 K, so it needs --kij fp32 (now " +
                                 (req->kFormat.empty() ? std::string("the default, lut8-log") : "--kij " + req->kFormat) +
                                 ")");
            // Options that would do nothing are errors, not silently ignored.
            if (num->directOnly)
                for (const char* kOption : {"--samples", "--kij", "--chunk-mb", "--kij-errors", "--write-kij", "--k-cache",
                                            "--k-cache-max-gb", "--stream", "--pass-blocks", "--max-host-mb"})
                    if (cmd->count(kOption))
                        throw InputError(std::string(kOption) + ": sets how K is computed or kept, and --direct-only "
                                                                "computes no K; drop one of them");
            for (const char* named : {"--output", "--k-cache", "--poses"})
                if (cmd->count(named) && cmd->get_option(named)->results().back().empty())
                    throw InputError(std::string(named) + " \"\": an empty name; give a path");
            for (const std::string& s : *sets) {
                auto eq = s.find('=');
                if (eq == std::string::npos)
                    throw InputError("--set " + s + ": expected TABLE.KEY=VALUE");
                if (s.find_first_of("\r\n") != std::string::npos)
                    throw InputError("--set " + s.substr(0, s.find_first_of("\r\n")) +
                                     "...: a value must be on one line (a newline would add TOML keys)");
                req->overrides.push_back(SceneOverride{s.substr(0, eq), s.substr(eq + 1)});
            }
            // The option as the user wrote it, for messages.
            auto written = [&](const char* name) {
                const auto& results = cmd->get_option(name)->results();
                return std::string(name) + " " + (results.empty() ? "" : results.back());
            };
            if (cmd->count("--samples"))
                add("simulation.samples", std::to_string(num->samples), written("--samples"));
            if (cmd->count("--direct-samples"))
                add("simulation.direct_samples", std::to_string(num->directSamples),
                    written("--direct-samples"));
            if (cmd->count("--timesteps"))
                add("simulation.timesteps", std::to_string(num->timesteps), written("--timesteps"));
            if (cmd->count("--dt-ns"))
                add("simulation.dt_ns", fmtDouble(num->dtNs), written("--dt-ns"));
            if (cmd->count("--seed"))
                add("simulation.seed", std::to_string(num->seed), written("--seed"));
            if (cmd->count("--max-edge-m"))
                add("simulation.max_edge_m", fmtDouble(num->maxEdgeM), written("--max-edge-m"));
            if (num->directOnly) add("simulation.indirect", "false", "--direct-only");
            if (num->kij) add("output.kij", "true", "--write-kij");
            if (num->noImages) add("output.images", "false", "--no-images");
            if (num->noTimeseries) add("output.timeseries", "false", "--no-timeseries");
            checkOverridesOnce(req->overrides);
            if (!output->empty()) req->outputDir = *output;
            if (!posesFile->empty()) req->posesFile = *posesFile;
            if (!kCache->empty()) {
                if (req->noKCache) throw InputError("--k-cache " + *kCache + " and --no-k-cache: choose one");
                req->kCacheDir = *kCache;
            }
            // Before any thread: the command ends when its results are in place (util/early_exit.h).
            if (!num->exitAfterRelease) earlyexit::forkWorker();
            runSimulation(*req);
            return int(kExitOk);
        };
    });
}

} // namespace rsim
