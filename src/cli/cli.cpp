// SPDX-License-Identifier: MIT
#include "cli/cli.h"

#include <algorithm>
#include <cstdio>
#include <map>

#include <CLI/CLI.hpp>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include "scene/scene_desc.h"
#include "util/did_you_mean.h"
#include "util/error.h"
#include "util/ranks.h"
#include "util/parallel.h"
#include "util/progress.h"

namespace rsim {

int runCli(int argc, char** argv) {
    std::string commandLine;
    for (int i = 0; i < argc; ++i) commandLine += (i ? " " : "") + std::string(argv[i]);

    CLI::App app{"rsim " RSIM_VERSION
                 " - time-resolved light transport as seen by a time-of-flight camera.\n"
                 "Simulates the radiosity response of a triangle scene to a light pulse "
                 "(MODEL.md), and the depth a ToF camera would measure, multipath included.",
                 "rsim"};
    app.require_subcommand(1);
    app.fallthrough(); // global options may also follow the subcommand
    app.set_version_flag("--version", "rsim " RSIM_VERSION);
    std::string logLevel = "info";
    bool quiet = false, noProgress = false;
    unsigned threads = 0;
    app.add_option("--log-level", logLevel, "Logging detail: trace, debug, info, warn, error, off")
        ->check(CLI::IsMember({"trace", "debug", "info", "warn", "error", "off"}))
        ->capture_default_str();
    app.add_flag("-q,--quiet", quiet, "Only warnings and errors; no progress line");
    app.add_flag("--no-progress", noProgress, "No progress line (it only shows on a terminal)");
    app.add_option("--threads", threads, "CPU threads (default: all hardware threads)")
        ->check(CLI::Range(0u, 4096u));
    app.footer("Examples:\n"
               "  rsim generate small-room --output my-room\n"
               "  rsim run scenes/tiny-room/scene.toml --output results/tiny-room\n"
               "  rsim compare results/tiny-room tests/reference/tiny-room\n"
               "  rsim devices\n"
               "  rsim poses scenes/tiny-room/scene.toml --orbit 8 -o poses.csv\n"
               "  rsim run scenes/tiny-room/scene.toml --poses poses.csv --output results/batch\n"
               "Run 'rsim SUBCOMMAND --help' for each subcommand's options.\n"
               "Exit codes: 0 success, 1 run failed, 2 invalid input (scene, mesh, option), "
               "3 'compare' found differences.");

    CommandAction action;
    addRunCommand(app, action, commandLine);
    addCompareCommand(app, action);
    addGenerateCommand(app, action);
    addDevicesCommand(app, action);
    addPosesCommand(app, action);

    // CLI11 would only say "A subcommand is required" for a mistyped one.
    if (argc > 1 && argv[1][0] != '-') {
        std::vector<std::string> names;
        for (const auto* sub : app.get_subcommands({})) names.push_back(sub->get_name());
        if (std::find(names.begin(), names.end(), argv[1]) == names.end()) {
            const std::string hint = didYouMean(argv[1], names);
            std::fprintf(stderr, "rsim: error: unknown subcommand \"%s\"%s; expected one of: run, "
                                 "compare, generate, devices, poses (rsim --help)\n",
                         argv[1], hint.empty() ? "" : (" (did you mean \"" + hint + "\"?)").c_str());
            return kExitBadInput;
        }
    }
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        int code = app.exit(e);
        return code == 0 ? kExitOk : kExitBadInput;
    }

    auto logger = spdlog::stderr_color_mt("rsim");
    logger->set_pattern("%^[%l]%$ %v");
    spdlog::set_default_logger(logger);
    static const std::map<std::string, spdlog::level::level_enum> levels = {
        {"trace", spdlog::level::trace}, {"debug", spdlog::level::debug},
        {"info", spdlog::level::info},   {"warn", spdlog::level::warn},
        {"error", spdlog::level::err},   {"off", spdlog::level::off}};
    // -q is --log-level warn; with a more detailed level asked for too, one of them would be ignored.
    const bool explicitLevel = app.count("--log-level") > 0;
    if (quiet && explicitLevel && levels.at(logLevel) < spdlog::level::warn)
        throw InputError("-q and --log-level " + logLevel + ": choose one (-q means --log-level warn)");
    spdlog::set_level(quiet && !explicitLevel ? spdlog::level::warn : levels.at(logLevel));
    // Debug lines carry the time of day to the millisecond: where a run spends its time between
    // the phases shows in the gaps.
    if (spdlog::get_level() <= spdlog::level::debug) logger->set_pattern("%^[%l]%$ %H:%M:%S.%e %v");
    setProgressEnabled(!quiet && !noProgress);
    // Under MPI, rank 0 speaks for the job; the others report warnings and errors only.
    if (Ranks::world().rank() > 0) {
        if (spdlog::get_level() < spdlog::level::warn) spdlog::set_level(spdlog::level::warn);
        setProgressEnabled(false);
    }
    if (threads) setThreadCount(threads);
    return action ? action() : kExitOk;
}

} // namespace rsim
