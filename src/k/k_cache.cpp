// SPDX-License-Identifier: MIT
#include "k/k_cache.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include <spdlog/spdlog.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include "k/k_file_io.h"
#include "k/k_journal.h"
#include "util/cache_dir.h"
#include "util/owned_files.h"
#include "util/error.h"
#include "util/parallel.h"

namespace rsim {
namespace {

namespace fs = std::filesystem;

constexpr char kMagic[8] = {'R', 'S', 'I', 'M', 'K', 'C', 0, 1};
constexpr std::uint32_t kFileVersion = 3; // 2: clearPairs; 3: K stored as segments (layout)
constexpr std::uint32_t kByteOrder = 0x01020304;

struct FileHeader {
    char magic[8];
    std::uint32_t fileVersion, byteOrder;
    char key[32];
    std::uint32_t n, rowsPerChunk, format, chunks;
    std::uint32_t layout, pad; // KLayout: Dense or Segments
    std::uint64_t candidatePairs, nonzeroPairs, raysCast, clearPairs, clampedFormFactors, rowsOverOne, kBytes;
    double maxRowSum, rmsError, maxAbsError;
    std::uint64_t checksum; // of everything above
};

// Dense: `count` elements in `words`. As segments (k/k_segments.h): `count` values in `words`,
// after `tileEntries` tile starts and `segmentWords` words of segments.
struct ChunkHeader {
    std::uint64_t count, words, tableEntries, tileEntries, segmentWords;
    double sumSquaredError, maxAbsError;
    std::uint64_t dataChecksum;   // of the words, then the table
    std::uint64_t headerChecksum; // of everything above
};

template <class T> std::uint64_t checksumOfFields(const T& h) {
    return XXH3_64bits(&h, offsetof(T, checksum));
}

// A chunk's arrays as they lie in the file, one after the other.
using kfile::arrayOf;
using kfile::readAt;
using ChunkArrays = kfile::Arrays;
ChunkArrays arraysOf(const EncodedChunk& c) { return {arrayOf(c.words), arrayOf(c.table)}; }
ChunkArrays arraysOf(const SegmentChunk& c) {
    return {arrayOf(c.tileStart), arrayOf(c.segments), arrayOf(c.words), arrayOf(c.table)};
}

} // namespace

KCache::KCache(fs::path dir, std::uint64_t maxBytes) : dir_(std::move(dir)), maxBytes_(maxBytes) {}

fs::path KCache::defaultDir() {
    const fs::path dir = userCacheDir();
    return dir.empty() ? dir : dir / "k";
}

std::string KCache::key(const PreparedScene& s, const KSettings& k, const KChunking& chunking,
                        const std::string& computedBy) {
    XXH3_state_t* st = XXH3_createState();
    XXH3_128bits_reset(st);
    auto add = [st](const void* p, std::size_t bytes) { XXH3_128bits_update(st, p, bytes); };
    auto addValue = [&](auto v) { add(&v, sizeof v); };
    const std::string tag = "rsim K v" + std::to_string(kKEstimatorVersion) + " " + computedBy;
    add(tag.data(), tag.size() + 1);
    addValue(std::uint64_t(s.size()));
    for (const auto* v : {&s.v0, &s.v1, &s.v2}) add(v->data(), v->size() * sizeof(glm::vec3));
    addValue(s.rayEps);
    addValue(k.samples);
    addValue(kEstimatorId(k.estimator));
    addValue(k.nearPairFactor);
    addValue(std::uint32_t(k.clearPairsByFormula));
    addValue(k.seed);
    addValue(std::uint32_t(k.format));
    addValue(chunking.rowsPerChunk);
    const XXH128_hash_t h = XXH3_128bits_digest(st);
    XXH3_freeState(st);
    char hex[33];
    std::snprintf(hex, sizeof hex, "%016llx%016llx", static_cast<unsigned long long>(h.high64),
                  static_cast<unsigned long long>(h.low64));
    return hex;
}

std::string KCache::computedBy(const RunMetadata& meta) {
    std::string out = meta.backend + "/" + meta.visibilityPath;
    if (meta.backend != "cpu")
        for (const std::string& d : meta.devices) out += "/" + d;
    return out;
}

namespace {

// What is wrong with the header `h` of a file that should hold `key` in `chunking` ("" if nothing).
std::string headerProblem(const FileHeader& h, const std::string& key, const KChunking& chunking) {
    if (std::memcmp(h.magic, kMagic, sizeof kMagic) != 0) return "it is not an rsim K cache file";
    if (h.checksum != checksumOfFields(h)) return "its header is damaged (checksum mismatch)";
    if (h.fileVersion != kFileVersion || h.byteOrder != kByteOrder)
        return "it was written by another version of rsim or another byte order";
    if (std::string(h.key, sizeof h.key) != key) return "it holds another K (key mismatch)";
    if (h.n != chunking.n || h.rowsPerChunk != chunking.rowsPerChunk || h.format != std::uint32_t(chunking.format) ||
        h.chunks != chunking.chunks())
        return "its size, chunking or format differs from this run's";
    if (h.layout != std::uint32_t(KLayout::Dense) && h.layout != std::uint32_t(KLayout::Segments))
        return "its layout is unknown";
    return {};
}

} // namespace

bool KCache::holds(const std::string& key, const KChunking& chunking) const {
    const fs::path file = fileOf(key);
    const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) return false;
    FileHeader h{};
    const bool read = readAt(fd, &h, sizeof h, 0);
    ::close(fd);
    if (!read || !headerProblem(h, key, chunking).empty()) return false;
    // At least the chunks' words and headers (the tables add a little).
    std::uint64_t least = sizeof h + std::uint64_t(chunking.chunks()) * sizeof(ChunkHeader);
    if (h.layout == std::uint32_t(KLayout::Dense))
        for (std::uint32_t c = 0; c < chunking.chunks(); ++c) least += chunking.chunkBytes(c);
    std::error_code ec;
    const std::uint64_t size = fs::file_size(file, ec);
    return !ec && size >= least;
}

