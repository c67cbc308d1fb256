// SPDX-License-Identifier: MIT
// How much memory this process can still take: the kernel's MemAvailable, or less where a
// cgroup (a container, a Slurm job) limits it.
#pragma once
#include <cstdint>

namespace rsim {

std::uint64_t availableHostBytes();

} // namespace rsim
