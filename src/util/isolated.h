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

// Work in a child process, in two steps: the constructor forks, and the child runs `work` and
// sends its result (or the message of an exception it threw) back through a pipe, then leaves
// with _exit; finish() waits for the answer. Several can run at once, and the parent is free in
// between: a fork is safe only while no other thread of the parent allocates (under
// AddressSanitizer a child inherited a lock that was never released), so a caller starts its
// children first and its threads after them.
//
// finish() waits at most `timeoutSeconds` from its own call (a child that waited on a full pipe
// while the parent read another child's answer is not charged for it), then kills the child.
// With `memoryBytes`, the child may map at most that much beyond what it inherited (RLIMIT_AS;
// not under AddressSanitizer, whose shadow memory it would forbid): past it, allocations fail
// (std::bad_alloc) instead of the machine running out. The child must not log or touch state
// shared with the parent (GPU devices, files open for writing): it only computes. Nothing is
// isolated when RSIM_NO_ISOLATION is set in the environment (for debuggers): then `work` runs
// in finish() and its exceptions propagate. A run that is not finished is killed and reaped by
// the destructor.
class IsolatedRun {
public:
    IsolatedRun(std::function<std::string()> work, double timeoutSeconds, std::uint64_t memoryBytes = 0);
    ~IsolatedRun();
    IsolatedRun(IsolatedRun&& other) noexcept;
    IsolatedRun& operator=(IsolatedRun&&) = delete;
    IsolatedRun(const IsolatedRun&) = delete;
    IsolatedRun& operator=(const IsolatedRun&) = delete;

    // The child's outcome; once.
    IsolatedOutcome finish();

private:
    std::function<std::string()> work_; // RSIM_NO_ISOLATION: run by finish()
    double timeoutSeconds_;
    int pid_ = -1; // the child, until reaped
    int fd_ = -1;  // the pipe's read end
};

// IsolatedRun's two steps at once.
IsolatedOutcome runIsolated(const std::function<std::string()>& work, double timeoutSeconds,
                            std::uint64_t memoryBytes = 0);

// True unless RSIM_NO_ISOLATION is set.
bool isolationEnabled();

} // namespace rsim
