// SPDX-License-Identifier: MIT
#include "util/isolated.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <exception>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/cancel.h"
#include "util/host_memory.h"

// Set by the sanitizers' runtime when there is one (weak: null otherwise).
extern "C" void __sanitizer_set_death_callback(void (*callback)()) __attribute__((weak));

namespace rsim {
namespace {

// The child's message: one tag byte ('O' result, 'E' exception message), then the bytes.
bool writeAll(int fd, const char* p, std::size_t n) {
    while (n > 0) {
        const ssize_t w = ::write(fd, p, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return false;
        p += w;
        n -= std::size_t(w);
    }
    return true;
}

[[noreturn]] void childMain(int fd, const std::function<std::string()>& work) {
    char tag = 'O';
    std::string payload;
    try {
        payload = work();
    } catch (const std::exception& e) {
        tag = 'E';
        payload = e.what();
    } catch (...) {
        tag = 'E';
        payload = "unknown exception";
    }
    const bool ok = writeAll(fd, &tag, 1) && writeAll(fd, payload.data(), payload.size());
    // _exit: no atexit handlers, no flushing of stdio buffers the parent also owns.
    ::_exit(ok ? 0 : 3);
}

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kAddressSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kAddressSanitizer = true;
#else
constexpr bool kAddressSanitizer = false;
#endif
#else
constexpr bool kAddressSanitizer = false;
#endif

// Caps the address space at what is mapped now plus `bytes`.
void limitMemory(std::uint64_t bytes) {
    if (bytes == 0 || kAddressSanitizer) return;
    const std::uint64_t mapped = processMemory().mappedBytes;
    if (mapped == 0) return;
    const std::uint64_t limit = mapped + bytes;
    const rlimit r{limit, limit};
    ::setrlimit(RLIMIT_AS, &r);
}

void killAndReap(pid_t pid) {
    ::kill(pid, SIGKILL);
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
}

} // namespace

bool isolationEnabled() { return std::getenv("RSIM_NO_ISOLATION") == nullptr; }

IsolatedRun::IsolatedRun(std::function<std::string()> work, double timeoutSeconds, std::uint64_t memoryBytes)
    : timeoutSeconds_(timeoutSeconds) {
    if (!isolationEnabled()) {
        work_ = std::move(work);
        return;
    }
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) throw Error(std::string("cannot create a pipe: ") + std::strerror(errno));
    const pid_t pid = ::fork();
    if (pid < 0) {
        ::close(fds[0]);
        ::close(fds[1]);
        throw Error(std::string("cannot start a process: ") + std::strerror(errno));
    }
    if (pid == 0) {
        ::close(fds[0]);
        // The child is not the one to answer Ctrl-C: the parent kills it.
        ::signal(SIGINT, SIG_IGN);
        // A crash here is the parent's to report: no handler inherited from the parent (a test
        // framework's, a fuzzer's) runs in the child, and no core file is left behind.
        for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP}) ::signal(sig, SIG_DFL);
        // Nor a sanitizer's death callback (libFuzzer's would save the input as its own crash).
        if (&__sanitizer_set_death_callback) __sanitizer_set_death_callback(nullptr);
        const rlimit noCore{0, 0};
        ::setrlimit(RLIMIT_CORE, &noCore);
        limitMemory(memoryBytes);
        childMain(fds[1], work);
    }
    ::close(fds[1]);
    pid_ = pid;
    fd_ = fds[0];
}

IsolatedRun::IsolatedRun(IsolatedRun&& other) noexcept
    : work_(std::move(other.work_)), timeoutSeconds_(other.timeoutSeconds_), pid_(other.pid_), fd_(other.fd_) {
    other.pid_ = -1;
    other.fd_ = -1;
}

IsolatedRun::~IsolatedRun() {
    if (fd_ >= 0) ::close(fd_);
    if (pid_ > 0) killAndReap(pid_);
}

IsolatedOutcome IsolatedRun::finish() {
    IsolatedOutcome out;
    if (work_) {
        const std::function<std::string()> work = std::move(work_);
        work_ = nullptr;
        out.bytes = work();
        return out;
    }
    if (pid_ <= 0) throw Error("internal: IsolatedRun::finish called twice");
    // On every way out that leaves pid_ set, the destructor kills and reaps the child.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeoutSeconds_);
    std::string received;
    char buffer[1 << 16];
    for (;;) {
        if (cancelRequested()) throw Interrupted();
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0) {
            out.kind = IsolatedOutcome::Kind::TimedOut;
            ::close(fd_);
            fd_ = -1;
            killAndReap(pid_);
            pid_ = -1;
            return out;
        }
        pollfd p{fd_, POLLIN, 0};
        const int ready = ::poll(&p, 1, int(std::min<long long>(left.count(), 100)));
        if (ready < 0 && errno != EINTR) throw Error(std::string("waiting for a child process: ") + std::strerror(errno));
        if (ready <= 0) continue;
        const ssize_t n = ::read(fd_, buffer, sizeof buffer);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break; // end of file: the child is done (or dead)
        received.append(buffer, std::size_t(n));
    }
    ::close(fd_);
    fd_ = -1;
    int status = 0;
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
    pid_ = -1;
    if (WIFSIGNALED(status)) {
        const int sig = WTERMSIG(status);
        const char* name = ::sigabbrev_np(sig);
        out.kind = IsolatedOutcome::Kind::Crashed;
        out.message = "signal " + std::to_string(sig) + (name ? std::string(" (SIG") + name + ")" : std::string());
        return out;
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || received.empty()) {
        out.kind = IsolatedOutcome::Kind::Crashed;
        out.message = "exit status " + std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1);
        return out;
    }
    if (received[0] == 'E') {
        out.kind = IsolatedOutcome::Kind::Failed;
        out.message = received.substr(1);
        return out;
    }
    out.bytes = received.substr(1);
    return out;
}

IsolatedOutcome runIsolated(const std::function<std::string()>& work, double timeoutSeconds,
                            std::uint64_t memoryBytes) {
    return IsolatedRun(work, timeoutSeconds, memoryBytes).finish();
}

} // namespace rsim
