// SPDX-License-Identifier: MIT
#include "k/k_journal.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <spdlog/spdlog.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include "k/k_file_io.h"
#include "util/error.h"
#include "util/parallel.h"

namespace rsim {
namespace {

namespace fs = std::filesystem;

constexpr char kMagic[8] = {'R', 'S', 'I', 'M', 'K', 'J', 0, 1};
constexpr std::uint32_t kVersion = 1;
constexpr std::uint32_t kByteOrder = 0x01020304;
constexpr std::size_t kCounts = 9; // VisibilityStats::addCounts' fields

struct FileHeader {
    char magic[8];
    std::uint32_t version, byteOrder;
    char key[32];
    std::uint32_t n, rowsPerChunk, format, chunks, layout, pad;
    std::uint64_t checksum; // of everything above
};

// A chunk's record: this header, then its rows' sums (doubles), and as segments its tile starts
// and segments, then its packed values and its table.
struct RecordHeader {
    std::uint32_t chunk, rows;
    std::uint64_t counts[kCounts];
    std::uint64_t clamped, values, words, tableEntries, tileEntries, segmentWords;
    double sumSquaredError, maxAbsError;
    std::uint64_t dataChecksum;
    std::uint64_t checksum; // of everything above
};

template <class T> std::uint64_t checksumOf(const T& h) { return XXH3_64bits(&h, offsetof(T, checksum)); }

std::array<std::uint64_t*, kCounts> countFields(VisibilityStats& s) {
    return {&s.candidatePairs, &s.nonzeroPairs, &s.raysCast,        &s.clearPairs,    &s.raysListed,
            &s.tilesListed,    &s.tilesLong,    &s.tileListEntries, &s.raysByBlockers};
}

// The record's arrays, in file order.
using kfile::arrayOf;
using kfile::readAt;
using kfile::writeAt;
using Arrays = kfile::Arrays;
// (Addresses of a const record too: it is only read through them, by a write or a checksum.)
Arrays arraysOf(const KJournalChunk& c, KLayout layout) {
    if (layout == KLayout::Segments)
        return {arrayOf(c.rowSums), arrayOf(c.segments.tileStart), arrayOf(c.segments.segments),
                arrayOf(c.segments.words), arrayOf(c.segments.table)};
    return {arrayOf(c.rowSums), arrayOf(c.dense.words), arrayOf(c.dense.table)};
}
std::uint64_t dataBytes(const RecordHeader& r) {
    return r.rows * 8ull + (r.words + r.tableEntries + r.tileEntries + r.segmentWords) * 4ull;
}

// Whether `h` is the header of a chunks file of `key` in `chunking` (any layout).
bool headerMatches(const FileHeader& h, const std::string& key, const KChunking& chunking) {
    return std::memcmp(h.magic, kMagic, sizeof kMagic) == 0 && h.checksum == checksumOf(h) && h.version == kVersion &&
           h.byteOrder == kByteOrder && std::string(h.key, sizeof h.key) == key && h.n == chunking.n &&
           h.rowsPerChunk == chunking.rowsPerChunk && h.format == std::uint32_t(chunking.format) &&
           h.chunks == chunking.chunks();
}

struct FoundRecord {
    RecordHeader h;
    std::uint64_t at;
};
// The records of a file of `size` bytes whose headers are sound and sized for `chunking` and
// `layout`, up to the first that is not or that the file cuts short (their data unchecked).
std::vector<FoundRecord> recordHeaders(int fd, std::uint64_t size, const KChunking& chunking, KLayout layout) {
    std::vector<FoundRecord> found;
    std::uint64_t at = sizeof(FileHeader);
    const std::uint32_t bits = shared::rsimKBits(chunking.storage());
    for (;;) {
        RecordHeader h{};
        if (at + sizeof h > size || !readAt(fd, &h, sizeof h, at) || h.checksum != checksumOf(h)) break;
        const bool sized = h.chunk < chunking.chunks() && h.rows == chunking.rows(h.chunk) &&
                           h.values <= chunking.elements(h.chunk) && h.words * 32 / bits <= 2 * chunking.elements(h.chunk) &&
                           h.tableEntries <= 1024 &&
                           (layout == KLayout::Segments ? h.tileEntries == segmentTiles(h.rows) + 1 &&
                                                              h.segmentWords % shared::RSIM_K_SEGMENT_WORDS == 0
                                                        : h.tileEntries == 0 && h.segmentWords == 0);
        const std::uint64_t next = at + sizeof h + dataBytes(h);
        if (!sized || next > size) break;
        found.push_back({h, at});
        at = next;
    }
    return found;
}

// An empty record of `h`'s sizes, its arrays sized to be read into.
KJournalChunk sizedFor(const RecordHeader& h, KLayout layout) {
    KJournalChunk c;
    c.rowSums.resize(h.rows);
    auto fill = [&](auto& e) {
        e.words.resize(h.words);
        e.table.resize(h.tableEntries);
        e.sumSquaredError = h.sumSquaredError;
        e.maxAbsError = h.maxAbsError;
    };
    if (layout == KLayout::Segments) {
        fill(c.segments);
        c.segments.values = h.values;
        c.segments.tileStart.resize(h.tileEntries);
        c.segments.segments.resize(h.segmentWords);
    } else {
        fill(c.dense);
        c.dense.count = h.values;
    }
    c.clamped = h.clamped;
    const auto f = countFields(c.counts);
    for (std::size_t k = 0; k < kCounts; ++k) *f[k] = h.counts[k];
    return c;
}

} // namespace

KJournal::KJournal(fs::path dir, std::string key, KChunking chunking, std::uint64_t maxBytes)
    : dir_(std::move(dir)), key_(std::move(key)), chunking_(chunking), maxBytes_(maxBytes) {}

KJournal::~KJournal() {
    if (fd_ >= 0) ::close(fd_); // and with it the lock
}

bool KJournal::isJournalName(const std::string& name) {
    if (name.size() != 32 + 8 || name.compare(32, 8, ".kchunks") != 0) return false;
    return std::all_of(name.begin(), name.begin() + 32, [](char c) { return std::isxdigit(static_cast<unsigned char>(c)); });
}

bool KJournal::inUse(const fs::path& file) {
    const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) return false;
    const bool locked = ::flock(fd, LOCK_EX | LOCK_NB) != 0;
    ::close(fd);
    return locked;
}