std::optional<CachedK> KCache::load(const std::string& key, const KChunking& chunking) const {
    const fs::path file = fileOf(key);
    std::error_code ec;
    if (!fs::is_regular_file(fs::symlink_status(file, ec))) return std::nullopt; // a link is not ours
    auto reject = [&](const std::string& why) -> std::optional<CachedK> {
        spdlog::warn("K cache: ignoring {}: {}; computing K instead", file.string(), why);
        return std::nullopt;
    };
    const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) return reject("it cannot be opened");
    const std::unique_ptr<const int, void (*)(const int*)> closer(&fd, [](const int* d) { ::close(*d); });
    struct stat st {};
    if (::fstat(fd, &st) != 0) return reject("it cannot be read");
    const std::uint64_t size = std::uint64_t(st.st_size);
    FileHeader h{};
    if (!readAt(fd, &h, sizeof h, 0)) return reject("it is truncated (no complete header)");
    if (const std::string problem = headerProblem(h, key, chunking); !problem.empty()) return reject(problem);

    // The chunks' headers one after the other (each says how long its table is), then their
    // data on every thread: a cached run reads K while its devices are created, and the read
    // (125 MiB for the medium room) was the longer of the two.
    CachedK out;
    out.K = HostK::unfilled(chunking);
    const bool segments = h.layout == std::uint32_t(KLayout::Segments);
    if (segments) out.K.setUnfilledSegments();
    std::vector<ChunkHeader> headers(h.chunks);
    std::vector<std::uint64_t> dataAt(h.chunks);
    std::uint64_t at = sizeof h;
    for (std::uint32_t c = 0; c < h.chunks; ++c) {
        ChunkHeader& ch = headers[c];
        if (!readAt(fd, &ch, sizeof ch, at))
            return reject("it is truncated (chunk " + std::to_string(c) + " of " + std::to_string(h.chunks) + ")");
        if (ch.headerChecksum != XXH3_64bits(&ch, offsetof(ChunkHeader, headerChecksum)))
            return reject("chunk " + std::to_string(c) + " is damaged (header checksum)");
        const std::uint32_t bits = shared::rsimKBits(chunking.storage());
        const bool sized = segments ? ch.count <= chunking.elements(c) && ch.words * 32 / bits <= 2 * chunking.elements(c) &&
                                          ch.tileEntries == segmentTiles(chunking.rows(c)) + 1 &&
                                          ch.segmentWords % shared::RSIM_K_SEGMENT_WORDS == 0
                                    : ch.count == chunking.elements(c) &&
                                          ch.words == chunking.chunkBytes(c) / sizeof(std::uint32_t) &&
                                          ch.tileEntries == 0 && ch.segmentWords == 0;
        if (!sized || ch.tableEntries > 1024) return reject("chunk " + std::to_string(c) + " has the wrong size");
        dataAt[c] = at + sizeof ch;
        at = dataAt[c] + (ch.words + ch.tableEntries + ch.tileEntries + ch.segmentWords) * 4;
        if (at > size) return reject("it is truncated (inside chunk " + std::to_string(c) + ")");
    }
    if (at != size) return reject("it has data past its last chunk");
    std::vector<char> damaged(h.chunks, 0);
    parallelFor(h.chunks, 1, [&](std::size_t begin, std::size_t end, unsigned) {
        for (std::size_t c = begin; c < end; ++c) {
            const ChunkHeader& ch = headers[c];
            auto fill = [&](auto& e) {
                e.words.resize(ch.words);
                e.table.resize(ch.tableEntries);
                e.sumSquaredError = ch.sumSquaredError;
                e.maxAbsError = ch.maxAbsError;
            };
            ChunkArrays arrays;
            if (segments) {
                SegmentChunk& e = out.K.segments(std::uint32_t(c));
                fill(e);
                e.values = ch.count;
                e.tileStart.resize(ch.tileEntries);
                e.segments.resize(ch.segmentWords);
                arrays = arraysOf(e);
            } else {
                EncodedChunk& e = out.K.chunk(std::uint32_t(c));
                fill(e);
                e.count = ch.count;
                arrays = arraysOf(e);
            }
            damaged[c] = !kfile::readArrays(fd, arrays, dataAt[c]) || kfile::checksumOf(arrays) != ch.dataChecksum ||
                         (segments && !segmentsSound(out.K.segments(std::uint32_t(c)), chunking.n, chunking.storage()));
        }
    });
    for (std::uint32_t c = 0; c < h.chunks; ++c)
        if (damaged[c]) return reject("chunk " + std::to_string(c) + " is damaged (checksum)");
    out.stats.candidatePairs = h.candidatePairs;
    out.stats.nonzeroPairs = h.nonzeroPairs;
    out.stats.raysCast = h.raysCast;
    out.stats.clearPairs = h.clearPairs;
    out.stats.clampedFormFactors = h.clampedFormFactors;
    out.stats.rowsOverOne = h.rowsOverOne;
    out.stats.maxRowSum = h.maxRowSum;
    out.storage.format = kFormatInfo(chunking.format).name;
    out.storage.layout = kLayoutName(KLayout(h.layout));
    out.storage.segments = out.K.segmentCount();
    out.storage.bytes = h.kBytes;
    out.storage.chunks = h.chunks;
    out.storage.rowsPerChunk = h.rowsPerChunk;
    out.storage.rmsError = h.rmsError;
    out.storage.maxAbsError = h.maxAbsError;
    ::futimens(fd, nullptr); // recently used (the file itself, opened without following a link)
    return out;
}

