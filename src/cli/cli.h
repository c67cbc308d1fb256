// SPDX-License-Identifier: MIT
// The `rsim` command line: one function per subcommand registers its options and its action.
#pragma once
#include <functional>
#include <string>

namespace CLI {
class App;
}

namespace rsim {

// Parses argv and runs the chosen subcommand; returns the process exit code. Errors that stop
// a run are rsim::Error exceptions, turned into messages by main().
int runCli(int argc, char** argv);

// Set by a subcommand's callback: what to run once parsing (and global options) are done.
using CommandAction = std::function<int()>;

void addRunCommand(CLI::App& app, CommandAction& action, const std::string& commandLine);
void addCompareCommand(CLI::App& app, CommandAction& action);
void addGenerateCommand(CLI::App& app, CommandAction& action);
void addDevicesCommand(CLI::App& app, CommandAction& action);
void addPosesCommand(CLI::App& app, CommandAction& action);

} // namespace rsim
