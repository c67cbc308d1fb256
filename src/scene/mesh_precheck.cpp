// SPDX-License-Identifier: MIT
#include "scene/mesh_precheck.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <sstream>
#include <vector>

#include "util/error.h"

namespace rsim {
namespace {

namespace fs = std::filesystem;

std::string lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    return s;
}

std::string fmt(double v) {
    std::ostringstream os;
    os << v;
    return os.str();
}

std::string readHead(const fs::path& file, std::size_t bytes) {
    std::ifstream in(file, std::ios::binary);
    std::string s(bytes, '\0');
    in.read(s.data(), std::streamsize(bytes));
    s.resize(std::size_t(in.gcount()));
    return s;
}

std::size_t plyTypeSize(const std::string& t) {
    if (t == "char" || t == "uchar" || t == "int8" || t == "uint8") return 1;
    if (t == "short" || t == "ushort" || t == "int16" || t == "uint16") return 2;
    if (t == "int" || t == "uint" || t == "float" || t == "int32" || t == "uint32" || t == "float32") return 4;
    if (t == "double" || t == "float64") return 8;
    return 0;
}

// A PLY's header must end (end_header) and its elements must fit in the rest of the file.
void checkPly(const fs::path& file, std::uintmax_t size, const std::string& where) {
    constexpr std::size_t kMaxHeader = 1 << 16;
    const std::string head = readHead(file, kMaxHeader);
    auto fail = [&](const std::string& why) {
        throw InputError(where + ": PLY file " + file.string() + " " + why);
    };
    // end_header must be a line of its own: assimp reads on past one that is not, forever.
    std::size_t end = std::string::npos;
    for (std::size_t at = head.find("\nend_header"); at != std::string::npos; at = head.find("\nend_header", at + 1)) {
        const std::size_t after = at + 11, eol = head.find('\n', after);
        if (eol == std::string::npos || head.find_first_not_of(" \t\r", after) >= eol) {
            end = at + 1;
            break;
        }
    }
    if (end == std::string::npos && head.find("end_header") != std::string::npos)
        fail("has an end_header that is not a line of its own: its header is damaged");
    if (end == std::string::npos)
        fail(size <= kMaxHeader ? "ends inside its header (no end_header line): it is truncated"
                                : "has no end_header line in its first 64 KiB: it is not a PLY file");
    std::size_t bodyStart = head.find('\n', end);
    if (bodyStart == std::string::npos) fail("ends right after end_header: it has no body");
    ++bodyStart;
    std::istringstream lines(head.substr(0, end));
    std::string line, format;
    struct Element {
        std::string name;
        std::uint64_t count = 0;
        std::uint64_t minBytes = 0;  // binary: one row without list items
        std::uint64_t minChars = 0;  // ASCII: one row of one-digit numbers and spaces
    };
    std::vector<Element> elements;
    while (std::getline(lines, line)) {
        std::istringstream words(line);
        std::string key;
        words >> key;
        if (key == "format") {
            words >> format;
        } else if (key == "element") {
            Element e;
            words >> e.name >> e.count;
            if (!words) fail("has a malformed element line: \"" + line + "\"");
            elements.push_back(e);
        } else if (key == "property") {
            if (elements.empty()) fail("has a property before any element");
            std::string type;
            words >> type;
            if (type == "list") words >> type; // the item count's type; a list may be empty
            const std::size_t bytes = plyTypeSize(type);
            if (bytes == 0) fail("has a property of unknown type \"" + type + "\"");
            elements.back().minBytes += bytes;
            elements.back().minChars += 2;
        }
    }
    if (format != "ascii" && format != "binary_little_endian" && format != "binary_big_endian")
        fail("has no valid format line (ascii, binary_little_endian or binary_big_endian)");
    const std::uint64_t body = size - bodyStart;
    long double need = 0;
    for (const Element& e : elements)
        need += static_cast<long double>(e.count) *
                static_cast<long double>(format == "ascii" ? e.minChars : e.minBytes);
    if (need > static_cast<long double>(body)) {
        std::ostringstream os;
        os << "is truncated: its header declares";
        for (std::size_t k = 0; k < elements.size(); ++k)
            os << (k ? "," : "") << " " << elements[k].count << " " << elements[k].name;
        os << ", which need at least " << static_cast<unsigned long long>(std::min<long double>(need, 1e19L))
           << " bytes, and " << body << " bytes follow the header";
        fail(os.str());
    }
}

// A binary STL's size is 84 + 50 N; an ASCII STL ends with endsolid.
void checkStl(const fs::path& file, std::uintmax_t size, const std::string& where) {
    const std::string head = readHead(file, 84);
    if (size >= 84) {
        std::uint32_t n = 0;
        std::memcpy(&n, head.data() + 80, 4);
        if (84 + 50 * std::uintmax_t(n) == size) return; // binary, whole
    }
    if (lower(head.substr(0, 5)) != "solid") {
        std::uint32_t n = 0;
        if (size >= 84) std::memcpy(&n, head.data() + 80, 4);
        throw InputError(where + ": binary STL file " + file.string() + " is truncated or damaged: its header declares " +
                         std::to_string(n) + " triangles (" + std::to_string(84 + 50 * std::uintmax_t(n)) +
                         " bytes), the file has " + std::to_string(size) + " bytes");
    }
    std::ifstream in(file, std::ios::binary);
    const std::uintmax_t tail = std::min<std::uintmax_t>(size, 4096);
    in.seekg(std::streamoff(size - tail));
    std::string end(tail, '\0');
    in.read(end.data(), std::streamsize(tail));
    if (lower(end).find("endsolid") == std::string::npos)
        throw InputError(where + ": ASCII STL file " + file.string() +
                         " does not end with endsolid: it is truncated");
}

// An OFF file's counts (after OFF and comments) must fit in the file: a vertex line takes at
// least 6 bytes ("0 0 0\n"), a face line at least 8 ("3 0 1 2\n").
void checkOff(const fs::path& file, std::uintmax_t size, const std::string& where) {
    std::istringstream head(readHead(file, 4096));
    std::string tokens, line;
    while (std::getline(head, line)) tokens += line.substr(0, line.find('#')) + " ";
    std::istringstream in(tokens);
    std::string keyword;
    double vertices = 0, faces = 0;
    if (!(in >> keyword) || keyword.size() < 3 || lower(keyword).substr(keyword.size() - 3) != "off" ||
        !(in >> vertices >> faces))
        return; // not the OFF header assimp reads: its own error
    if (vertices < 0 || faces < 0 || 6.0 * vertices + 8.0 * faces > double(size))
        throw InputError(where + ": OFF file " + file.string() + " is truncated or damaged: its header declares " +
                         fmt(vertices) + " vertices and " + fmt(faces) + " faces, which need at least " +
                         fmt(6.0 * vertices + 8.0 * faces) + " bytes; the file has " + std::to_string(size));
}

} // namespace

void precheckMeshFile(const fs::path& file, const std::string& where) {
    std::error_code ec;
    const std::uintmax_t size = fs::file_size(file, ec);
    if (ec) return; // the loader reports unreadable files
    const std::string ext = lower(file.extension().string());
    const std::string magic = readHead(file, 4);
    if (ext == ".ply" || magic == "ply\n" || magic == "ply\r") checkPly(file, size, where);
    else if (ext == ".stl") checkStl(file, size, where);
    else if (ext == ".off") checkOff(file, size, where);
}

} // namespace rsim
