// SPDX-License-Identifier: MIT
// How sparse a cached K is (issue 63, docs/scaling.md "Sparse K"): reads K cache files
// (src/k/k_cache.cpp's layout, file versions 2 and 3: a 152- or 160-byte file header, then per
// chunk a 56- or 72-byte header, its words and its table; dense K only) and prints per file the element density and, for tiles of 8, 16, 32 and
// 64 rows of a chunk, how many (tile, column) segments hold a non-zero element: what a K stored
// as the non-zero segments of its row tiles would keep. Built here, run anywhere:
//   g++ -O3 -std=c++20 -static scripts/device/k_density.cpp -o .device/k_density
//   .device/k_density ~/.cache/rsim/k/*.kcache     (CSV on stdout)
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

namespace {

bool readExact(std::FILE* f, void* to, std::size_t bytes) { return std::fread(to, 1, bytes, f) == bytes; }

// Element e of a chunk's words is non-zero (entry 0 of a LUT is the exact zero; fp32 and fp16
// zeros are all-zero bits: K is never negative).
bool nonzero(const std::vector<std::uint32_t>& w, std::uint32_t bits, std::uint64_t e) {
    const std::uint32_t per = 32 / bits;
    const std::uint32_t word = w[e / per], shift = std::uint32_t(e % per) * bits;
    const std::uint32_t mask = bits == 32 ? 0xffffffffu : ((1u << bits) - 1u);
    return ((word >> shift) & mask) != 0;
}

int analyse(const char* path) {
    std::FILE* f = std::fopen(path, "rb");
    if (!f) return std::fprintf(stderr, "%s: cannot open\n", path), 1;
    unsigned char head[160];
    std::uint32_t version = 0, layout = 0;
    if (!readExact(f, head, 152) || std::memcmp(head, "RSIMKC", 6) != 0)
        return std::fprintf(stderr, "%s: not a K cache file\n", path), std::fclose(f), 1;
    std::memcpy(&version, head + 8, 4);
    if (version == 3) { // the layout after the chunk count: 8 bytes more
        if (!readExact(f, head + 152, 8)) return std::fprintf(stderr, "%s: truncated\n", path), std::fclose(f), 1;
        std::memcpy(&layout, head + 64, 4);
    }
    if ((version != 2 && version != 3) || (version == 3 && layout != 1)) // KLayout::Dense is 1 (Auto 0, Segments 2)
        return std::fprintf(stderr, "%s: not a dense K of file version 2 or 3\n", path), std::fclose(f), 1;
    std::uint32_t n, rowsPerChunk, format, chunks;
    std::memcpy(&n, head + 48, 4);
    std::memcpy(&rowsPerChunk, head + 52, 4);
    std::memcpy(&format, head + 56, 4);
    std::memcpy(&chunks, head + 60, 4);
    constexpr std::uint32_t kTiles[] = {8, 16, 32, 64};
    std::uint64_t nonzeros = 0, segments[4] = {}, words = 0, bitsOf = 0;
    for (std::uint32_t c = 0; c < chunks; ++c) {
        std::uint64_t ch[9];
        if (!readExact(f, ch, (version == 3 ? 9 : 7) * 8)) return std::fprintf(stderr, "%s: truncated\n", path), std::fclose(f), 1;
        const std::uint64_t count = ch[0];
        std::vector<std::uint32_t> w(ch[1]);
        std::vector<float> table(ch[2]);
        if (!readExact(f, w.data(), w.size() * 4) || !readExact(f, table.data(), table.size() * 4))
            return std::fprintf(stderr, "%s: truncated chunk %u\n", path, c), std::fclose(f), 1;
        const std::uint32_t rows = std::uint32_t(count / n);
        const std::uint32_t bits = std::uint32_t((w.size() * 32) / count); // 32, 16, 8 or 4
        bitsOf = bits;
        words += w.size();
        for (std::uint32_t j = 0; j < n; ++j) {
            std::uint32_t hit[4] = {~0u, ~0u, ~0u, ~0u}; // the last tile counted, per tile size
            for (std::uint32_t r = 0; r < rows; ++r) {
                if (!nonzero(w, bits, std::uint64_t(j) * rows + r)) continue;
                ++nonzeros;
                for (int t = 0; t < 4; ++t)
                    if (r / kTiles[t] != hit[t]) hit[t] = r / kTiles[t], ++segments[t];
            }
        }
    }
    std::fclose(f);
    const double all = double(n) * n;
    std::printf("%s,%u,%u,%llu,%llu,%.5f", path, n, rowsPerChunk, (unsigned long long)bitsOf,
                (unsigned long long)nonzeros, nonzeros / all);
    for (int t = 0; t < 4; ++t) // segments, and the share of the segments' elements that are non-zero
        std::printf(",%llu,%.4f", (unsigned long long)segments[t], nonzeros / (double(segments[t]) * kTiles[t]));
    std::printf(",%llu\n", (unsigned long long)words * 4);
    (void)format;
    return 0;
}

} // namespace

int main(int argc, char** argv) {
    std::printf("file,n,rows_per_chunk,bits,nonzero,density,seg8,fill8,seg16,fill16,seg32,fill32,seg64,fill64,"
                "dense_bytes\n");
    int rc = 0;
    for (int a = 1; a < argc; ++a) rc |= analyse(argv[a]);
    return rc;
}
