// SPDX-License-Identifier: MIT
#include "util/cpu_isa.h"

#include <algorithm>
#include <atomic>

#include "util/error.h"

namespace rsim {
namespace {

std::atomic<CpuIsa> g_limit{CpuIsa::X86_64_V4};

CpuIsa bestOfMachine() {
#if RSIM_HAS_CPU_ISAS
    if (__builtin_cpu_supports("x86-64-v4")) return CpuIsa::X86_64_V4;
    if (__builtin_cpu_supports("x86-64-v3")) return CpuIsa::X86_64_V3;
#endif
    return CpuIsa::Baseline;
}

} // namespace

CpuIsa cpuIsa() {
    static const CpuIsa best = bestOfMachine();
    return std::min(best, g_limit.load(std::memory_order_relaxed));
}

void setCpuIsaLimit(CpuIsa limit) { g_limit.store(limit, std::memory_order_relaxed); }

std::vector<CpuIsa> cpuIsasOfMachine() {
    std::vector<CpuIsa> out;
    for (CpuIsa isa : {CpuIsa::Baseline, CpuIsa::X86_64_V3, CpuIsa::X86_64_V4})
        if (isa <= bestOfMachine()) out.push_back(isa);
    return out;
}

std::string cpuIsaName(CpuIsa isa) {
    switch (isa) {
    case CpuIsa::X86_64_V3: return "x86-64-v3";
    case CpuIsa::X86_64_V4: return "x86-64-v4";
    case CpuIsa::Baseline: break;
    }
    return "baseline";
}

CpuIsa parseCpuIsa(const std::string& name) {
    if (name == "auto" || name == "x86-64-v4") return CpuIsa::X86_64_V4;
    if (name == "x86-64-v3") return CpuIsa::X86_64_V3;
    if (name == "baseline") return CpuIsa::Baseline;
    throw InputError("cpu_isa: expected auto, baseline, x86-64-v3 or x86-64-v4, got '" + name + "'");
}

} // namespace rsim
