// SPDX-License-Identifier: MIT
#include "util/early_exit.h"

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/error.h"
#include "util/host_memory.h"
#include "util/ranks.h"

namespace rsim::earlyexit {
namespace {

constexpr unsigned kReleaseLimitSeconds = 120;
int g_notifyFd = -1;            // the worker's end of the pipe (-1: not a worker, or already said)
volatile pid_t g_worker = 0;    // in the parent: the worker, for the signal handler

std::size_t threadsNow() {
    std::error_code ec;
    std::size_t n = 0;
    for (std::filesystem::directory_iterator it("/proc/self/task", ec), end; !ec && it != end; it.increment(ec)) ++n;
    return ec ? 0 : n; // 0: unknown
}

// For the test of this file's promise (tests/test_early_exit.cpp): with RSIM_TEST_HOLD_RELEASE=DIR
// the worker writes its pid to DIR/worker.pid before its word, then waits (at most a minute) for
// DIR/go before it goes on to the release.
const char* testHoldDir() { return std::getenv("RSIM_TEST_HOLD_RELEASE"); }
void tellTestWho(const std::filesystem::path& dir) {
    if (FILE* f = std::fopen((dir / "worker.pid").c_str(), "w")) {
        std::fprintf(f, "%d\n", int(::getpid()));
        std::fclose(f);
    }
}
void waitForTest(const std::filesystem::path& dir) {
    for (int i = 0; i < 6000 && !std::filesystem::exists(dir / "go"); ++i) ::usleep(10000);
}

extern "C" void passOn(int sig) {
    if (g_worker > 0) ::kill(g_worker, sig); // async-signal-safe
}

// The parent: waits for the worker's word or its end, and ends as the worker would have.
[[noreturn]] void parentMain(int readFd) {
    struct sigaction sa {};
    sa.sa_handler = passOn;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    for (int sig : {SIGINT, SIGTERM, SIGHUP}) ::sigaction(sig, &sa, nullptr);
    unsigned char code = 0;
    ssize_t r;
    do r = ::read(readFd, &code, 1);
    while (r < 0 && errno == EINTR);
    if (r == 1) ::_exit(code);
    // The pipe closed without a word: the worker has ended (or is ending) on its own.
    int status = 0;
    while (::waitpid(g_worker, &status, 0) < 0)
        if (errno != EINTR) ::_exit(kExitFailure);
    if (WIFEXITED(status)) ::_exit(WEXITSTATUS(status));
    if (WIFSIGNALED(status)) { // the same signal, so that a shell reports it as it would have
        const int sig = WTERMSIG(status);
        ::signal(sig, SIG_DFL);
        sigset_t one;
        sigemptyset(&one);
        sigaddset(&one, sig);
        ::sigprocmask(SIG_UNBLOCK, &one, nullptr);
        ::raise(sig);
    }
    ::_exit(kExitFailure);
}

} // namespace

void forkWorker() {
#if defined(__SANITIZE_ADDRESS__)
    // Under the sanitizers (scripts/sanitize.sh) one process: their reports at its end (leaks,
    // an error in the release) must reach the command's output and exit code.
    return;
#endif
    if (startedByMpiLauncher() || threadsNow() != 1) return;
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) return;
    std::fflush(nullptr); // nothing buffered before the fork is written twice
    const pid_t parent = ::getpid();
    const pid_t child = ::fork();
    if (child < 0) { // no fork: this process runs the command and ends as before
        ::close(fds[0]);
        ::close(fds[1]);
        return;
    }
    if (child > 0) {
        ::close(fds[1]);
        g_worker = child;
        parentMain(fds[0]);
    }
    ::close(fds[0]);
    // A parent killed outright (SIGKILL) takes the run with it, as one process would have ended.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(kExitFailure); // it died before the line above
    g_notifyFd = fds[1];
}

void resultsInPlace(std::uint64_t deviceBytes) {
    if (g_notifyFd < 0 || deviceBytes > kMaxDeviceBytes) return;
    const std::uint64_t resident = processMemory().residentBytes;
    if (resident == 0 || resident > kMaxHostBytes) return; // 0: unknown
    ::prctl(PR_SET_PDEATHSIG, 0); // the parent's exit must not end the release
    std::fflush(nullptr);
    // The command's output ends here for whoever reads it: the release is silent.
    const int null = ::open("/dev/null", O_RDWR | O_CLOEXEC);
    if (null >= 0) {
        for (int fd = 0; fd <= 2; ++fd) ::dup2(null, fd);
        ::close(null);
    }
    const char* hold = testHoldDir();
    if (hold) tellTestWho(hold);
    const unsigned char ok = kExitOk;
    ssize_t w;
    do w = ::write(g_notifyFd, &ok, 1);
    while (w < 0 && errno == EINTR);
    ::close(g_notifyFd);
    g_notifyFd = -1;
    if (hold) waitForTest(hold);
    // Nobody waits for the release now: one that hangs in a driver ends with the process here.
    ::alarm(kReleaseLimitSeconds);
}

} // namespace rsim::earlyexit