std::uint32_t KJournal::chunksIn(const fs::path& dir, const std::string& key, const KChunking& chunking) {
    const fs::path path = dir / (key + ".kchunks");
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) return 0;
    struct stat st {};
    FileHeader h{};
    std::vector<char> seen(chunking.chunks(), 0);
    if (::fstat(fd, &st) == 0 && std::uint64_t(st.st_size) >= sizeof h && readAt(fd, &h, sizeof h, 0) &&
        headerMatches(h, key, chunking) &&
        (h.layout == std::uint32_t(KLayout::Dense) || h.layout == std::uint32_t(KLayout::Segments)))
        for (const FoundRecord& r : recordHeaders(fd, std::uint64_t(st.st_size), chunking, KLayout(h.layout)))
            seen[r.h.chunk] = 1;
    ::close(fd);
    return std::uint32_t(std::count(seen.begin(), seen.end(), 1));
}

std::uint32_t KJournal::chunksHeld() const {
    return std::uint32_t(std::count_if(at_.begin(), at_.end(), [](std::uint64_t a) { return a != 0; }));
}

bool KJournal::open(KLayout layout) {
    layout_ = layout;
    const fs::path path = file();
    std::error_code ec;
    fs::create_directories(dir_, ec);
    fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (fd_ < 0) {
        spdlog::warn("K cache: {} cannot be opened ({}); K's chunks are not kept", path.string(), std::strerror(errno));
        return false;
    }
    if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
        spdlog::info("K cache: another run holds {}; this run computes K without it", path.string());
        ::close(fd_);
        fd_ = -1;
        return false;
    }
    at_.assign(chunking_.chunks(), 0);
    struct stat st {};
    FileHeader h{};
    // Only a file of this user's that is empty or starts as a chunks file does is ever written:
    // anything else at that name (planted in a shared cache folder) is left as it is.
    const bool read = ::fstat(fd_, &st) == 0 && readAt(fd_, &h, std::min<std::uint64_t>(sizeof h, st.st_size), 0);
    const bool ours = read && st.st_uid == ::geteuid() && S_ISREG(st.st_mode) &&
                      (st.st_size == 0 || (std::uint64_t(st.st_size) >= sizeof kMagic &&
                                           std::memcmp(h.magic, kMagic, sizeof kMagic) == 0));
    if (!ours) {
        spdlog::warn("K cache: {} is not a chunks file of this user's; left alone, and K's chunks are not kept",
                     path.string());
        ::close(fd_);
        fd_ = -1;
        return false;
    }
    const bool sound = std::uint64_t(st.st_size) >= sizeof h && headerMatches(h, key_, chunking_) &&
                       h.layout == std::uint32_t(layout);
    if (!sound) {
        if (st.st_size > 0)
            spdlog::info("K cache: {} holds K's chunks of another layout or is unsound; started afresh", path.string());
        return startAfresh(layout);
    }
    scanRecords(std::uint64_t(st.st_size));
    if (::ftruncate(fd_, off_t(end_)) != 0) return startAfresh(layout);
    const std::uint32_t held = chunksHeld();
    if (held > 0)
        spdlog::info("K cache: {} of K's {} chunks are in {} ({:.1f} MiB): they are placed, not cast again", held,
                     chunking_.chunks(), path.string(), double(end_) / 1048576.0);
    return true;
}

bool KJournal::startAfresh(KLayout layout) {
    FileHeader h{};
    std::memcpy(h.magic, kMagic, sizeof kMagic);
    h.version = kVersion;
    h.byteOrder = kByteOrder;
    std::memcpy(h.key, key_.data(), std::min(key_.size(), sizeof h.key));
    h.n = chunking_.n;
    h.rowsPerChunk = chunking_.rowsPerChunk;
    h.format = std::uint32_t(chunking_.format);
    h.chunks = chunking_.chunks();
    h.layout = std::uint32_t(layout);
    h.checksum = checksumOf(h);
    at_.assign(chunking_.chunks(), 0);
    if (::ftruncate(fd_, 0) != 0 || !writeAt(fd_, &h, sizeof h, 0)) {
        spdlog::warn("K cache: {} cannot be written ({}); K's chunks are not kept", file().string(), std::strerror(errno));
        ::close(fd_);
        fd_ = -1;
        return false;
    }
    end_ = sizeof h;
    return true;
}

