// SPDX-License-Identifier: MIT
#include "pipeline/k_phase.h"

#include <algorithm>
#include <cmath>

#include <spdlog/spdlog.h>

#include "k/k_cache.h"
#include "k/k_journal.h"
#include "k/k_layout_choice.h"
#include "pipeline/job_agreement.h"
#include "pipeline/run_estimate.h"
#include "util/host_memory.h"

namespace rsim {

// Runs forecast to take longer than this log their estimate at info level (debug otherwise).
constexpr double kEstimateInfoSeconds = 10.0;

void noteDeviceMemory(const Backend& backend, RunMetadata& meta, const char* phase) {
    const std::vector<std::uint64_t> used = backend.deviceBytesInUse();
    if (used.size() != meta.deviceMemory.size()) return;
    for (std::size_t d = 0; d < used.size(); ++d) {
        auto& after = meta.deviceMemory[d].inUseAfter;
        auto it = std::find_if(after.begin(), after.end(), [&](const auto& e) { return e.first == phase; });
        if (it == after.end()) after.emplace_back(phase, used[d]);
        else it->second = std::max(it->second, used[d]);
    }
}

namespace {

// Stores K in the cache when that is worth it: not when K as stored (dense, or as segments)
// exceeds the cache or a quarter of the host's memory (a K on the GPU is copied to the host to
// be stored).
void storeK(const KCache& cache, const std::string& key, KHandle& K, const KChunking& chunking,
            const VisibilityStats& stats, const KStorageReport& storage) {
    const std::uint64_t bytes = storage.layout == "segments" ? storage.bytes : chunking.bytes();
    if (bytes > cache.maxBytes() || double(bytes) > hostShareBytes()) {
        spdlog::info("K cache: K ({:.1f} GiB) is not stored: it is larger than the cache ({:.1f} GiB, "
                     "--k-cache-max-gb) or a quarter of this machine's memory",
                     double(bytes) / 1073741824.0, double(cache.maxBytes()) / 1073741824.0);
        return;
    }
    try {
        cache.store(key, K.host(), stats, storage);
    } catch (const std::bad_alloc&) {
        spdlog::warn("K cache: K not stored: no host memory for a copy of it");
    }
    K.dropHostCopy();
}

// Row-block mode: the ranks' counts, sums and maxima of K's diagnostics, on every rank.
void combineOverRanks(const Ranks& ranks, VisibilityStats& v, KStorageReport& k) {
    std::vector<std::uint64_t> counts{v.candidatePairs, v.nonzeroPairs, v.raysCast,    v.clearPairs,
                                      v.raysListed,     v.tilesListed,  v.tilesLong,   v.tileListEntries,
                                      v.raysByBlockers, v.clampedFormFactors, v.rowsOverOne};
    ranks.sum(counts);
    std::uint64_t* fields[] = {&v.candidatePairs, &v.nonzeroPairs, &v.raysCast,        &v.clearPairs,
                               &v.raysListed,     &v.tilesListed,  &v.tilesLong,       &v.tileListEntries,
                               &v.raysByBlockers, &v.clampedFormFactors, &v.rowsOverOne};
    for (std::size_t f = 0; f < counts.size(); ++f) *fields[f] = counts[f];
    if (k.layout == "segments") { // each rank's own segments (dense: k.bytes is the whole K's already)
        std::vector<std::uint64_t> stored{k.bytes, k.segments};
        ranks.sum(stored);
        k.bytes = stored[0];
        k.segments = stored[1];
    }
    std::vector<double> maxima{v.maxRowSum, k.maxAbsError};
    ranks.max(maxima);
    v.maxRowSum = maxima[0];
    k.maxAbsError = maxima[1];
    // Each rank's RMS is over all n^2 elements, with its rows' errors only.
    std::vector<double> squares{k.rmsError * k.rmsError};
    ranks.sum(squares);
    k.rmsError = std::sqrt(squares[0]);
}

void logVisibility(const VisibilityStats& stats, const KSettings& k, const RunMetadata& meta, double secs,
                   double compressSeconds) {
    if (meta.kChunksFromCache > 0) // the counts are K's, some of them from an earlier run's chunks
        spdlog::info("visibility: {} candidate pairs ({} clear: no rays), {} non-zero, {} rays, those of {} of K's "
                     "{} chunks cast by an earlier run (K cache); {:.2f} s",
                     stats.candidatePairs, stats.clearPairs, stats.nonzeroPairs, stats.raysCast, meta.kChunksFromCache,
                     meta.k.chunks, secs);
    else
        spdlog::info("visibility: {} candidate pairs ({} clear: no rays), {} non-zero, {} rays in {:.2f} s "
                     "({:.1f} Mrays/s)",
                     stats.candidatePairs, stats.clearPairs, stats.nonzeroPairs, stats.raysCast, secs,
                     double(stats.raysCast) / secs * 1e-6);
    if (const std::uint64_t tiles = stats.tilesListed + stats.tilesLong; tiles > 0)
        spdlog::info("visibility: {} of {} tiles of pairs listed their possible occluders (mean {:.1f} triangles, "
                     "at most {}); {} rays ({:.1f}%) tested against those lists, the others traced",
                     stats.tilesListed, tiles,
                     stats.tilesListed ? double(stats.tileListEntries) / double(stats.tilesListed) : 0.0,
                     k.tileListMax, stats.raysListed,
                     stats.raysCast ? 100.0 * double(stats.raysListed) / double(stats.raysCast) : 0.0);
    if (stats.raysByBlockers > 0)
        spdlog::info("visibility: {} rays ({:.1f}%) answered by the triangles that blocked their pair's earlier rays",
                     stats.raysByBlockers, 100.0 * double(stats.raysByBlockers) / double(stats.raysCast));
    if (k.format != KFormat::Fp32)
        spdlog::info("compress: K as {} in {} chunk(s) of {} rows, {:.1f} MiB, RMS error {:.3g} against fp32, "
                     "{:.3f} s",
                     meta.k.format, meta.k.chunks, meta.k.rowsPerChunk, double(meta.k.bytes) / 1048576.0,
                     meta.k.rmsError, compressSeconds);
}

} // namespace

std::unique_ptr<KHandle> computeK(Backend& geometry, const KSettings& k, PhaseTimes& times, RunMetadata& meta,
                                  VisibilityStats& stats, const RowShare* share, KJournal* journal, bool* kInJournal) {
    Stopwatch sw;
    VisibilityOutcome v = geometry.visibility(k, journal);
    meta.kChunksFromCache = v.chunksFromJournal;
    meta.kFromCache = v.chunksFromJournal > 0 && v.chunksFromJournal == v.storage.chunks;
    if (kInJournal) *kInJournal = v.kInJournal;
    const double secs = sw.seconds();
    times.add("visibility", secs - v.compressSeconds);
    times.add("compress", v.compressSeconds);
    stats = v.stats;
    meta.k = v.storage;
    if (share) combineOverRanks(share->ranks(), stats, meta.k); // counts and errors of the whole K
    meta.deviceMemory = v.deviceMemory;
    noteDeviceMemory(geometry, meta, "visibility");
    meta.timingDetails.insert(meta.timingDetails.end(), v.details.begin(), v.details.end());
    logVisibility(stats, k, meta, secs, v.compressSeconds);
    if (k.layout == KLayout::Segments && meta.k.layout != "segments")
        spdlog::warn("simulation.k_layout = \"segments\": the {} backend stores this K dense", meta.backend);
    return std::move(v.K);
}

void placeKForTransport(Backend& transport, KHandle* K, const SimConfig& config, PhaseTimes& times) {
    if (!K) return;
    const Stopwatch sw;
    if (transport.placeKAhead(K, config)) times.add("k_placement", sw.seconds());
}

std::optional<RowShare> rowShareFor(const Ranks& ranks, const PreparedScene& s, const std::vector<PoseConfig>& poses,
                                    RunMetadata& meta) {
    const SimConfig& first = poses[0].config;
    const KChunking chunking = KChunking::forBudget(std::uint32_t(s.size()), first.k.format, first.k.chunkBytes);
    checkRanksAgree(ranks, fmt::format("{} triangles, K key {}, {} timesteps of {} ns, {} pose(s), backend {}, "
                                       "indirect light {}",
                                       s.size(), KCache::key(s, first.k, chunking, "rows"), first.timesteps,
                                       first.dtNs, poses.size(), meta.backend, first.indirect ? "on" : "off"));
    if (!first.indirect) return std::nullopt;
    RowShare share(chunking, ranks);
    std::string rows;
    meta.rowsOfRanks.clear();
    for (int r = 0; r < share.count(); ++r) {
        meta.rowsOfRanks.push_back(share.rowEnd(r) - share.rowBegin(r));
        rows += fmt::format("{}{}", r ? ", " : "", meta.rowsOfRanks.back());
    }
    spdlog::info("row blocks: {} ranks own {} of the {} rows (whole chunks of {} rows)", share.count(), rows, s.size(),
                 chunking.rowsPerChunk);
    return share;
}

namespace {

// K from the K cache when it holds it (timed as `k_cache`); `cache` and `key` are set whenever
// the cache is in use, so that a K computed afterwards is stored there.
std::unique_ptr<KHandle> kFromCache(const PreparedScene& s, const SimConfig& first, const RunOptions& opt,
                                    const KChunking& chunking, std::optional<KCache>& cache, std::string& key,
                                    VisibilityStats& stats, PhaseTimes& times, RunMetadata& meta) {
    Stopwatch sw;
    cache.emplace(opt.k.cacheDir, opt.k.cacheMaxBytes);
    // What computed K: the backend, its ray path and (GPU) the devices with their drivers; the
    // CPU's K does not depend on its threads.
    key = KCache::key(s, first.k, chunking, KCache::computedBy(meta));
    std::optional<CachedK> hit = opt.k.cacheFailed ? std::nullopt : cache->load(key, chunking);
    if (!hit) return nullptr;
    stats = hit->stats;
    meta.k = hit->storage;
    meta.kFromCache = true;
    // Stored as "auto" chose when it was computed; a layout asked for is honoured.
    const KLayout asked = first.k.layout;
    if (asked != KLayout::Auto && meta.k.layout != kLayoutName(asked)) {
        hit->K.toLayout(asked);
        meta.k.bytes = asked == KLayout::Dense ? chunking.bytes() : meta.k.bytes;
        noteKLayout(hit->K, meta.k);
    }
    times.add("k_cache", sw.seconds());
    spdlog::info("K cache: K ({}, {:.1f} MiB) read from {} in {:.3f} s", meta.k.format,
                 double(meta.k.bytes) / 1048576.0, cache->fileOf(key).string(), sw.seconds());
    return std::make_unique<HostKHandle>(std::move(hit->K));
}

// K read from the K cache or computed on `geometry` (and then stored in the cache).
std::unique_ptr<KHandle> kReadOrComputed(Backend& geometry, const PreparedScene& s, const SimConfig& first,
                                         std::size_t poses, const RunOptions& opt, const RowShare* share,
                                         VisibilityStats& stats, PhaseTimes& times, RunMetadata& meta) {
    const KChunking chunking = KChunking::forBudget(std::uint32_t(s.size()), first.k.format, first.k.chunkBytes);
    std::optional<KCache> cache;
    std::string key;
    std::unique_ptr<KHandle> K;
    if (share && !opt.k.cacheDir.empty())
        spdlog::debug("K cache: not used in row-block mode (each rank holds its rows only)");
    if (!share && !opt.k.cacheDir.empty() && !first.k.formatErrors)
        K = kFromCache(s, first, opt, chunking, cache, key, stats, times, meta);
    {
        // Before the long phases: what they will take, roughly (info when it is long).
        RunEstimate e = estimateRun(meta, s.size(), first, K != nullptr);
        // Chunks an earlier run left in the cache's chunks file are placed, not cast (if this
        // run computes K where it lives: the others compute K whole).
        if (const std::uint32_t held = cache && !K ? KJournal::chunksIn(cache->dir(), key, chunking) : 0) {
            spdlog::debug("K cache: {} of K's {} chunks were cast by an earlier run ({}); the estimate leaves them "
                          "out",
                          held, chunking.chunks(), (cache->dir() / (key + ".kchunks")).string());
            e.visibilitySeconds *= 1.0 - double(held) / double(chunking.chunks());
        }
        const double total = e.visibilitySeconds + e.transportSecondsPerPose * double(poses);
        spdlog::log(total >= kEstimateInfoSeconds ? spdlog::level::info : spdlog::level::debug, "{}",
                    describeEstimate(e, poses));
    }
    if (!K) {
        // K computed chunk by chunk keeps its chunks in the cache's chunks file as they come,
        // and takes those an earlier run left there (a run stopped during visibility resumes).
        std::optional<KJournal> journal;
        if (cache) {
            journal.emplace(cache->dir(), key, chunking, cache->maxBytes());
            journal->onGrowth([&cache](std::uint64_t bytes) { cache->makeRoom(bytes); });
        }
        bool inJournal = false;
        K = computeK(geometry, first.k, times, meta, stats, share, journal ? &*journal : nullptr, &inJournal);
        if (inJournal && !meta.kFromCache) {
            spdlog::info("K cache: K's chunks are kept in {} ({:.1f} MiB): a later run of this scene places them "
                         "instead of casting rays",
                         journal->file().string(), double(journal->bytes()) / 1048576.0);
        } else if (cache && !inJournal) {
            const Stopwatch sw;
            storeK(*cache, key, *K, chunking, stats, meta.k);
            times.add("k_cache", sw.seconds());
        }
    }
    if (stats.maxRowSum > kRowSumAlarm)
        spdlog::warn("{} triangle(s) have sum_j F_ij above {} (up to {:.2f}; {} form factors clamped): K's "
                     "sampling noise puts more energy into them than leaves them (a bright spot, larger "
                     "multipath errors there). Noise falls like 1 / sqrt(samples): try --samples {} (now {}) "
                     "or --set simulation.near_pair_factor={} (now {}); see docs/model-choices.md",
                     stats.rowsOverOne, kRowSumWarning, stats.maxRowSum, stats.clampedFormFactors,
                     4 * first.k.samples, first.k.samples, 4 * first.k.nearPairFactor, first.k.nearPairFactor);
    return K;
}

} // namespace

BatchK batchK(Backend& geometry, const PreparedScene& s, const SimConfig& first, std::size_t poses,
              const RunOptions& opt, const RowShare* share, PhaseTimes& times, RunMetadata& meta) {
    BatchK out;
    const bool wanted = first.indirect || opt.keepK;
    // Whether K is kept from an earlier call of this process (Python): then no visibility runs.
    const bool held = opt.k.held && opt.k.held->K;
    if (opt.k.cached && wanted) {
        out.stats = opt.k.cached->stats;
        meta.k = opt.k.cached->storage;
        meta.kFromCache = !opt.k.cachedComputedHere;
        out.K = std::make_unique<HostKHandle>(std::move(opt.k.cached->K));
    } else if (held && wanted) {
        // Used in place: it stays held even when this batch throws (Ctrl-C from Python).
        out.stats = opt.k.held->stats;
        meta.k = opt.k.held->storage;
        spdlog::info("K kept from the previous call ({}, {:.1f} MiB)", meta.k.format, double(meta.k.bytes) / 1048576.0);
    } else if (wanted) {
        out.K = kReadOrComputed(geometry, s, first, poses, opt, share, out.stats, times, meta);
    } else {
        times.add("compress", 0.0);
    }
    out.used = held ? opt.k.held->K.get() : out.K.get();
    return out;
}

} // namespace rsim
