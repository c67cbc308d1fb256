// SPDX-License-Identifier: MIT
// The machine's memory read bandwidth for the CPU roofline (docs/benchmarks.md, "CPU backend"):
// T threads each sum their own 512 MiB of 64-bit words, best of 5, for T = 1, 2, 4, ... up to the
// cores. Built here, run on the GPU machine (whose Ubuntu has no compiler):
//   g++ -O3 -march=x86-64-v3 -std=c++20 -pthread -static scripts/device/membw.cpp -o .device/membw
//   .device/membw            (prints threads,GB/s as CSV)
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <thread>
#include <vector>

namespace {

constexpr std::size_t kWords = std::size_t(512) << 20 >> 3; // 512 MiB a thread

std::uint64_t sumWords(const std::vector<std::uint64_t>& v) {
    std::uint64_t a = 0, b = 0, c = 0, d = 0;
    for (std::size_t i = 0; i + 4 <= v.size(); i += 4) {
        a += v[i];
        b += v[i + 1];
        c += v[i + 2];
        d += v[i + 3];
    }
    return a + b + c + d;
}

double readBandwidth(unsigned threads, std::vector<std::vector<std::uint64_t>>& data) {
    std::vector<std::uint64_t> sums(threads);
    double best = 0.0;
    for (int round = 0; round < 5; ++round) {
        const auto t0 = std::chrono::steady_clock::now();
        std::vector<std::thread> pool;
        for (unsigned t = 0; t < threads; ++t) pool.emplace_back([&, t] { sums[t] = sumWords(data[t]); });
        for (auto& p : pool) p.join();
        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        best = std::max(best, double(threads) * double(kWords) * 8.0 / s / 1e9);
    }
    std::uint64_t all = 0;
    for (std::uint64_t s : sums) all ^= s;
    if (all == 1) std::printf("#\n"); // keeps the sums
    return best;
}

} // namespace

int main() {
    const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
    std::vector<std::vector<std::uint64_t>> data(cores);
    std::vector<std::thread> fill;
    for (unsigned t = 0; t < cores; ++t) // each thread's words first touched by a thread of its own
        fill.emplace_back([&, t] {
            data[t].resize(kWords);
            for (std::size_t i = 0; i < kWords; ++i) data[t][i] = i * (t + 1);
        });
    for (auto& f : fill) f.join();
    std::printf("threads,read_GB_per_s\n");
    for (unsigned t = 1;; t = std::min(cores, t * 2)) {
        std::printf("%u,%.1f\n", t, readBandwidth(t, data));
        if (t == cores) break;
    }
    return 0;
}
