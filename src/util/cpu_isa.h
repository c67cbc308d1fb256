// SPDX-License-Identifier: MIT
// The instruction set of the CPU's hot loops. The release build targets every x86-64; a hot loop
// is also compiled for x86-64-v3 (AVX2) and x86-64-v4 (AVX-512) (RSIM_TARGET_V3/V4 on a copy of
// it) and runs the best of them the machine has, or a lower one where tuning.cpu_isa asks. The
// project builds with -ffp-contract=off, so no version fuses a multiply and an add that the
// baseline rounds twice: every version gives the same bits (a test compares them).
#pragma once
#include <string>
#include <vector>

namespace rsim {

enum class CpuIsa { Baseline, X86_64_V3, X86_64_V4 };

// The best the machine runs, at most the limit.
CpuIsa cpuIsa();
// Caps cpuIsa() for this process (tuning.cpu_isa, tests); X86_64_V4 lifts the cap.
void setCpuIsaLimit(CpuIsa limit);
// The versions this build has and the machine runs, lowest first.
std::vector<CpuIsa> cpuIsasOfMachine();
// "baseline", "x86-64-v3", "x86-64-v4".
std::string cpuIsaName(CpuIsa isa);
// The inverse, for tuning.cpu_isa ("auto": the best there is).
CpuIsa parseCpuIsa(const std::string& name);

} // namespace rsim

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#define RSIM_HAS_CPU_ISAS 1
#define RSIM_TARGET_V3 __attribute__((target("arch=x86-64-v3")))
#define RSIM_TARGET_V4 __attribute__((target("arch=x86-64-v4")))
#else
#define RSIM_HAS_CPU_ISAS 0
#endif
