// SPDX-License-Identifier: MIT
// One error channel for the whole program: everything that stops a run is an exception that
// carries the exit code; main() turns it into a message on stderr and that code.
#pragma once
#include <stdexcept>
#include <string>

namespace rsim {

// Process exit codes (documented in README.md).
enum ExitCode : int {
    kExitOk = 0,
    kExitFailure = 1,   // a run failed for a reason that is not the input's (I/O, device, bug)
    kExitBadInput = 2,  // the scene, a mesh or a command-line value is invalid
    kExitDifferent = 3, // `rsim compare`: results differ beyond the tolerances
};

class Error : public std::runtime_error {
public:
    explicit Error(const std::string& what, int exitCode = kExitFailure)
        : std::runtime_error(what), exitCode_(exitCode) {}
    int exitCode() const { return exitCode_; }

private:
    int exitCode_;
};

// Invalid user input: the message says which file, which key or value, and what was expected.
class InputError : public Error {
public:
    explicit InputError(const std::string& what) : Error(what, kExitBadInput) {}
};

} // namespace rsim
