// SPDX-License-Identifier: MIT
// What the K cache's two kinds of file (k/k_cache.h, k/k_journal.h) share: positional reads and
// writes that finish what they start, and a chunk's arrays as they lie in the file, one after
// the other, with one checksum over all of them.
#pragma once
#include <cstdint>
#include <utility>
#include <vector>

namespace rsim::kfile {

// Arrays as (address, bytes), in file order.
using Arrays = std::vector<std::pair<void*, std::uint64_t>>;
template <class V> std::pair<void*, std::uint64_t> arrayOf(V& v) {
    return {const_cast<void*>(static_cast<const void*>(v.data())), v.size() * sizeof(v[0])};
}

// XXH3 (64 bits) of the arrays' bytes, one after the other.
std::uint64_t checksumOf(const Arrays& arrays);

// `bytes` at `offset` of `fd`, however many calls it takes (pread/pwrite: safe from several
// threads at once); false on an error or the end of the file.
bool readAt(int fd, void* to, std::uint64_t bytes, std::uint64_t offset);
bool writeAt(int fd, const void* from, std::uint64_t bytes, std::uint64_t offset);
// The arrays from `offset` on, one after the other.
bool readArrays(int fd, const Arrays& arrays, std::uint64_t offset);

} // namespace rsim::kfile
