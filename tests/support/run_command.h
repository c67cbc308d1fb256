// SPDX-License-Identifier: MIT
// Runs the rsim binary (or any shell command) and captures its output and exit code.
#pragma once
#include <string>

namespace rsim::test {

struct CommandResult {
    int exitCode = -1;
    std::string output; // stdout and stderr together
};

CommandResult runCommand(const std::string& command);
// The built rsim binary followed by `args`.
CommandResult runRsim(const std::string& args);

} // namespace rsim::test
