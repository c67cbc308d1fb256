// SPDX-License-Identifier: MIT
#include <cstdint>
#include <cstdio>
#include <exception>
#include <string>

#include "cli/cli.h"
#include "util/cancel.h"
#include "util/error.h"
#include "util/host_memory.h"
#include "util/ranks.h"
#include "util/startup_times.h"

namespace {

// Under MPI, a rank that fails ends the whole job (never a hang of the others in a collective),
// with a message that names it.
int fail(int exitCode, const std::string& message) {
    const rsim::Ranks* ranks = nullptr;
    try {
        ranks = &rsim::Ranks::world();
    } catch (...) { // MPI itself failed to start: one process, as far as this one knows
    }
    if (ranks && ranks->many()) {
        std::fprintf(stderr, "rsim: rank %d of %d: %s\n", ranks->rank(), ranks->size(), message.c_str());
        std::fflush(stderr);
        ranks->abortAll(exitCode);
        return exitCode;
    }
    std::fprintf(stderr, "rsim: %s\n", message.c_str());
    return exitCode;
}

// The numbers behind an allocation that failed: what this process held and what was left.
std::string outOfMemory() {
    const double gib = 1024.0 * 1024.0 * 1024.0;
    const rsim::ProcessMemory held = rsim::processMemory();
    const std::uint64_t left = rsim::availableHostBytes();
    char text[320];
    std::snprintf(text, sizeof text,
                  "error: out of memory: this process held %.2f GiB (%.2f GiB mapped) and %.2f GiB were still "
                  "available (the machine's free memory, a cgroup's limit or ulimit -v). The estimate at the start "
                  "of the run (--log-level debug) says what it holds: lower the timesteps, the resolution, the "
                  "transient or the poses per call",
                  double(held.residentBytes) / gib, double(held.mappedBytes) / gib, double(left) / gib);
    return text;
}

} // namespace

int main(int argc, char** argv) {
    rsim::noteStartup("process start to main", rsim::secondsSinceProcessStart());
    rsim::installStopSignalHandlers();
    try {
        rsim::Ranks::world(); // MPI set up first, when started by mpirun
        return rsim::runCli(argc, argv);
    } catch (const rsim::Interrupted&) {
        // Stopped by a signal: the run unwound and removed what it had half-written.
        const int sig = rsim::stopSignal();
        // Under MPI the other ranks may be waiting in a collective for this one (the signal may
        // reach them later, or not at all): the job ends here too, after this rank's unwinding.
        return fail(sig > 0 ? 128 + sig : rsim::kExitFailure,
                    "stopped by signal " + std::to_string(sig) + "; results being written were removed");
    } catch (const rsim::Error& e) {
        return fail(e.exitCode(), std::string("error: ") + e.what());
    } catch (const std::bad_alloc&) {
        return fail(rsim::kExitFailure, outOfMemory());
    } catch (const std::exception& e) {
        return fail(rsim::kExitFailure, std::string("internal error: ") + e.what());
    }
}
