// SPDX-License-Identifier: MIT
// util/background_tasks.h: the writers of a batch's poses.
#include <atomic>
#include <future>
#include <stdexcept>

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers.hpp>

#include "util/background_tasks.h"

using namespace rsim;

TEST_CASE("background tasks all run, and wait() rethrows the first failure", "[util]") {
    std::atomic<int> ran{0};
    {
        BackgroundTasks tasks(3);
        for (int k = 0; k < 50; ++k) tasks.submit([&] { ++ran; });
        tasks.wait();
        CHECK(ran == 50);
    }
    BackgroundTasks tasks(2);
    tasks.submit([] { throw std::runtime_error("disk full"); });
    CHECK_THROWS_WITH(tasks.wait(), "disk full");
    // After a failure nothing new is taken.
    CHECK_THROWS_WITH(tasks.submit([&] { ++ran; }), "disk full");
    CHECK(ran == 50);
}

TEST_CASE("background tasks queue up to the backlog's bytes without blocking the caller", "[util]") {
    std::promise<void> release;
    std::shared_future<void> gate = release.get_future().share();
    std::atomic<int> ran{0};
    BackgroundTasks tasks(1, 100);
    // The one worker is held; four tasks of 25 bytes wait within the backlog. Were submit() to
    // block for a free worker, this would never return (the gate opens below).
    tasks.submit([gate, &ran] {
        gate.wait();
        ++ran;
    });
    for (int k = 0; k < 4; ++k) tasks.submit([&] { ++ran; }, 25);
    CHECK(ran == 0);
    // A fifth would pass the backlog: it waits until the worker has taken one of them.
    auto fifth = std::async(std::launch::async, [&] { tasks.submit([&] { ++ran; }, 25); });
    CHECK(fifth.wait_for(std::chrono::milliseconds(200)) == std::future_status::timeout);
    release.set_value();
    fifth.get();
    tasks.wait();
    CHECK(ran == 6);
}
