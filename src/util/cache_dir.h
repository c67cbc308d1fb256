// SPDX-License-Identifier: MIT
// rsim's folder in the user's cache directory: $XDG_CACHE_HOME/rsim, else $HOME/.cache/rsim;
// empty when neither is set. The K cache and the Vulkan pipeline cache live below it.
#pragma once
#include <cstdlib>
#include <filesystem>

namespace rsim {

inline std::filesystem::path userCacheDir() {
    if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return std::filesystem::path(xdg) / "rsim";
    if (const char* home = std::getenv("HOME"); home && *home) return std::filesystem::path(home) / ".cache" / "rsim";
    return {};
}

} // namespace rsim
