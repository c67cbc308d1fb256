// SPDX-License-Identifier: MIT
// A small persistent thread pool: parallelFor splits [0, n) into chunks that idle workers take
// in order (dynamic scheduling, no locks on the hot path: one atomic fetch per chunk).
#pragma once
#include <cstddef>
#include <functional>

namespace rsim {

// Number of worker threads used by parallelFor (all hardware threads unless overridden).
unsigned threadCount();
// Override the thread count (0 = all hardware threads). Call before the first parallelFor.
void setThreadCount(unsigned n);

// Calls body(begin, end, worker) for consecutive chunks of at most `grain` indices covering
// [0, n), on all workers including the caller; worker < threadCount(). Exceptions thrown by the
// body are rethrown in the caller after all chunks have stopped. A stop request (util/cancel.h)
// is checked before every chunk: the loop then ends with Interrupted.
void parallelFor(std::size_t n, std::size_t grain,
                 const std::function<void(std::size_t, std::size_t, unsigned)>& body);

} // namespace rsim
