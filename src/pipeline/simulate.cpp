// SPDX-License-Identifier: MIT
// simulateBatch as a class (BatchRun): the phases of MODEL.md in order, each a method, sharing
// the batch's state (the backends, the poses, their direct terms, K, the warnings given).
#include "pipeline/simulate.h"

#include <algorithm>
#include <future>
#include <optional>
#include <vector>

#include <spdlog/spdlog.h>

#include "distance/camera_readout.h"
#include "k/row_share.h"
#include "pipeline/k_phase.h"
#include "pipeline/lights_batch.h"
#include "pipeline/paths_batch.h"
#include "pipeline/phasors_batch.h"
#include "pipeline/run_checks.h"
#include "pipeline/run_estimate.h"
#include "transport/sources.h"
#include "util/error.h"
#include "util/host_memory.h"
#include "util/progress.h"

namespace rsim {
namespace {

// Poses whose host arrays (B, Z, E, R and a download buffer: 24 bytes per triangle and step)
// may be held at once.
std::uint32_t hostPoseLimit(std::size_t n, std::uint32_t T) {
    const double perPose = 24.0 * double(n) * double(T);
    return std::uint32_t(std::clamp(hostShareBytes() / std::max(perPose, 1.0), 1.0, double(1u << 20)));
}

// Times and amounts of a group's transport, added to those of the batch's earlier groups.
void addDetails(const TimingDetails& details, RunMetadata& meta) {
    for (const auto& [name, value] : details) {
        auto it = std::find_if(meta.timingDetails.begin(), meta.timingDetails.end(),
                               [&name = name](const auto& d) { return d.first == name; });
        if (it == meta.timingDetails.end()) meta.timingDetails.emplace_back(name, value);
        else it->second += value;
    }
}

class BatchRun {
public:
    BatchRun(const PhaseBackends& b, const PreparedScene& s, const std::vector<PoseConfig>& poses,
             const RunOptions& opt, PhaseTimes& times, RunMetadata& meta, const PoseSink& sink)
        : b_(b), s_(s), poses_(poses), opt_(opt), times_(times), meta_(meta), sink_(sink), first_(poses[0].config),
          direct_(poses.size()), directSeconds_(poses.size()) {}

    BatchReport run() {
        describe();
        warnApproximatedMaterials(s_);
        // Row-block mode: this rank's rows of K (none to share without indirect light; the ranks
        // check that they agree on that too, before any other collective).
        if (opt_.rowRanks && opt_.rowRanks->many()) share_ = rowShareFor(*opt_.rowRanks, s_, poses_, meta_);
        // In row-block mode rank 0 alone runs the poses' outputs (with or without a K to share).
        poseOutputsHere_ = !(opt_.rowRanks && opt_.rowRanks->many()) || opt_.rowRanks->rank() == 0;
        checkMemory();
        for (Backend* x : distinct_) validationBefore_ += x->validationErrors();
        const Configured configured(*this);
        // Geometry phase, part 1: the acceleration structures.
        Stopwatch sw;
        for (Backend* x : distinct_) x->prepare(s_);
        times_.add("accel", sw.seconds());
        directTerms();
        // Geometry phase, part 2: K (it depends on the triangles and the K settings alone).
        k_ = batchK(*b_.geometry, s_, first_, poses_.size(), opt_, share_ ? &*share_ : nullptr, times_, meta_);
        if (opt_.kReady) opt_.kReady();
        if (first_.transport == Transport::Phasors) {
            const PhasorBatch batch{b_, s_, poses_, opt_, times_, meta_, sink_, direct_, directSeconds_,
                                    first_.indirect ? k_.used : nullptr, k_.stats, poseOutputsHere_};
            PhasorPoses(batch).run(report_);
        } else {
            transportInGroups();
        }
        finish();
        return report_;
    }

private:
    // The backends told the run's settings for the length of the batch (Backend::configure).
    class Configured {
    public:
        explicit Configured(BatchRun& run) : run_(run) {
            for (Backend* x : run_.distinct_) x->configure(run_.settingsFor(x));
        }
        ~Configured() {
            for (Backend* x : run_.distinct_) x->configure(BackendSettings{});
        }
        Configured(const Configured&) = delete;
        Configured& operator=(const Configured&) = delete;

    private:
        BatchRun& run_;
    };

