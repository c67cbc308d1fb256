// SPDX-License-Identifier: MIT
#include <cstdio>
#include <exception>

#include "cli/cli.h"
#include "util/error.h"
#include "util/startup_times.h"

int main(int argc, char** argv) {
    rsim::noteStartup("process start to main", rsim::secondsSinceProcessStart());
    try {
        return rsim::runCli(argc, argv);
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
