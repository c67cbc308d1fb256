// SPDX-License-Identifier: MIT
#include "pipeline/simulate.h"

#include <algorithm>
#include <cmath>
#include <future>
#include <numeric>
#include <optional>
#include <vector>

#include <unistd.h>

#include <spdlog/spdlog.h>

#include "k/k_cache.h"
#include "k/row_share.h"
#include "pipeline/job_agreement.h"
#include "pipeline/run_checks.h"
#include "scene/scene_desc.h"
#include "pipeline/run_estimate.h"
#include "util/host_memory.h"
#include "transport/sources.h"
#include "util/cancel.h"
#include "util/error.h"
#include "util/progress.h"

namespace rsim {

// Runs forecast to take longer than this log their estimate at info level (debug otherwise).
constexpr double kEstimateInfoSeconds = 10.0;

namespace {

// A quarter of the machine's memory: what a group's host arrays, or a copy of K for the K
// cache, may take.
double hostShareBytes() {
    const double pages = double(::sysconf(_SC_PHYS_PAGES)), page = double(::sysconf(_SC_PAGESIZE));
    return 0.25 * (pages > 0 && page > 0 ? pages * page : 8.0 * 1073741824.0);
}

// Poses whose host arrays (B, Z, E, R and a download buffer: 24 bytes per triangle and step)
// may be held at once.
std::uint32_t hostPoseLimit(std::size_t n, std::uint32_t T) {
    const double perPose = 24.0 * double(n) * double(T);
    return std::uint32_t(std::clamp(hostShareBytes() / std::max(perPose, 1.0), 1.0, double(1u << 20)));
}

// Notes the device memory `backend` holds after `phase` in meta.deviceMemory (whose entries are
// its devices, from the visibility plan; without them, nothing is noted).
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

// Stores K in the cache when that is worth it: not when K exceeds the cache or a quarter of the
// host's memory (a K on the GPU is copied to the host to be stored).
void storeK(const KCache& cache, const std::string& key, KHandle& K, const KChunking& chunking,
            const VisibilityStats& stats, const KStorageReport& storage) {
    const std::uint64_t bytes = chunking.bytes();
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
    std::vector<double> maxima{v.maxRowSum, k.maxAbsError};
    ranks.max(maxima);
    v.maxRowSum = maxima[0];
    k.maxAbsError = maxima[1];
    // Each rank's RMS is over all n^2 elements, with its rows' errors only.
    std::vector<double> squares{k.rmsError * k.rmsError};
    ranks.sum(squares);
    k.rmsError = std::sqrt(squares[0]);
}

} // namespace

std::unique_ptr<KHandle> computeK(Backend& geometry, const KSettings& k, PhaseTimes& times, RunMetadata& meta,
                                  VisibilityStats& stats, const RowShare* share) {
    Stopwatch sw;
    VisibilityOutcome v = geometry.visibility(k);
    const double secs = sw.seconds();
    times.add("visibility", secs - v.compressSeconds);
    times.add("compress", v.compressSeconds);
    stats = v.stats;
    meta.k = v.storage;
    if (share) combineOverRanks(share->ranks(), stats, meta.k); // counts and errors of the whole K
    meta.deviceMemory = v.deviceMemory;
    noteDeviceMemory(geometry, meta, "visibility");
    meta.timingDetails.insert(meta.timingDetails.end(), v.details.begin(), v.details.end());
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
                     meta.k.rmsError, v.compressSeconds);
    return std::move(v.K);
}

namespace {

// Row-block mode: this rank's rows of K, once every rank is known to run the same job (none
// without indirect light: there is no K); the split is logged and noted in meta.rowsOfRanks.
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

// Tells the backends about a row share for the length of a batch.
class SharedRows {
public:
    SharedRows(const std::vector<Backend*>& backends, const RowShare* share) : backends_(backends) {
        if (share)
            for (Backend* b : backends_) b->shareRows(share);
    }
    ~SharedRows() {
        for (Backend* b : backends_) b->shareRows(nullptr);
    }
    SharedRows(const SharedRows&) = delete;
    SharedRows& operator=(const SharedRows&) = delete;

private:
    std::vector<Backend*> backends_;
};

} // namespace