    // The run's description (meta) from the backend that computes K (or, with a K from before
    // the batch, the transport's), and the distinct backends of the phases.
    void describe() {
        for (Backend* x : b_.roles())
            if (!x) throw Error("internal: a phase without a backend");
        (opt_.k.cached ? b_.transport : b_.geometry)->describe(meta_);
        if (opt_.k.cachedComputedHere) { // the CPU computed K (pipeline/host_rays.h): its ray path is K's
            RunMetadata geometry;
            b_.geometry->describe(geometry);
            meta_.visibilityPath = geometry.visibilityPath;
        }
        for (Backend* x : b_.roles())
            if (std::find(distinct_.begin(), distinct_.end(), x) == distinct_.end()) distinct_.push_back(x);
    }

    // Refuse, with the numbers, a run the machine's memory cannot hold, before anything large is
    // allocated (K as if computed here: a K from the cache would need less; a rank holds its rows).
    void checkMemory() const {
        RunEstimate forecast = estimateRun(meta_, s_.size(), first_, false);
        if (share_ && forecast.hostKBytes > 0.0) {
            // A rank holds its rows, and the CPU's visibility swaps half of each block it shares
            // with another rank: it sends and receives fp32 values for rows x (n - rows) / 2 pairs
            // each way.
            const double n = double(std::max<std::size_t>(s_.size(), 1)),
                         rows = double(share_->rowEnd() - share_->rowBegin());
            forecast.hostKBytes = forecast.hostKBytes * rows / n + rows * (n - rows) * 4.0;
        }
        if (opt_.keepsEveryPose) countRetainedPoses(forecast, s_.size(), first_, poses_.size(), opt_.timeseries);
        checkHostMemory(forecast, first_, availableHostBytes());
    }

    BackendSettings settingsFor(Backend* x) const {
        BackendSettings settings;
        settings.rowShare = share_ ? &*share_ : nullptr;
        settings.shafts = opt_.sceneShafts;
        ExpectedPhases& e = settings.expected;
        e.direct = b_.direct == x;
        e.distances = poseOutputsHere_ && b_.distances == x;
        e.image = poseOutputsHere_ && opt_.images && b_.image == x;
        e.primaryRays = e.image && b_.primary == x;
        e.phasors = first_.transport == Transport::Phasors;
        const bool kHeld = opt_.k.held && opt_.k.held->K;
        if (b_.geometry == x && (first_.indirect || opt_.keepK) && !opt_.k.cached && !kHeld) e.visibility = &first_.k;
        return settings;
    }

    // A pose's guardrail warning, each kind once per run (naming the first pose it concerns).
    void warnOnce(bool& warned, std::size_t p, const std::string& warning) const {
        if (warning.empty() || warned) return;
        spdlog::warn("{}{}", poses_.size() > 1 ? poses_[p].label + " (and maybe other poses): " : "", warning);
        warned = true;
    }

    // Pose phase, part 1: the direct terms of every pose, before K, because they decide whether
    // the run can measure anything at all.
    void directTerms() {
        Progress progress("direct terms", poses_.size(), "poses");
        for (std::size_t p = 0; p < poses_.size(); ++p) {
            progress.set(p); // thousands of poses: progress, and a stop between two
            const Stopwatch sw;
            direct_[p] = b_.direct->direct(poses_[p].config);
            directSeconds_[p] = sw.seconds();
            times_.add("direct", directSeconds_[p]);
            try {
                checkDirectTerms(direct_[p], poses_[p].config);
            } catch (const InputError& e) {
                if (poses_.size() == 1) throw;
                throw InputError(poses_[p].label + ": " + e.what());
            }
            warnOnce(ambiguityWarned_, p, ambiguityWarning(direct_[p], poses_[p].config));
        }
        progress.set(poses_.size());
        progress.finish();
    }

    // The poses whose transport runs at once: what host memory, the user and the transport's
    // devices allow; under MPI row blocks the smallest of any rank.
    std::uint32_t groupSize() {
        KHandle* K = first_.indirect ? k_.used : nullptr;
        std::uint32_t atMost = std::uint32_t(std::min<std::size_t>(poses_.size(), hostPoseLimit(s_.size(), first_.timesteps)));
        if (opt_.maxPoseGroup) atMost = std::min(atMost, opt_.maxPoseGroup);
        std::uint32_t group = b_.transport->poseGroup(K, first_, atMost);
        if (share_) { // every rank runs the same groups: the smallest any rank's memory allows
            std::vector<std::uint64_t> fewest{group};
            share_->ranks().min(fewest);
            group = std::uint32_t(fewest[0]);
        }
        return std::max(group, 1u);
    }

