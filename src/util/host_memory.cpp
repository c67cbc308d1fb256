// SPDX-License-Identifier: MIT
#include "util/host_memory.h"

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>

#include <sys/resource.h>
#include <unistd.h>

namespace rsim {
namespace {

// A number from the first line of `file`, or 0 when it has none ("max", missing file).
std::uint64_t numberIn(const char* file) {
    std::ifstream in(file);
    std::string word;
    if (!(in >> word) || word.find_first_not_of("0123456789") != std::string::npos) return 0;
    return std::stoull(word);
}

} // namespace

double hostShareBytes() {
    const double pages = double(::sysconf(_SC_PHYS_PAGES)), page = double(::sysconf(_SC_PAGESIZE));
    return 0.25 * (pages > 0 && page > 0 ? pages * page : 8.0 * 1073741824.0);
}

std::uint64_t availableHostBytes() {
    std::uint64_t available = 0;
    std::ifstream meminfo("/proc/meminfo");
    for (std::string line; std::getline(meminfo, line);)
        if (line.rfind("MemAvailable:", 0) == 0) {
            std::istringstream words(line.substr(13));
            std::uint64_t kib = 0;
            words >> kib;
            available = kib * 1024;
        }
    if (available == 0) {
        const long pages = sysconf(_SC_AVPHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
        if (pages > 0 && page > 0) available = std::uint64_t(pages) * std::uint64_t(page);
    }
    // cgroup v2: the limit of this process's group less what the group uses.
    if (const std::uint64_t limit = numberIn("/sys/fs/cgroup/memory.max"); limit > 0) {
        const std::uint64_t used = numberIn("/sys/fs/cgroup/memory.current");
        available = std::min(available, limit > used ? limit - used : 0);
    }
    // ulimit -v (RLIMIT_AS): the address space this process may still map.
    rlimit as{};
    if (::getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY) {
        const std::uint64_t mapped = processMemory().mappedBytes, limit = std::uint64_t(as.rlim_cur);
        available = std::min(available, limit > mapped ? limit - mapped : 1); // 0 would mean "unknown"
    }
    return available;
}

ProcessMemory processMemory() {
    std::ifstream in("/proc/self/statm");
    std::uint64_t pages = 0, resident = 0;
    if (!(in >> pages >> resident)) return {};
    const long page = sysconf(_SC_PAGE_SIZE);
    if (page <= 0) return {};
    return {pages * std::uint64_t(page), resident * std::uint64_t(page)};
}

std::uint64_t hostListBudgetBytes() {
    return std::min<std::uint64_t>(std::uint64_t(hostShareBytes()), availableHostBytes() / 2);
}

} // namespace rsim
