// SPDX-License-Identifier: MIT
// A TOML document's text before toml++ parses it. toml++ nests one level of recursion per
// segment of a dotted key (a.b.c = 1) and per table header segment ([a.b.c]) without a limit,
// so a key 40,000 segments long overflows the stack (a crash, in Python too). Arrays and inline
// tables it limits itself (256 levels). checkTomlNesting refuses such text with an InputError
// before parsing.
#pragma once
#include <filesystem>
#include <string>
#include <string_view>

namespace rsim {

// How deep a key may nest: its segments plus the arrays and inline tables around it. Scene
// files use 3 at most.
inline constexpr int kMaxTomlNesting = 128;

// Throws InputError "`source`:LINE: ..." when a key nests deeper than kMaxTomlNesting. Strings
// and comments are skipped; the rest of the syntax is toml++'s to judge.
void checkTomlNesting(std::string_view text, const std::string& source);

// The whole of `file` (a regular file, or a pipe such as bash's <(...)); InputError naming the
// file when it cannot be read.
std::string readTomlFile(const std::filesystem::path& file);

} // namespace rsim
