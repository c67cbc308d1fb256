// SPDX-License-Identifier: MIT
// Work on every device at once: one host thread per device, because each one waits for its own
// device. The first exception is rethrown once every thread has finished.
#pragma once
#include <cstddef>
#include <exception>
#include <thread>
#include <vector>

namespace rsim::vk {

template <class Fn> void forEachDevice(std::size_t devices, Fn&& fn) {
    std::vector<std::exception_ptr> failures(devices);
    std::vector<std::thread> threads;
    for (std::size_t d = 0; d < devices; ++d)
        threads.emplace_back([&, d] {
            try {
                fn(d);
            } catch (...) {
                failures[d] = std::current_exception();
            }
        });
    for (auto& t : threads)
        t.join();
    for (auto& f : failures)
        if (f) std::rethrow_exception(f);
}

} // namespace rsim::vk
