// SPDX-License-Identifier: MIT
// The generators' random numbers. splitmix64 with hand-rolled mappings, because std::
// distributions differ between standard libraries and the scenes must be byte-identical
// everywhere for a given seed.
#pragma once
#include <cstdint>

namespace rsim {

class SceneRng {
  public:
    explicit SceneRng(std::uint64_t seed) : state_(seed) {}

    std::uint64_t next() {
        std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        return z ^ (z >> 31);
    }
    // In [0, 1), from the top 53 bits.
    double unit() { return double(next() >> 11) * 0x1.0p-53; }
    double uniform(double lo, double hi) { return lo + (hi - lo) * unit(); }
    // In [lo, hi], both ends included.
    int integer(int lo, int hi) { return lo + int(next() % std::uint64_t(hi - lo + 1)); }
    bool chance(double p) { return unit() < p; }

  private:
    std::uint64_t state_;
};

// A seed per scene kind, so that two kinds with the same --seed do not share a sequence.
inline std::uint64_t sceneSeed(std::uint32_t seed, std::uint64_t salt) {
    SceneRng mix(salt * 0x2545f4914f6cdd1dULL + seed);
    return mix.next();
}

} // namespace rsim