    // Pose phase, part 2: the transport, a group of poses at once, then each pose's distances
    // and image. The time series reach host memory only where a phase or the output needs them.
    void transportInGroups() {
        hostSeries_ = opt_.timeseries || !b_.transport->traits().keepsHistoriesOnDevice || b_.distances != b_.transport ||
                      (opt_.images && b_.image != b_.transport);
        report_.poses = std::uint32_t(poses_.size());
        if (first_.indirect) placeKForTransport(*b_.transport, k_.used, first_, times_);
        report_.groupSize = groupSize();
        report_.groups = std::uint32_t((poses_.size() + report_.groupSize - 1) / report_.groupSize);
        if (poses_.size() > 1)
            spdlog::info("batch: {} poses, transport in {} group(s) of up to {} (memory bounds the group)",
                         poses_.size(), report_.groups, report_.groupSize);
        for (std::size_t g0 = 0; g0 < poses_.size(); g0 += report_.groupSize)
            transportGroup(g0, std::min(poses_.size(), g0 + report_.groupSize));
    }

    void transportGroup(std::size_t g0, std::size_t g1) {
        const Stopwatch sw;
        std::vector<Histories> sources(g1 - g0);
        std::vector<TransportPose> work;
        for (std::size_t p = g0; p < g1; ++p) work.push_back({&poses_[p].config, &direct_[p], &sources[p - g0]});
        // The host's E and R (N x T each, zeroed first), built while the transport runs where it
        // does not read them.
        auto buildAll = [&, g0, g1] {
            for (std::size_t p = g0; p < g1; ++p)
                buildSources(s_, poses_[p].config, direct_[p], sources[p - g0].E, sources[p - g0].R);
        };
        std::future<void> sourcesBuilt;
        if (hostSeries_ && b_.transport->traits().transportReadsSources) buildAll();
        else if (hostSeries_) sourcesBuilt = std::async(std::launch::async, buildAll);
        TransportOutcome t = b_.transport->transport(first_.indirect ? k_.used : nullptr, work, hostSeries_,
                                                     g0 == 0 ? opt_.loopStarted : std::function<void()>());
        if (sourcesBuilt.valid()) sourcesBuilt.get();
        const double secs = sw.seconds();
        noteDeviceMemory(*b_.transport, meta_, "radiosity");
        times_.add("radiosity", secs - t.downloadSeconds);
        if (t.downloadSeconds > 0.0) times_.add("download", t.downloadSeconds);
        addDetails(t.details, meta_);
        spdlog::info("radiosity: {} timesteps{} in {:.3f} s{}", first_.timesteps,
                     poses_.size() > 1 ? fmt::format(" of {} poses", g1 - g0) : std::string(), secs,
                     t.summary.empty() ? "" : " (" + t.summary + ")");
        // Each pose's share of its group's transport and download.
        PhaseTimes share;
        share.add("radiosity", (secs - t.downloadSeconds) / double(g1 - g0));
        if (t.downloadSeconds > 0.0) share.add("download", t.downloadSeconds / double(g1 - g0));
        for (std::size_t p = g0; p < g1 && poseOutputsHere_; ++p)
            poseOutputs(p, t.histories[p - g0], sources[p - g0], share);
    }

    // A pose's signals, distances and image, handed to the sink.
    void poseOutputs(std::size_t p, Histories& h, Histories& sources, const PhaseTimes& transportShare) {
        const SimConfig& c = poses_[p].config;
        PhaseTimes own;
        own.add("direct", directSeconds_[p]);
        own.add("radiosity", transportShare.get("radiosity"));
        if (const double d = transportShare.get("download"); d > 0.0) own.add("download", d);
        SimulationResult r;
        r.n = std::uint32_t(s_.size());
        r.timesteps = c.timesteps;
        r.visibility = k_.stats;
        r.direct = std::move(direct_[p]);
        h.E = std::move(sources.E);
        h.R = std::move(sources.R);
        const Stopwatch sw;
        b_.distances->signals(h, r.direct, c, r.signalFwd, r.signalAdj);
        const double signalSeconds = sw.seconds();
        warnOnce(windowWarned_, p, windowWarning(r.signalFwd, c));
        TriangleDistances d = b_.distances->distances(h, r.direct, c);
        const double triangleSeconds = sw.seconds() - signalSeconds;
        r.pathLength = std::move(d.pathLength);
        r.distance = std::move(d.distance);
        r.totalEnergy = std::move(d.totalEnergy);
        r.directEnergy = directEnergies(s_, c, r.direct);
        r.echoesCutOff = d.echoesCutOff;
        notePoseDistances(p, r);
        if (opt_.images) {
            // The primary rays on their own backend when it is not the image's.
            const PrimaryHits hits = b_.primary != b_.image ? b_.primary->primaryHits(c) : PrimaryHits{};
            r.image = b_.image->image(h, r.direct, c, b_.primary != b_.image ? &hits : nullptr);
            applyCameraReadout(r.image, c, s_);
            warnOnce(backFaceWarned_, p, backFaceWarning(s_, c, r.image));
            warnOnce(outOfRangeWarned_, p, outOfRangeWarning(r.image, c));
        }
        const double distanceSeconds = sw.seconds();
        noteDeviceMemory(*b_.distances, meta_, "distance");
        times_.add("distance", distanceSeconds);
        own.add("distance", distanceSeconds);
        if (opt_.keepK && k_.used) r.K = k_.used->host().decodeAll();
        r.B = std::move(h.B);
        r.Z = std::move(h.Z);
        r.E = std::move(h.E);
        r.R = std::move(h.R);
        h = Histories{};
        const Stopwatch handOver;
        sink_(p, r, own);
        spdlog::debug("{}: distances, signals and image {:.4f} s (signals {:.4f} s, distances {:.4f} s), handed "
                      "to the output in {:.4f} s",
                      poses_[p].label, distanceSeconds, signalSeconds, triangleSeconds, handOver.seconds());
    }

