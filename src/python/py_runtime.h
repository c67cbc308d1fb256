// SPDX-License-Identifier: MIT
// What every call of `import rsim` needs around the pipeline: rsim's log records handed to
// Python's `logging`, Ctrl-C turned into a stop request while a call works without the GIL, and
// locks taken without the GIL.
#pragma once
#include <memory>
#include <mutex>

#include <pybind11/pybind11.h>
#include <spdlog/sinks/sink.h>

namespace rsim::python {

namespace py = pybind11;

// rsim's log records go to Python's `logging` (logger "rsim"). The pipeline logs from worker
// threads while the GIL is released, so records wait in this sink and are handed over on the
// calling thread when a call returns (flushLog): no thread but the caller ever takes the GIL.
std::shared_ptr<spdlog::sinks::sink> logSink();
void flushLog();

// While a run works without the GIL, Python cannot see Ctrl-C: while one of these lives, a
// SIGINT asks the pipeline to stop (util/cancel.h), and Python's handler comes back afterwards.
// Runs on several threads at once share one installation: the first installs it (and clears an
// old stop), the last restores Python's; a Ctrl-C stops them all.
class SigintStopsRun {
public:
    SigintStopsRun();
    ~SigintStopsRun();
    SigintStopsRun(const SigintStopsRun&) = delete;
    SigintStopsRun& operator=(const SigintStopsRun&) = delete;
};

// Locks `m` without holding the GIL (a thread that holds the GIL and waits for a lock another
// thread holds while it waits for the GIL would wait for ever).
std::unique_lock<std::mutex> lockWithoutGil(std::mutex& m);

// Runs f with the GIL released, then hands its log records to Python, also when it throws.
template <class F> auto withoutGil(F&& f) {
    // A destructor must not throw: a Python error while handing the records over (a second
    // Ctrl-C in logging, say) is reported as unraisable instead.
    struct Flush {
        ~Flush() {
            try {
                flushLog();
            } catch (py::error_already_set& e) {
                e.discard_as_unraisable("rsim's log records");
            } catch (...) {
            }
        }
    } flush;
    py::gil_scoped_release release;
    return f();
}

} // namespace rsim::python
