// SPDX-License-Identifier: MIT
#include "util/cancel.h"

#include <algorithm>
#include <csignal>
#include <ctime>

namespace rsim {
namespace {

volatile std::sig_atomic_t g_stopSignal = 0;
// When the first stop signal came (CLOCK_MONOTONIC, ns).
std::atomic<long long> g_firstStopNs{0};
static_assert(std::atomic<long long>::is_always_lock_free, "the signal handler needs a lock-free clock value");

// A signal sent to a process and to its process group at once (GNU timeout does, and so does a
// shell that forwards one) arrives twice within microseconds: the second copy is not the user
// insisting. It is ignored for this long after the first.
constexpr long long kSameStopNs = 500'000'000;

long long monotonicNs() {
    timespec t{};
    ::clock_gettime(CLOCK_MONOTONIC, &t); // async-signal-safe
    return static_cast<long long>(t.tv_sec) * 1'000'000'000LL + t.tv_nsec;
}

extern "C" void onStopSignal(int sig) {
    // max(1, ...): 0 means "no stop yet". The first copy claims the time in one step, so that a
    // copy handled at the same moment on another thread sees it.
    const long long now = std::max(1LL, monotonicNs());
    long long none = 0;
    if (g_firstStopNs.compare_exchange_strong(none, now)) {
        g_stopSignal = sig;
        requestCancel();
        return;
    }
    if (now - g_firstStopNs.load() < kSameStopNs) return;
    // A second stop, later: the default action ends the process at once.
    ::signal(sig, SIG_DFL);
    ::raise(sig);
}

} // namespace

std::atomic<bool>& cancelFlag() {
    static std::atomic<bool> flag{false};
    return flag;
}

void installStopSignalHandlers() {
    (void)cancelFlag(); // constructed before any handler may touch it
    struct sigaction sa {};
    sa.sa_handler = onStopSignal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = 0; // a later second signal ends the process (onStopSignal)
    for (int sig : {SIGINT, SIGTERM, SIGHUP}) ::sigaction(sig, &sa, nullptr);
}

int stopSignal() { return int(g_stopSignal); }

} // namespace rsim