    // A pose's distances in the report; a pose of several without any, or with echoes cut off,
    // is a warning (a run none of whose poses has a distance fails: checkSomeDistance).
    void notePoseDistances(std::size_t p, const SimulationResult& r) {
        const std::string where = poses_.size() > 1 ? poses_[p].label + ": " : std::string();
        if (p == 0) report_.firstEchoesCutOff = r.echoesCutOff;
        if (trianglesWithDistance(r.distance) > 0) ++report_.posesWithDistance;
        else if (poses_.size() > 1) spdlog::warn("{}no triangle got a distance (its summary.json says why)", where);
        if (const std::string w = cutOffWarning(r.echoesCutOff, poses_[p].config); !w.empty())
            spdlog::warn("{}{}", where, w);
    }

    // A K this batch made is kept for the next (import rsim); the validation layer's count.
    void finish() {
        if (opt_.k.held && k_.K) {
            opt_.k.held->K = std::move(k_.K);
            opt_.k.held->stats = k_.stats;
            opt_.k.held->storage = meta_.k;
        }
        std::uint64_t validation = 0;
        for (Backend* x : distinct_) validation += x->validationErrors();
        meta_.validationErrors = validation - validationBefore_;
        if (std::any_of(distinct_.begin(), distinct_.end(), [](Backend* x) { return x->traits().validating; }))
            spdlog::info("Vulkan validation: {} error(s) during the run", meta_.validationErrors);
    }

    const PhaseBackends& b_;
    const PreparedScene& s_;
    const std::vector<PoseConfig>& poses_;
    const RunOptions& opt_;
    PhaseTimes& times_;
    RunMetadata& meta_;
    const PoseSink& sink_;
    const SimConfig& first_;
    std::vector<Backend*> distinct_;
    std::optional<RowShare> share_;
    bool poseOutputsHere_ = true;
    std::uint64_t validationBefore_ = 0;
    std::vector<DirectTerms> direct_;
    std::vector<double> directSeconds_;
    bool ambiguityWarned_ = false, backFaceWarned_ = false, windowWarned_ = false, outOfRangeWarned_ = false;
    BatchK k_;
    bool hostSeries_ = false;
    BatchReport report_;
};

} // namespace

BatchReport simulateBatch(const PhaseBackends& b, const PreparedScene& s, const std::vector<PoseConfig>& poses,
                          const RunOptions& opt, PhaseTimes& times, RunMetadata& meta, const PoseSink& sink) {
    if (poses.empty()) throw Error("internal: a batch without poses");
    if (needsLightSum(poses[0].config)) {
        if (poses[0].config.transport != Transport::Radiosity)
            throw InputError("several lights, a delayed light and a pulsed camera's lens scattering need "
                             "simulation.transport = \"radiosity\" for now");
        return simulateLightsBatch(b, s, poses, opt, times, meta, sink);
    }
    if (poses[0].config.transport == Transport::Paths) return simulatePathsBatch(b, s, poses, opt, times, meta, sink);
    return BatchRun(b, s, poses, opt, times, meta, sink).run();
}

SimulationResult simulate(const PhaseBackends& b, const PreparedScene& s, const SimConfig& c,
                          const RunOptions& opt, PhaseTimes& times, RunMetadata& meta) {
    SimulationResult out;
    simulateBatch(b, s, {PoseConfig{"the pose", c}}, opt, times, meta,
                  [&out](std::size_t, SimulationResult& r, const PhaseTimes&) { out = std::move(r); });
    return out;
}

} // namespace rsim
