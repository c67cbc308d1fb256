// SPDX-License-Identifier: MIT
// A request to stop a run (Ctrl-C in `import rsim`, python/module.cpp): the long phases check
// it where they report progress (util/progress.h) and unwind with Interrupted. Unwinding frees
// device memory only after the device's work on it is done (timeline semaphores wait in their
// destructors, declared after the buffers they guard).
#pragma once
#include <atomic>

#include "util/error.h"

namespace rsim {

std::atomic<bool>& cancelFlag();
// Safe to call from a signal handler.
inline void requestCancel() { cancelFlag().store(true, std::memory_order_relaxed); }
inline void clearCancel() { cancelFlag().store(false, std::memory_order_relaxed); }
inline bool cancelRequested() { return cancelFlag().load(std::memory_order_relaxed); }

// The command-line program's handlers for SIGINT, SIGTERM and SIGHUP: the first one asks the run
// to stop (it unwinds, removing what it had half-written); a second one ends the process at once,
// unless it comes within half a second of the first (the same stop, sent to the process and to
// its process group, as GNU timeout does).
void installStopSignalHandlers();
// The signal that asked to stop, or 0.
int stopSignal();

class Interrupted : public Error {
public:
    Interrupted() : Error("interrupted") {}
};

// Throws Interrupted when a stop was requested.
inline void checkCancel() {
    if (cancelRequested()) throw Interrupted();
}

} // namespace rsim