BatchReport simulateBatch(const PhaseBackends& b, const PreparedScene& s, const std::vector<PoseConfig>& poses,
                          const RunOptions& opt, PhaseTimes& times, RunMetadata& meta, const PoseSink& sink) {
    if (poses.empty()) throw Error("internal: a batch without poses");
    const SimConfig& first = poses[0].config;
    for (Backend* x : b.roles())
        if (!x) throw Error("internal: a phase without a backend");
    (opt.cachedK ? b.transport : b.geometry)->describe(meta);
    if (opt.cachedKComputedHere) { // the CPU computed K (pipeline/host_rays.h): its ray path is K's
        RunMetadata geometry;
        b.geometry->describe(geometry);
        meta.visibilityPath = geometry.visibilityPath;
    }
    std::vector<Backend*> distinct;
    for (Backend* x : b.roles())
        if (std::find(distinct.begin(), distinct.end(), x) == distinct.end()) distinct.push_back(x);
    // Row-block mode: this rank's rows of K (none to share without indirect light; the ranks
    // check that they agree on that too, before any other collective).
    const std::optional<RowShare> share =
        opt.rowRanks && opt.rowRanks->many() ? rowShareFor(*opt.rowRanks, s, poses, meta) : std::nullopt;
    const SharedRows rowsShared(distinct, share ? &*share : nullptr);
    // In row-block mode rank 0 alone runs the poses' outputs (with or without a K to share).
    const bool poseOutputsHere = !(opt.rowRanks && opt.rowRanks->many()) || opt.rowRanks->rank() == 0;
    // Refuse, with the numbers, a run the machine's memory cannot hold, before anything large is
    // allocated (K as if computed here: a K from the cache would need less; a rank holds its rows).
    RunEstimate forecast = estimateRun(meta, s.size(), first, false);
    if (share && forecast.hostKBytes > 0.0) {
        // A rank holds its rows, and the CPU's visibility swaps half of each block it shares with
        // another rank: it sends and receives fp32 values for rows x (n - rows) / 2 pairs each way.
        const double n = double(std::max<std::size_t>(s.size(), 1)), rows = double(share->rowEnd() - share->rowBegin());
        forecast.hostKBytes = forecast.hostKBytes * rows / n + rows * (n - rows) * 4.0;
    }
    if (opt.keepsEveryPose) countRetainedPoses(forecast, s.size(), first, poses.size(), opt.timeseries);
    checkHostMemory(forecast, first, availableHostBytes());
    std::uint64_t validationBefore = 0;
    for (Backend* x : distinct) validationBefore += x->validationErrors();

    // Whether K is kept from an earlier call of this process (Python): then no visibility runs.
    const bool kHeld = opt.heldK && opt.heldK->K;
    for (Backend* x : distinct) {
        ExpectedPhases e;
        e.direct = b.direct == x;
        e.distances = poseOutputsHere && b.distances == x;
        e.image = poseOutputsHere && opt.images && b.image == x;
        e.primaryRays = e.image && b.primary == x;
        if (b.geometry == x && (first.indirect || opt.keepK) && !opt.cachedK && !kHeld) e.visibility = &first.k;
        x->expectPhases(e);
    }

    // Geometry phase, part 1: the acceleration structures.
    Stopwatch sw;
    for (Backend* x : distinct) x->prepare(s);
    times.add("accel", sw.seconds());

    // Pose phase, part 1: the direct terms of every pose, before K, because they decide whether
    // the run can measure anything at all.
    std::vector<DirectTerms> direct(poses.size());
    std::vector<double> directSeconds(poses.size());
    // A pose's guardrail warning, each kind once per run (naming the first pose it concerns).
    bool ambiguityWarned = false, backFaceWarned = false, windowWarned = false;
    auto warnOnce = [&](bool& warned, std::size_t p, const std::string& warning) {
        if (warning.empty() || warned) return;
        spdlog::warn("{}{}", poses.size() > 1 ? poses[p].label + " (and maybe other poses): " : "", warning);
        warned = true;
    };
    Progress directProgress("direct terms", poses.size(), "poses");
    for (std::size_t p = 0; p < poses.size(); ++p) {
        directProgress.set(p); // thousands of poses: progress, and a stop between two
        sw = Stopwatch();
        direct[p] = b.direct->direct(poses[p].config);
        directSeconds[p] = sw.seconds();
        times.add("direct", directSeconds[p]);
        try {
            checkDirectTerms(direct[p], poses[p].config);
        } catch (const InputError& e) {
            if (poses.size() == 1) throw;
            throw InputError(poses[p].label + ": " + e.what());
        }
        warnOnce(ambiguityWarned, p, ambiguityWarning(direct[p], poses[p].config));
    }
    directProgress.set(poses.size());
    directProgress.finish();

    // Geometry phase, part 2: K (it depends on the triangles and the K settings alone), from
    // the K cache when it holds it.
    std::unique_ptr<KHandle> K;
    VisibilityStats visibility;
    if (opt.cachedK && (first.indirect || opt.keepK)) {
        visibility = opt.cachedK->stats;
        meta.k = opt.cachedK->storage;
        meta.kFromCache = !opt.cachedKComputedHere;
        K = std::make_unique<HostKHandle>(std::move(opt.cachedK->K));
    } else if (kHeld && (first.indirect || opt.keepK)) {
        // Used in place: it stays held even when this batch throws (Ctrl-C from Python).
        visibility = opt.heldK->stats;
        meta.k = opt.heldK->storage;
        spdlog::info("K kept from the previous call ({}, {:.1f} MiB)", meta.k.format, double(meta.k.bytes) / 1048576.0);
    } else if (first.indirect || opt.keepK) {
        const KChunking chunking = KChunking::forBudget(std::uint32_t(s.size()), first.k.format, first.k.chunkBytes);
        std::optional<KCache> cache;
        std::string key;
        if (share && !opt.kCacheDir.empty())
            spdlog::debug("K cache: not used in row-block mode (each rank holds its rows only)");
        if (!share && !opt.kCacheDir.empty() && !first.k.formatErrors) {
            sw = Stopwatch();
            cache.emplace(opt.kCacheDir, opt.kCacheMaxBytes);
            // What computed K: the backend, its ray path and (GPU) the devices with their
            // drivers; the CPU's K does not depend on its threads.
            key = KCache::key(s, first.k, chunking, KCache::computedBy(meta));
            if (std::optional<CachedK> hit = opt.kCacheFailed ? std::nullopt : cache->load(key, chunking)) {
                visibility = hit->stats;
                meta.k = hit->storage;
                meta.kFromCache = true;
                K = std::make_unique<HostKHandle>(std::move(hit->K));
                times.add("k_cache", sw.seconds());
                spdlog::info("K cache: K ({}, {:.1f} MiB) read from {} in {:.3f} s", meta.k.format,
                             double(meta.k.bytes) / 1048576.0, cache->fileOf(key).string(), sw.seconds());
            }
        }
        {
            // Before the long phases: what they will take, roughly (info when it is long).
            const RunEstimate e = estimateRun(meta, s.size(), first, K != nullptr);
            const double total = e.visibilitySeconds + e.transportSecondsPerPose * double(poses.size());
            spdlog::log(total >= kEstimateInfoSeconds ? spdlog::level::info : spdlog::level::debug, "{}",
                        describeEstimate(e, poses.size()));
        }
        if (!K) {
            K = computeK(*b.geometry, first.k, times, meta, visibility, share ? &*share : nullptr);
            if (cache) {
                sw = Stopwatch();
                storeK(*cache, key, *K, chunking, visibility, meta.k);
                times.add("k_cache", sw.seconds());
            }
        }
        if (visibility.maxRowSum > kRowSumAlarm)
            spdlog::warn("{} triangle(s) have sum_j F_ij above {} (up to {:.2f}; {} form factors clamped): K's "
                         "sampling noise puts more energy into them than leaves them (a bright spot, larger "
                         "multipath errors there). Noise falls like 1 / sqrt(samples): try --samples {} (now {}) "
                         "or --set simulation.near_pair_factor={} (now {}); see docs/model-choices.md",
                         visibility.rowsOverOne, kRowSumWarning, visibility.maxRowSum, visibility.clampedFormFactors,
                         4 * first.k.samples, first.k.samples, 4 * first.k.nearPairFactor, first.k.nearPairFactor);
    } else {
        times.add("compress", 0.0);
    }
    if (opt.kReady) opt.kReady();

    KHandle* const kUsed = kHeld ? opt.heldK->K.get() : K.get();

    // Pose phase, part 2: the transport, a group of poses at once, then each pose's distances
    // and image. The time series reach host memory only where a phase or the output needs them.
    const bool hostSeries = opt.timeseries || !b.transport->keepsHistoriesOnDevice() || b.distances != b.transport ||
                            (opt.images && b.image != b.transport);
    BatchReport report;
    report.poses = std::uint32_t(poses.size());
    std::uint32_t group =
        std::min<std::uint64_t>(poses.size(), b.transport->poseGroupLimit(first.indirect ? kUsed : nullptr, first));
    group = std::min(group, hostPoseLimit(s.size(), first.timesteps));
    if (opt.maxPoseGroup) group = std::min(group, opt.maxPoseGroup);
    group = b.transport->preferredPoseGroup(group);
    if (share) { // every rank runs the same groups: the smallest any rank's memory allows
        std::vector<std::uint64_t> fewest{group};
        share->ranks().min(fewest);
        group = std::uint32_t(fewest[0]);
    }
    report.groupSize = std::max(group, 1u);
    report.groups = std::uint32_t((poses.size() + report.groupSize - 1) / report.groupSize);
    if (poses.size() > 1)
        spdlog::info("batch: {} poses, transport in {} group(s) of up to {} (memory bounds the group)", poses.size(),
                     report.groups, report.groupSize);
    for (std::size_t g0 = 0; g0 < poses.size(); g0 += report.groupSize) {
        const std::size_t g1 = std::min(poses.size(), g0 + report.groupSize);
        sw = Stopwatch();
        std::vector<Histories> sources(g1 - g0);
        std::vector<TransportPose> work;
        for (std::size_t p = g0; p < g1; ++p) work.push_back({&poses[p].config, &direct[p], &sources[p - g0]});
        // The host's E and R (N x T each, zeroed first), built while the transport runs where it
        // does not read them.
        auto buildAll = [&, g0, g1] {
            for (std::size_t p = g0; p < g1; ++p)
                buildSources(s, poses[p].config, direct[p], sources[p - g0].E, sources[p - g0].R);
        };
        std::future<void> sourcesBuilt;
        if (hostSeries && b.transport->transportReadsSources()) buildAll();
        else if (hostSeries) sourcesBuilt = std::async(std::launch::async, buildAll);
        TransportOutcome t = b.transport->transport(first.indirect ? kUsed : nullptr, work, hostSeries,
                                                    g0 == 0 ? opt.loopStarted : std::function<void()>());
        if (sourcesBuilt.valid()) sourcesBuilt.get();
        const double secs = sw.seconds();
        noteDeviceMemory(*b.transport, meta, "radiosity");
        times.add("radiosity", secs - t.downloadSeconds);
        if (t.downloadSeconds > 0.0) times.add("download", t.downloadSeconds);
        // Times and amounts add up over the groups of a batch.
        for (const auto& [name, value] : t.details) {
            auto it = std::find_if(meta.timingDetails.begin(), meta.timingDetails.end(),
                                   [&name = name](const auto& d) { return d.first == name; });
            if (it == meta.timingDetails.end()) meta.timingDetails.emplace_back(name, value);
            else it->second += value;
        }
        spdlog::info("radiosity: {} timesteps{} in {:.3f} s{}", first.timesteps,
                     poses.size() > 1 ? fmt::format(" of {} poses", g1 - g0) : std::string(), secs,
                     t.summary.empty() ? "" : " (" + t.summary + ")");
        // Each pose's share of its group's transport and download.
        const double poseShare = (secs - t.downloadSeconds) / double(g1 - g0);
        const double downloadShare = t.downloadSeconds / double(g1 - g0);

        for (std::size_t p = g0; p < g1 && poseOutputsHere; ++p) {
            const SimConfig& c = poses[p].config;
            PhaseTimes own;
            own.add("direct", directSeconds[p]);
            own.add("radiosity", poseShare);
            if (downloadShare > 0.0) own.add("download", downloadShare);
            SimulationResult r;
            r.n = std::uint32_t(s.size());
            r.timesteps = c.timesteps;
            r.visibility = visibility;
            r.direct = std::move(direct[p]);
            Histories& h = t.histories[p - g0];
            h.E = std::move(sources[p - g0].E);
            h.R = std::move(sources[p - g0].R);
            sw = Stopwatch();
            b.distances->signals(h, r.direct, c, r.signalFwd, r.signalAdj);
            const double signalSeconds = sw.seconds();
            warnOnce(windowWarned, p, windowWarning(r.signalFwd, c));
            TriangleDistances d = b.distances->distances(h, r.direct, c);
            const double triangleSeconds = sw.seconds() - signalSeconds;
            r.pathLength = std::move(d.pathLength);
            r.distance = std::move(d.distance);
            r.totalEnergy = std::move(d.totalEnergy);
            r.directEnergy = directEnergies(s, c, r.direct);
            r.echoesCutOff = d.echoesCutOff;
            if (opt.images) {
                // The primary rays on their own backend when it is not the image's.
                const PrimaryHits hits = b.primary != b.image ? b.primary->primaryHits(c) : PrimaryHits{};
                r.image = b.image->image(h, r.direct, c, b.primary != b.image ? &hits : nullptr);
                warnOnce(backFaceWarned, p, backFaceWarning(s, c, r.image));
            }
            const double distanceSeconds = sw.seconds();
            noteDeviceMemory(*b.distances, meta, "distance");
            times.add("distance", distanceSeconds);
            own.add("distance", distanceSeconds);
            if (opt.keepK && kUsed) r.K = kUsed->host().decodeAll();
            r.B = std::move(h.B);
            r.Z = std::move(h.Z);
            r.E = std::move(h.E);
            r.R = std::move(h.R);
            h = Histories{};
            Stopwatch handOver;
            sink(p, r, own);
            spdlog::debug("{}: distances, signals and image {:.4f} s (signals {:.4f} s, distances {:.4f} s), handed "
                          "to the output in {:.4f} s",
                          poses[p].label, distanceSeconds, signalSeconds, triangleSeconds, handOver.seconds());
        }
    }

    if (opt.heldK && K) { // a K this batch made, for the next
        opt.heldK->K = std::move(K);
        opt.heldK->stats = visibility;
        opt.heldK->storage = meta.k;
    }
    std::uint64_t validation = 0;
    for (Backend* x : distinct) validation += x->validationErrors();
    meta.validationErrors = validation - validationBefore;
    if (std::any_of(distinct.begin(), distinct.end(), [](Backend* x) { return x->validating(); }))
        spdlog::info("Vulkan validation: {} error(s) during the run", meta.validationErrors);
    return report;
}

SimulationResult simulate(const PhaseBackends& b, const PreparedScene& s, const SimConfig& c,
                          const RunOptions& opt, PhaseTimes& times, RunMetadata& meta) {
    SimulationResult out;
    simulateBatch(b, s, {PoseConfig{"the pose", c}}, opt, times, meta,
                  [&out](std::size_t, SimulationResult& r, const PhaseTimes&) { out = std::move(r); });
    return out;
}

} // namespace rsim
