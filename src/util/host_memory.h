// SPDX-License-Identifier: MIT
// How much memory this process can still take: the kernel's MemAvailable, or less where a
// cgroup (a container, a Slurm job) or ulimit -v (RLIMIT_AS) limits it; and what it holds now.
#pragma once
#include <cstdint>

namespace rsim {

std::uint64_t availableHostBytes();

// A quarter of the machine's physical memory (8 GiB when it cannot be read): what a batch's
// host arrays, or a copy of K for the K cache, may take.
double hostShareBytes();

// What a list made once to save work later (the CPU transport's far pairs, the CPU phasor
// solve's pairs) may take: the smaller of hostShareBytes() and half of what is free now.
std::uint64_t hostListBudgetBytes();

// This process's mapped address space and resident set now, from /proc/self/statm (both 0
// where it cannot be read).
struct ProcessMemory {
    std::uint64_t mappedBytes = 0;
    std::uint64_t residentBytes = 0;
};
ProcessMemory processMemory();

} // namespace rsim
