// SPDX-License-Identifier: MIT
#include "util/modules.h"

#include <dlfcn.h>

#include <atomic>
#include <filesystem>
#include <map>
#include <mutex>
#include <vector>

#include "util/error.h"
#include "util/startup_times.h"
#include "util/timer.h"

namespace rsim::modules {
namespace {

struct Entry {
    std::atomic<const void*> calls{nullptr};
    std::once_flag opened;
    std::string failure; // why it could not be opened (written once, under `opened`)
};

struct Registry {
    std::mutex mutex;
    std::map<std::string, Entry> entries; // nodes never move
    Entry& entry(const std::string& name) {
        std::lock_guard lock(mutex);
        return entries[name];
    }
};

// Constructed on first use: modules linked in register from static initialisers of other files.
Registry& registry() {
    static Registry r;
    return r;
}

std::filesystem::path binaryDirectory() {
    std::error_code ec;
    const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
    return ec ? std::filesystem::path() : self.parent_path();
}

// Beside the binary (the build tree, scripts/make-bundle.sh's bin/), or in lib/rsim beside its
// bin/ (an installation's layout).
std::vector<std::filesystem::path> candidates(const std::string& name) {
    const std::filesystem::path dir = binaryDirectory();
    const std::string file = "rsim-" + name + ".so";
    return {dir / file, dir.parent_path() / "lib" / "rsim" / file};
}

[[noreturn]] void cannotOpen(const std::string& name, const std::string& why) {
    throw Error("rsim's " + name + " module could not be opened (" + why + "). It is built beside the rsim " +
                "binary (build/rsim-" + name + ".so) and must stay beside it; scripts/make-bundle.sh packs it");
}

void open(const std::string& name, Entry& e) {
    std::string reasons;
    for (const std::filesystem::path& path : candidates(name)) {
        if (!std::filesystem::exists(path)) continue;
        // The module's static initialiser calls provide() during dlopen. Never closed: its
        // functions stay in use until the process ends.
        const Stopwatch sw;
        if (dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL)) {
            if (!e.calls.load()) e.failure = path.string() + " opened but provided no " + name + " calls";
            noteStartup("module " + name, sw.seconds());
            return;
        }
        const char* why = dlerror();
        reasons += "; " + path.string() + ": " + (why ? why : "dlopen failed");
    }
    e.failure = reasons.empty() ? "no " + candidates(name)[0].string() + " nor " + candidates(name)[1].string()
                                : reasons.substr(2);
}

} // namespace

void provide(const std::string& name, const void* calls) { registry().entry(name).calls.store(calls); }

const void* require(const std::string& name) {
    Entry& e = registry().entry(name);
    if (const void* c = e.calls.load()) return c;
    std::call_once(e.opened, [&] { open(name, e); });
    if (const void* c = e.calls.load()) return c;
    cannotOpen(name, e.failure);
}

void checkPresent(const std::string& name) {
    if (registry().entry(name).calls.load()) return;
    for (const std::filesystem::path& path : candidates(name))
        if (std::filesystem::exists(path)) return;
    cannotOpen(name, "no " + candidates(name)[0].string() + " nor " + candidates(name)[1].string());
}

} // namespace rsim::modules
