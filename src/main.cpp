// SPDX-License-Identifier: MIT
#include <cstdio>
#include <exception>

#include "cli/cli.h"
#include "util/cancel.h"
#include "util/error.h"
#include "util/startup_times.h"

int main(int argc, char** argv) {
    rsim::noteStartup("process start to main", rsim::secondsSinceProcessStart());
    rsim::installStopSignalHandlers();
    try {
        return rsim::runCli(argc, argv);
    } catch (const rsim::Interrupted&) {
        // Stopped by a signal: the run unwound and removed what it had half-written.
        const int sig = rsim::stopSignal();
        std::fprintf(stderr, "rsim: stopped by signal %d; results being written were removed\n", sig);
        return sig > 0 ? 128 + sig : rsim::kExitFailure;
    } catch (const rsim::Error& e) {
        std::fprintf(stderr, "rsim: error: %s\n", e.what());
        return e.exitCode();
    } catch (const std::bad_alloc&) {
        std::fprintf(stderr, "rsim: error: out of memory\n");
        return rsim::kExitFailure;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "rsim: internal error: %s\n", e.what());
        return rsim::kExitFailure;
    }
}
