// SPDX-License-Identifier: MIT
// The K cache's chunks file (<key>.kchunks beside the cache's .kcache files): K's chunks kept on
// disk as a long visibility computes them, so that a run stopped during visibility (a time
// limit, a lost machine, Ctrl-C) resumes where it stopped instead of casting every ray again, and
// a later run of the same key places the chunks instead of casting any. It serves where K is
// computed chunk by chunk with full rows (K where it lives, k/k_plan.h): each chunk is final when
// it arrives, and the host never holds all of K (the 1M-triangle scenes, issue 63).
//
// After a header naming the key, chunking, format and layout, records follow in the order the
// chunks completed: each chunk's encoded values (dense or segments, with its table), its rows'
// sums sum_j F_ij and clamped count (k/k_diagnostics.h) and its pair, ray and tile counts, with
// checksums of its header and of its data. A record cut short by a kill, or damaged, ends the
// usable part of the file, which the next run cuts it back to before appending. A run holds the
// file locked (flock): a second run of the same key computes K without it.
#pragma once
#include <cstdint>
#include <filesystem>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "core/results.h"
#include "k/k_chunking.h"
#include "k/k_encode.h"
#include "k/k_segments.h"

namespace rsim {

// What a chunk's record holds.
struct KJournalChunk {
    EncodedChunk dense;          // KLayout::Dense
    SegmentChunk segments;       // KLayout::Segments
    std::vector<double> rowSums; // sum_j F_ij of the chunk's rows, first row first
    std::uint64_t clamped = 0;   // its form factors clamped (K_ij A_j > 1)
    VisibilityStats counts;      // its pairs, rays and tiles (VisibilityStats::addCounts' fields)
};

class KJournal {
public:
    // Nothing touches the disk until open(). `maxBytes`: the K cache's size (--k-cache-max-gb);
    // the file stops growing there.
    KJournal(std::filesystem::path dir, std::string key, KChunking chunking, std::uint64_t maxBytes);
    ~KJournal();
    KJournal(const KJournal&) = delete;
    KJournal& operator=(const KJournal&) = delete;

    // Opens the file for K stored in `layout` (creating it, or starting it afresh when it holds
    // another layout or its header is unsound) and locks it; false, with a log line, when it
    // cannot be used (another run holds it, the folder cannot be written).
    bool open(KLayout layout);
    bool holds(std::uint32_t chunk) const { return chunk < at_.size() && at_[chunk] != 0; }
    std::uint32_t chunksHeld() const;
    // Chunk c's record (holds(c)). Throws Error when it cannot be read back (it was checked
    // when the file was opened).
    KJournalChunk read(std::uint32_t c) const;
    // Appends chunk c's record; callable from several threads. A failure (disk full, the cache's
    // size reached) is a warning, after which nothing more is appended.
    void append(std::uint32_t c, const KJournalChunk& chunk);
    // Called (under the journal's lock) each time the file is about to pass another GiB, with
    // the bytes it will reach: the K cache makes room for it among its other files.
    void onGrowth(std::function<void(std::uint64_t)> makeRoom) { makeRoom_ = std::move(makeRoom); }
    // The bytes of the file so far.
    std::uint64_t bytes() const { return end_; }

    std::filesystem::path file() const { return dir_ / (key_ + ".kchunks"); }
    // Whether `name` is a chunks file's: 32 hex digits and ".kchunks".
    static bool isJournalName(const std::string& name);
    // How many chunks the chunks file of `key` in `dir` holds by its records' headers (their
    // data unchecked, the file not locked): for a forecast before the run opens it.
    static std::uint32_t chunksIn(const std::filesystem::path& dir, const std::string& key, const KChunking& chunking);
    // Whether some process holds `file` locked (a run appending to it or reading from it).
    static bool inUse(const std::filesystem::path& file);

private:
    bool startAfresh(KLayout layout);
    void scanRecords(std::uint64_t size);
    std::filesystem::path dir_;
    std::string key_;
    KChunking chunking_;
    std::uint64_t maxBytes_;
    KLayout layout_ = KLayout::Dense;
    int fd_ = -1;
    std::vector<std::uint64_t> at_; // a chunk's record offset; 0: not held
    std::uint64_t end_ = 0;         // where the next record goes
    bool stopped_ = false;          // an append failed: no more
    std::function<void(std::uint64_t)> makeRoom_;
    std::uint64_t roomFor_ = 0; // the size the K cache last made room for
    mutable std::mutex mutex_;
};

} // namespace rsim
