// SPDX-License-Identifier: MIT
// Row-block mode of an MPI job (README.md, "Several machines"): one scene over R ranks, rank r
// owning a contiguous block of K's rows. It computes the visibility of its rows and gathers
// their far sums; after each time block the ranks exchange those sums, and every rank runs the
// near steps of all rows, so every rank holds every history. Blocks are whole chunks of K's
// chunking (each chunk's LUT table then is the one a single process computes), as equal in
// rows as the chunk boundaries allow: a row costs the same everywhere (n pairs to trace, n
// sources to gather).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "k/k_chunking.h"
#include "util/ranks.h"

namespace rsim {

class RowShare {
public:
    RowShare(const KChunking& chunking, const Ranks& ranks);
    // The same cut of K's rows among the `count` devices of one process, this share the one of
    // device `part`: it has no ranks to talk to (the devices swap through host memory,
    // visibility/vulkan_visibility_ranks.h).
    RowShare(const KChunking& chunking, int count, int part);

    // The job's ranks; only for a share made with them.
    const Ranks& ranks() const;
    int rank() const { return rank_; }
    int count() const { return count_; }
    // "rank r" or "device r", for messages.
    std::string name(int r) const;
    const KChunking& chunking() const { return chunking_; }

    // Rank r's chunks [firstChunk(r), endChunk(r)) and rows [rowBegin(r), rowEnd(r)); without r,
    // this rank's. A rank may own none (more ranks than chunks).
    std::uint32_t firstChunk(int r) const { return first_[std::size_t(r)]; }
    std::uint32_t endChunk(int r) const { return first_[std::size_t(r) + 1]; }
    // Every part's first chunk, then chunks().
    const std::vector<std::uint32_t>& firsts() const { return first_; }
    std::uint32_t rowBegin(int r) const { return rowOfChunk(firstChunk(r)); }
    std::uint32_t rowEnd(int r) const { return rowOfChunk(endChunk(r)); }
    // Rank r's chunks cut into `parts` consecutive parts (some may be empty): part p starts at
    // partChunk(r, p, parts), and partChunk(r, parts, parts) == endChunk(r).
    std::uint32_t partChunk(int r, std::uint32_t p, std::uint32_t parts) const {
        return firstChunk(r) + (endChunk(r) - firstChunk(r)) * p / parts;
    }
    // The first row of chunk c (n for c == chunks()).
    std::uint32_t rowOfChunk(std::uint32_t c) const { return std::min(chunking_.n, c * chunking_.rowsPerChunk); }
    // The pairs (i, j) between the rows of two ranks lo < hi (every i of lo's rows below every j
    // of hi's) are cut in two by lo's rows: lo computes the first half of its rows against all
    // of hi's rows, hi the second half. So each pair is computed once in the job, and every rank
    // computes about as many pairs as the others (its own block's upper triangle and half of a
    // block per other rank). The block of pairs `tracer` computes with `other`: rows [i0, i1)
    // (lo's), columns [j0, j1) (hi's); `atChunk`: cut at the chunk boundary of lo's middle
    // chunk instead of its middle row (whole chunks on either side).
    struct PairBlock {
        std::uint32_t i0 = 0, i1 = 0, j0 = 0, j1 = 0;
        std::size_t pairs() const { return std::size_t(i1 - i0) * (j1 - j0); }
    };
    // (Two devices of one process claim that block in groups instead, k/shared_block_claims.h.)
    PairBlock pairBlock(int tracer, int other, bool atChunk = false) const;

    std::uint32_t firstChunk() const { return firstChunk(rank()); }
    std::uint32_t endChunk() const { return endChunk(rank()); }
    std::uint32_t rowBegin() const { return rowBegin(rank()); }
    std::uint32_t rowEnd() const { return rowEnd(rank()); }

private:
    void cut();

    const Ranks* ranks_ = nullptr;
    int rank_ = 0, count_ = 1;
    KChunking chunking_;
    std::vector<std::uint32_t> first_; // count() + 1 entries
};

} // namespace rsim
