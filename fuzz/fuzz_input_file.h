// SPDX-License-Identifier: MIT
// The fuzz targets hand rsim a file, as a user does: each input is written to a file of a fixed
// name in a folder of this process's own, made once and removed at exit.
#pragma once
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>

namespace rsim::fuzz {

// Writes `size` bytes to `name` in this process's scratch folder and returns its path.
std::filesystem::path writeInput(const std::string& name, const std::uint8_t* data, std::size_t size);

// Quiets rsim's log (warnings about odd inputs are expected by the thousand).
void quietLog();

} // namespace rsim::fuzz
