// SPDX-License-Identifier: MIT
// Runs a piece of work in a child process, so that a crash or a hang inside a library we do not
// control (assimp, on a malformed mesh file) becomes an error of ours instead of taking the
// whole process down. The work returns bytes; the caller decodes them.
#pragma once
#include <cstdint>
#include <functional>
#include <string>

namespace rsim {

struct IsolatedOutcome {
    enum class Kind { Done, Failed, Crashed, TimedOut } kind = Kind::Done;
    std::string bytes;   // Done: what the work returned
    std::string message; // Failed: the work's exception message; Crashed: the signal or exit status
};

// Forks; the child runs `work` and sends its result (or the message of an exception it threw)
// back through a pipe, then leaves with _exit. The parent waits at most `timeoutSeconds`, then
// kills the child. With `memoryBytes`, the child may map at most that much beyond what it
// inherited (RLIMIT_AS; not under AddressSanitizer, whose shadow memory it would forbid): past
// it, allocations fail (std::bad_alloc) instead of the machine running out. The child must not log or touch state shared with the parent (GPU devices,
// files open for writing): it only computes. Nothing is isolated when RSIM_NO_ISOLATION is set
// in the environment (for debuggers): then `work` runs here and its exceptions propagate.
IsolatedOutcome runIsolated(const std::function<std::string()>& work, double timeoutSeconds,
                            std::uint64_t memoryBytes = 0);

// True unless RSIM_NO_ISOLATION is set.
bool isolationEnabled();

} // namespace rsim
