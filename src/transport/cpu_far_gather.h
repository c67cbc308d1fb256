// SPDX-License-Identifier: MIT
// The hot loop of the CPU's time-stepped transport: one tile of receivers gathers its listed far
// pairs (transport/cpu_far_pairs.h) into the sums of one block of steps, one pose after another.
#pragma once
#include <cstddef>
#include <cstdint>
#include <span>

#include "transport/cpu_far_pairs.h"

namespace rsim {

// The CPU transport's time block: a pair whose delay is at least this many steps is gathered for
// a whole block at once (a far pair); shorter ones step by step (the near pairs). Most of a far
// pair's cost is per block, not per step (docs/architecture.md, "CPU transport"): small room, 2
// cores, radiosity 4.92 s with blocks of 8 steps (the GPU's RSIM_TIME_BLOCK), 3.18 s with 32,
// 5.36 s with 64 (too many near pairs).
constexpr std::size_t kCpuTimeBlock = 32;

struct FarGatherTile {
    std::span<const FarPair> pairs; // the tile's far pairs, in order of source, then row
    std::size_t t0, steps;          // the block [t0, t0 + steps), steps <= kCpuTimeBlock
    std::size_t T;                  // the histories' stride per triangle
    std::uint32_t firstRow;         // the triangle index of the tile's row 0
    std::uint32_t tileRows;         // the sums' rows per pose
    const float* area;              // A_i of every triangle
    const float* rhoA;              // rho_j A_j of every triangle
    const float* const* B;          // per pose: B, [j * T + t], steps before t0 complete
    const float* const* Z;          // per pose: Z, likewise
    std::size_t poses;
    double* sumB; // [(p * tileRows + row) * kCpuTimeBlock + q], added to
    double* sumZ;
};

// Adds every far pair of the tile that has arrived by the block's last step: receiver row r
// gathers F_ij B_j(t - tau) and rho_j A_j F_ji Z_j(t - tau) for each step t of the block, its
// sources in the list's order (rsimGatherCoefficients). Each element is one product and one sum in
// double, whatever the vector width of the machine (util/cpu_isa.h).
void gatherFarTile(const FarGatherTile& g);

} // namespace rsim
