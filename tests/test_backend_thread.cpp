// SPDX-License-Identifier: MIT
// backends/backend_thread.h: the instance's choice and every backend made on one thread, one job
// after the other; errors reach whoever waits; jobs left when the owner goes still run.
#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>

#include <catch2/catch_test_macros.hpp>

#include "backends/backend_thread.h"
#include "util/error.h"

using namespace rsim;

TEST_CASE("a backend thread makes the backends on the thread that chose the devices, in order", "[backends]") {
    std::thread::id chose, first, second;
    std::atomic<int> order{0};
    int firstAt = -1, secondAt = -1;
    bool firstSawChoice = true;
    {
        BackendChoice cpu;
        cpu.backend = "cpu";
        BackendThread thread(cpu);
        CHECK_FALSE(thread.selection()); // the CPU: no instance
        auto a = thread.run([&](const VulkanSelection& s) -> std::unique_ptr<Backend> {
            // Catch2's assertions belong to the test's thread: the job only records.
            first = std::this_thread::get_id();
            firstAt = order++;
            firstSawChoice = static_cast<bool>(s);
            return nullptr; // a job may decline
        });
        auto b = thread.make(true, 0);
        auto c = thread.run([&](const VulkanSelection&) -> std::unique_ptr<Backend> {
            second = std::this_thread::get_id();
            secondAt = order++;
            return nullptr;
        });
        CHECK(a.get() == nullptr);
        CHECK_FALSE(firstSawChoice);
        const std::unique_ptr<Backend> made = b.get();
        REQUIRE(made);
        RunMetadata meta;
        made->describe(meta);
        CHECK(meta.backend == "cpu");
        CHECK(c.get() == nullptr);
        chose = std::this_thread::get_id();
    }
    CHECK(first != std::thread::id());
    CHECK(first == second);
    CHECK(first != chose); // not the caller's thread
    CHECK(firstAt == 0);
    CHECK(secondAt == 1);
}

TEST_CASE("a backend thread passes the choice's and the jobs' errors on", "[backends]") {
    BackendChoice bad;
    bad.backend = "gpu"; // neither auto, cpu nor vulkan
    BackendThread thread(bad);
    CHECK_THROWS_AS(thread.selection(), InputError);
    auto job = thread.run([](const VulkanSelection&) -> std::unique_ptr<Backend> { return nullptr; });
    CHECK_THROWS_AS(job.get(), InputError); // the choice's error: the job never saw a choice

    BackendChoice cpu;
    cpu.backend = "cpu";
    BackendThread fine(cpu);
    auto failing = fine.run([](const VulkanSelection&) -> std::unique_ptr<Backend> {
        throw std::runtime_error("the job's own");
    });
    CHECK_THROWS_AS(failing.get(), std::runtime_error);
    CHECK(fine.make(true, 0).get()); // the thread goes on after a job's error
}

TEST_CASE("a backend thread runs the jobs it was given before it ends", "[backends]") {
    std::atomic<bool> go{false}, ran{false};
    std::thread releaser;
    {
        BackendChoice cpu;
        cpu.backend = "cpu";
        BackendThread thread(cpu);
        // The first job holds the thread until the owner is already ending it; the second, queued
        // behind it and never waited for, must still run.
        (void)thread.run([&](const VulkanSelection&) -> std::unique_ptr<Backend> {
            while (!go) std::this_thread::yield();
            return nullptr;
        });
        (void)thread.run([&](const VulkanSelection&) -> std::unique_ptr<Backend> {
            ran = true;
            return nullptr;
        });
        releaser = std::thread([&] {
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
            go = true;
        });
    }
    releaser.join();
    CHECK(ran);
}
