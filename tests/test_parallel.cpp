// SPDX-License-Identifier: MIT
// util/parallel.h: parallelFor covers [0, n) once in chunks of at most `grain`, on worker indices
// below threadCount(), finishes many small loops in a row, rethrows the body's exception and runs
// nested loops inline.
#include <atomic>
#include <cstddef>
#include <stdexcept>
#include <vector>

#include <catch2/catch_test_macros.hpp>

#include "util/parallel.h"

using namespace rsim;

TEST_CASE("parallelFor covers every index once, in chunks of at most the grain", "[parallel]") {
    for (std::size_t n : {1u, 2u, 3u, 7u, 64u, 65u, 1000u}) {
        for (std::size_t grain : {1u, 4u, 64u, 5000u}) {
            CAPTURE(n, grain);
            std::vector<std::atomic<int>> hits(n);
            std::atomic<bool> badChunk{false}, badWorker{false};
            parallelFor(n, grain, [&](std::size_t b, std::size_t e, unsigned w) {
                if (e <= b || e - b > grain || e > n) badChunk = true;
                if (w >= threadCount()) badWorker = true;
                for (std::size_t i = b; i < e; ++i) hits[i].fetch_add(1);
            });
            CHECK_FALSE(badChunk);
            CHECK_FALSE(badWorker);
            std::size_t once = 0;
            for (const auto& h : hits) once += h.load() == 1;
            CHECK(once == n);
        }
    }
}

TEST_CASE("parallelFor: many small loops in a row finish", "[parallel]") {
    // Loops of two and three chunks, one after another, as a small scene's time steps are.
    std::atomic<std::size_t> total{0};
    for (int k = 0; k < 3000; ++k)
        parallelFor(2 + k % 2, 1, [&](std::size_t b, std::size_t e, unsigned) { total += e - b; });
    CHECK(total.load() == 1500 * 2 + 1500 * 3);
}

TEST_CASE("parallelFor rethrows the body's exception and runs nested loops inline", "[parallel]") {
    CHECK_THROWS_AS(parallelFor(100, 1,
                                [](std::size_t b, std::size_t, unsigned) {
                                    if (b == 37) throw std::runtime_error("index 37");
                                }),
                    std::runtime_error);
    std::atomic<std::size_t> inner{0};
    parallelFor(8, 1, [&](std::size_t, std::size_t, unsigned outer) {
        parallelFor(5, 1, [&](std::size_t b, std::size_t e, unsigned w) {
            if (w == outer) inner += e - b;
        });
    });
    CHECK(inner.load() == 8 * 5);
    // The pool still works after an exception.
    std::atomic<std::size_t> after{0};
    parallelFor(50, 3, [&](std::size_t b, std::size_t e, unsigned) { after += e - b; });
    CHECK(after.load() == 50);
}