void KCache::store(const std::string& key, const HostK& K, const VisibilityStats& stats,
                   const KStorageReport& storage) const {
    const KChunking& ch = K.chunking();
    const bool segments = K.layout() == KLayout::Segments;
    std::vector<ChunkArrays> arrays;
    std::uint64_t bytes = sizeof(FileHeader);
    for (std::uint32_t c = 0; c < K.chunkCount(); ++c) {
        arrays.push_back(segments ? arraysOf(K.segments(c)) : arraysOf(K.chunk(c)));
        bytes += sizeof(ChunkHeader);
        for (const auto& a : arrays.back()) bytes += a.second;
    }
    if (bytes > maxBytes_) {
        spdlog::info("K cache: K takes {:.1f} GiB, more than the cache may hold ({:.1f} GiB); not stored",
                     double(bytes) / 1073741824.0, double(maxBytes_) / 1073741824.0);
        return;
    }
    const fs::path file = fileOf(key);
    try {
        fs::create_directories(dir_);
        evict(maxBytes_ - bytes);
        // A fresh, exclusively created and locked name (util/owned_files.h): a link or file that
        // someone planted in a shared cache folder is never written through.
        TempFile tmp(file);
        FileHeader h{};
        std::memcpy(h.magic, kMagic, sizeof kMagic);
        h.fileVersion = kFileVersion;
        h.byteOrder = kByteOrder;
        std::memcpy(h.key, key.data(), std::min(key.size(), sizeof h.key));
        h.n = ch.n;
        h.rowsPerChunk = ch.rowsPerChunk;
        h.format = std::uint32_t(ch.format);
        h.chunks = ch.chunks();
        h.layout = std::uint32_t(K.layout());
        h.candidatePairs = stats.candidatePairs;
        h.nonzeroPairs = stats.nonzeroPairs;
        h.raysCast = stats.raysCast;
        h.clearPairs = stats.clearPairs;
        h.clampedFormFactors = stats.clampedFormFactors;
        h.rowsOverOne = stats.rowsOverOne;
        h.maxRowSum = stats.maxRowSum;
        h.kBytes = storage.bytes;
        h.rmsError = storage.rmsError;
        h.maxAbsError = storage.maxAbsError;
        h.checksum = checksumOfFields(h);
        tmp.write(&h, sizeof h);
        for (std::uint32_t c = 0; c < K.chunkCount(); ++c) {
            ChunkHeader chh{};
            if (segments) {
                const SegmentChunk& e = K.segments(c);
                chh = {e.values, e.words.size(), e.table.size(), e.tileStart.size(), e.segments.size(),
                       e.sumSquaredError, e.maxAbsError, kfile::checksumOf(arrays[c]), 0};
            } else {
                const EncodedChunk& e = K.chunk(c);
                chh = {e.count, e.words.size(), e.table.size(), 0, 0, e.sumSquaredError, e.maxAbsError,
                       kfile::checksumOf(arrays[c]), 0};
            }
            chh.headerChecksum = XXH3_64bits(&chh, offsetof(ChunkHeader, headerChecksum));
            tmp.write(&chh, sizeof chh);
            for (const auto& [data, size] : arrays[c]) tmp.write(data, size);
        }
        tmp.commit();
        spdlog::info("K cache: stored K ({:.1f} MiB) as {}", double(bytes) / 1048576.0, file.string());
    } catch (const std::exception& e) {
        spdlog::warn("K cache: K not stored: {}", e.what());
    }
}

