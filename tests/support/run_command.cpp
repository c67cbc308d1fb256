// SPDX-License-Identifier: MIT
#include "support/run_command.h"

#include "support/test_scenes.h"

#include <cstdio>
#include <sys/wait.h>

namespace rsim::test {

CommandResult runCommand(const std::string& command) {
    CommandResult r;
    FILE* pipe = popen((command + " 2>&1").c_str(), "r");
    if (!pipe) return r;
    char buf[4096];
    std::size_t got;
    while ((got = std::fread(buf, 1, sizeof buf, pipe)) > 0) r.output.append(buf, got);
    const int status = pclose(pipe);
    r.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return r;
}

CommandResult runRsim(const std::string& args) {
    // Each run gets an empty default K cache of its own: tests neither write into the user's
    // cache nor depend on what earlier tests left there (tests of the cache name --k-cache).
    const TempDir cache;
    return runCommand("XDG_CACHE_HOME='" + cache.path().string() + "' " + std::string(RSIM_BINARY) + " " + args);
}

} // namespace rsim::test
