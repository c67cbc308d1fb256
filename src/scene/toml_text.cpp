// SPDX-License-Identifier: MIT
#include "scene/toml_text.h"

#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <unistd.h>

#include "util/error.h"

namespace rsim {

namespace {

// Where a string that starts at `at` (a quote) ends: the index after its closing quote(s), or
// text.size() when it does not end (toml++ reports that). Counts the newlines it crosses.
std::size_t skipString(std::string_view text, std::size_t at, std::size_t& line) {
    const char quote = text[at];
    const bool basic = quote == '"';
    const std::string triple(3, quote);
    const bool multi = text.substr(at, 3) == triple;
    std::size_t k = at + (multi ? 3 : 1);
    for (; k < text.size(); ++k) {
        const char c = text[k];
        if (c == '\n') {
            if (!multi) return k; // an unterminated one-line string: toml++'s error
            ++line;
        } else if (basic && c == '\\') {
            if (k + 1 < text.size() && text[k + 1] == '\n') ++line;
            ++k;
        } else if (c == quote && !multi) {
            return k + 1;
        } else if (c == quote && text.substr(k, 3) == triple) {
            // A multi-line string may end in up to two quotes of its own before its delimiter.
            std::size_t end = k + 3;
            for (int extra = 0; extra < 2 && end < text.size() && text[end] == quote; ++extra) ++end;
            return end;
        }
    }
    return k;
}

} // namespace

void checkTomlNesting(std::string_view text, const std::string& source) {
    // What encloses the current character: table headers 'H', arrays 'A', inline tables 'T'.
    // Dotted key segments count only where a key stands (at a line's start, in a header, after
    // '{' or ',' of an inline table), not in values (1.5 has a dot too).
    std::string open;
    std::size_t line = 1;
    bool keyPosition = true;
    int dots = 0; // of the key being read
    for (std::size_t k = 0; k < text.size();) {
        const char c = text[k];
        if (c == '"' || c == '\'') {
            k = skipString(text, k, line);
            continue;
        }
        if (c == '#') {
            while (k < text.size() && text[k] != '\n') ++k;
            continue;
        }
        if (c == '\n') {
            ++line;
            if (open.empty()) keyPosition = true;
            dots = 0;
        } else if (c == '[') {
            open += keyPosition && (open.empty() || open.back() == 'H') ? 'H' : 'A';
            dots = 0;
        } else if (c == '{') {
            open += 'T';
            keyPosition = true;
            dots = 0;
        } else if (c == ']' || c == '}') {
            if (!open.empty()) open.pop_back();
            keyPosition = !open.empty() && open.back() == 'H';
            dots = 0;
        } else if (c == '=') {
            keyPosition = false;
            dots = 0;
        } else if (c == ',') {
            keyPosition = !open.empty() && open.back() == 'T';
            dots = 0;
        } else if (c == '.' && keyPosition) {
            ++dots;
        }
        if (int(open.size()) + dots + 1 > kMaxTomlNesting)
            throw InputError(source + ":" + std::to_string(line) + ": a key nests more than " +
                             std::to_string(kMaxTomlNesting) +
                             " levels deep (dotted key segments, tables and arrays); rsim reads at most " +
                             std::to_string(kMaxTomlNesting) + " (a scene file needs 3)");
        ++k;
    }
}

std::string readTomlFile(const std::filesystem::path& file) {
    const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throw InputError(file.string() + ": cannot be read (" + std::strerror(errno) + ")");
    std::string text;
    char buffer[65536];
    for (;;) {
        const ssize_t got = ::read(fd, buffer, sizeof buffer);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) {
            const int err = errno;
            ::close(fd);
            throw InputError(file.string() + ": read failed (" + std::strerror(err) + ")");
        }
        if (got == 0) break;
        text.append(buffer, std::size_t(got));
    }
    ::close(fd);
    return text;
}

} // namespace rsim