// The records from the header on, up to the first that is cut short or unsound; end_ after it.
// Data checksums are checked on all cores.
void KJournal::scanRecords(std::uint64_t size) {
    const std::vector<FoundRecord> found = recordHeaders(fd_, size, chunking_, layout_);
    std::vector<char> sound(found.size(), 0);
    parallelFor(found.size(), 1, [&](std::size_t b, std::size_t e, unsigned) {
        for (std::size_t r = b; r < e; ++r) {
            KJournalChunk c = sizedFor(found[r].h, layout_);
            const Arrays arrays = arraysOf(c, layout_);
            sound[r] = kfile::readArrays(fd_, arrays, found[r].at + sizeof(RecordHeader)) &&
                       kfile::checksumOf(arrays) == found[r].h.dataChecksum &&
                       (layout_ != KLayout::Segments || segmentsSound(c.segments, chunking_.n, chunking_.storage()));
        }
    });
    end_ = sizeof(FileHeader);
    for (std::size_t r = 0; r < found.size() && sound[r]; ++r) {
        at_[found[r].h.chunk] = found[r].at;
        end_ = found[r].at + sizeof(RecordHeader) + dataBytes(found[r].h);
    }
    if (end_ < size)
        spdlog::info("K cache: {} ends in a record cut short or damaged (a run stopped while writing it); "
                     "K's chunks are kept up to it", file().string());
}

KJournalChunk KJournal::read(std::uint32_t c) const {
    RecordHeader h{};
    if (!holds(c) || !readAt(fd_, &h, sizeof h, at_[c]))
        throw Error("K cache: chunk " + std::to_string(c) + " of " + file().string() + " cannot be read");
    KJournalChunk out = sizedFor(h, layout_);
    const Arrays arrays = arraysOf(out, layout_);
    if (!kfile::readArrays(fd_, arrays, at_[c] + sizeof h) || kfile::checksumOf(arrays) != h.dataChecksum)
        throw Error("K cache: chunk " + std::to_string(c) + " of " + file().string() +
                    " changed since the run opened it (checksum); remove the file and run again");
    return out;
}

void KJournal::append(std::uint32_t c, const KJournalChunk& chunk) {
    const Arrays arrays = arraysOf(chunk, layout_);
    RecordHeader h{};
    h.chunk = c;
    h.rows = std::uint32_t(chunk.rowSums.size());
    VisibilityStats counts = chunk.counts;
    const auto f = countFields(counts);
    for (std::size_t k = 0; k < kCounts; ++k) h.counts[k] = *f[k];
    h.clamped = chunk.clamped;
    const bool segments = layout_ == KLayout::Segments;
    h.values = segments ? chunk.segments.values : chunk.dense.count;
    h.words = segments ? chunk.segments.words.size() : chunk.dense.words.size();
    h.tableEntries = segments ? chunk.segments.table.size() : chunk.dense.table.size();
    h.tileEntries = segments ? chunk.segments.tileStart.size() : 0;
    h.segmentWords = segments ? chunk.segments.segments.size() : 0;
    h.sumSquaredError = segments ? chunk.segments.sumSquaredError : chunk.dense.sumSquaredError;
    h.maxAbsError = segments ? chunk.segments.maxAbsError : chunk.dense.maxAbsError;
    h.dataChecksum = kfile::checksumOf(arrays);
    h.checksum = checksumOf(h);
    const std::uint64_t bytes = sizeof h + dataBytes(h);

    std::lock_guard lock(mutex_);
    if (fd_ < 0 || stopped_ || holds(c)) return;
    if (end_ + bytes > maxBytes_) {
        spdlog::warn("K cache: {} would exceed the cache's {:.1f} GiB (--k-cache-max-gb); K's later chunks are not kept",
                     file().string(), double(maxBytes_) / 1073741824.0);
        stopped_ = true;
        return;
    }
    if (makeRoom_ && end_ + bytes > roomFor_) {
        roomFor_ = std::min<std::uint64_t>(maxBytes_, end_ + bytes + (1ull << 30));
        makeRoom_(roomFor_);
    }
    std::uint64_t offset = end_ + sizeof h;
    bool written = writeAt(fd_, &h, sizeof h, end_);
    for (const auto& [p, n] : arrays) {
        written = written && writeAt(fd_, p, n, offset);
        offset += n;
    }
    if (!written) {
        spdlog::warn("K cache: writing {} failed ({}); K's later chunks are not kept", file().string(),
                     std::strerror(errno));
        if (::ftruncate(fd_, off_t(end_)) != 0) spdlog::debug("K cache: {} not cut back", file().string());
        stopped_ = true;
        return;
    }
    at_[c] = end_;
    end_ += bytes;
}

} // namespace rsim
