// SPDX-License-Identifier: MIT
#include "python/py_runtime.h"

#include <csignal>
#include <string>
#include <utility>
#include <vector>

#include <spdlog/sinks/base_sink.h>

#include "util/cancel.h"

namespace rsim::python {
namespace {

class QueuedSink final : public spdlog::sinks::base_sink<std::mutex> {
public:
    std::vector<std::pair<int, std::string>> take() {
        std::lock_guard lock(mutex_);
        return std::exchange(records_, {});
    }

protected:
    void sink_it_(const spdlog::details::log_msg& msg) override {
        // Python's levels: DEBUG 10, INFO 20, WARNING 30, ERROR 40, CRITICAL 50.
        static const int kLevel[] = {10, 10, 20, 30, 40, 50, 0};
        records_.emplace_back(kLevel[int(msg.level)], std::string(msg.payload.data(), msg.payload.size()));
    }
    void flush_() override {}

private:
    std::vector<std::pair<int, std::string>> records_;
};

std::shared_ptr<QueuedSink>& queuedSink() {
    static auto sink = std::make_shared<QueuedSink>();
    return sink;
}

extern "C" void onSigint(int) { requestCancel(); }

// The one installation of onSigint that the live SigintStopsRun share.
struct SigintState {
    std::mutex mutex;
    int users = 0;
    bool installed = false;
    struct sigaction previous {};
};
SigintState& sigintState() {
    static SigintState s;
    return s;
}

} // namespace

std::shared_ptr<spdlog::sinks::sink> logSink() { return queuedSink(); }

void flushLog() {
    const auto records = queuedSink()->take();
    if (records.empty()) return;
    py::object logger = py::module_::import("logging").attr("getLogger")("rsim");
    for (const auto& [level, text] : records) logger.attr("log")(level, text);
}

SigintStopsRun::SigintStopsRun() {
    SigintState& s = sigintState();
    const std::lock_guard lock(s.mutex);
    if (s.users++ > 0) return;
    clearCancel();
    struct sigaction sa {};
    sa.sa_handler = onSigint;
    sigemptyset(&sa.sa_mask);
    s.installed = sigaction(SIGINT, &sa, &s.previous) == 0;
}

SigintStopsRun::~SigintStopsRun() {
    SigintState& s = sigintState();
    const std::lock_guard lock(s.mutex);
    if (--s.users > 0) return;
    if (s.installed) sigaction(SIGINT, &s.previous, nullptr);
    s.installed = false;
    clearCancel(); // a stop that came after the last run's last check is not the next run's
}

std::unique_lock<std::mutex> lockWithoutGil(std::mutex& m) {
    std::unique_lock lock(m, std::defer_lock);
    py::gil_scoped_release release;
    lock.lock();
    return lock;
}

} // namespace rsim::python