namespace {

// Whether `name` is a K cache file's: 32 hex digits and ".kcache".
bool isCacheFileName(const std::string& name) {
    if (name.size() != 32 + 7 || name.compare(32, 7, ".kcache") != 0) return false;
    return std::all_of(name.begin(), name.begin() + 32, [](char c) { return std::isxdigit(static_cast<unsigned char>(c)); });
}

// Whether `file` (not followed if a link) starts with the K cache's magic.
bool hasCacheMagic(const fs::path& file) {
    const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) return false;
    char magic[sizeof kMagic] = {};
    const bool ok = readAt(fd, magic, sizeof magic, 0) && std::memcmp(magic, kMagic, sizeof kMagic) == 0;
    ::close(fd);
    return ok;
}

} // namespace

void KCache::evict(std::uint64_t keepBytes) const {
    struct Entry {
        fs::path path;
        fs::file_time_type time;
        std::uint64_t bytes;
    };
    std::vector<Entry> files;
    std::uint64_t total = 0;
    std::error_code ec;
    for (fs::directory_iterator it(dir_, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        // Left by a process that died while storing: its lock is free and it has not changed for
        // an hour (util/owned_files.h; a writer of another node may show as unlocked).
        if (name.size() > 39 && isCacheFileName(name.substr(0, 39)) && isPartialName(name, name.substr(0, 39))) {
            if (abandonedFile(it->path(), std::chrono::hours(1))) fs::remove(it->path(), ec);
            continue;
        }
        // Only rsim's files: the name of a key, a regular file (not a link), the magic inside; a
        // chunks file (k/k_journal.h) when no run holds it.
        const bool journal = KJournal::isJournalName(name);
        if (journal ? !fs::is_regular_file(it->symlink_status(ec)) || KJournal::inUse(it->path())
                    : !isCacheFileName(name) || !fs::is_regular_file(it->symlink_status(ec)) || !hasCacheMagic(it->path()))
            continue;
        files.push_back({it->path(), it->last_write_time(ec), it->file_size(ec)});
        total += files.back().bytes;
    }
    std::sort(files.begin(), files.end(), [](const Entry& a, const Entry& b) { return a.time < b.time; });
    for (const Entry& e : files) {
        if (total <= keepBytes) break;
        if (fs::remove(e.path, ec)) {
            total -= e.bytes;
            spdlog::info("K cache: removed the least recently used {} ({:.1f} MiB)", e.path.string(),
                         double(e.bytes) / 1048576.0);
        }
    }
}

} // namespace rsim
