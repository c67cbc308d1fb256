// SPDX-License-Identifier: MIT
#include "util/cancel.h"

#include <csignal>

namespace rsim {
namespace {

volatile std::sig_atomic_t g_stopSignal = 0;

extern "C" void onStopSignal(int sig) {
    g_stopSignal = sig;
    requestCancel();
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
    sa.sa_flags = SA_RESETHAND; // the second signal finds the default action: the process ends
    for (int sig : {SIGINT, SIGTERM, SIGHUP}) ::sigaction(sig, &sa, nullptr);
}

int stopSignal() { return int(g_stopSignal); }

} // namespace rsim
