// SPDX-License-Identifier: MIT
#include "k/k_file_io.h"

#include <algorithm>
#include <cerrno>

#include <unistd.h>
#include <xxhash.h>

namespace rsim::kfile {

std::uint64_t checksumOf(const Arrays& arrays) {
    XXH3_state_t* st = XXH3_createState();
    XXH3_64bits_reset(st);
    for (const auto& [data, bytes] : arrays) XXH3_64bits_update(st, data, bytes);
    const std::uint64_t h = XXH3_64bits_digest(st);
    XXH3_freeState(st);
    return h;
}

bool readAt(int fd, void* to, std::uint64_t bytes, std::uint64_t offset) {
    auto* p = static_cast<char*>(to);
    while (bytes > 0) {
        const ssize_t got = ::pread(fd, p, std::size_t(std::min<std::uint64_t>(bytes, 1ull << 30)), off_t(offset));
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) return false;
        p += got;
        bytes -= std::uint64_t(got);
        offset += std::uint64_t(got);
    }
    return true;
}

bool writeAt(int fd, const void* from, std::uint64_t bytes, std::uint64_t offset) {
    const auto* p = static_cast<const char*>(from);
    while (bytes > 0) {
        const ssize_t put = ::pwrite(fd, p, std::size_t(std::min<std::uint64_t>(bytes, 1ull << 30)), off_t(offset));
        if (put < 0 && errno == EINTR) continue;
        if (put <= 0) return false;
        p += put;
        bytes -= std::uint64_t(put);
        offset += std::uint64_t(put);
    }
    return true;
}

bool readArrays(int fd, const Arrays& arrays, std::uint64_t offset) {
    for (const auto& [data, bytes] : arrays) {
        if (!readAt(fd, data, bytes, offset)) return false;
        offset += bytes;
    }
    return true;
}

} // namespace rsim::kfile
