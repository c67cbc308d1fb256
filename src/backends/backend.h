// SPDX-License-Identifier: MIT
// A backend executes the phases of MODEL.md on one kind of hardware; pipeline/simulate.h runs
// them, once for every backend. The geometry phase (prepare, visibility) depends on the
// triangles and K's settings alone; the pose phase (direct, transport, distances, image) on the
// light, the sensor, the materials and the time axis. Phase results are plain host data, so
// any backend's result feeds any other's next phase; a backend keeps what it computed where it
// computed it (K on its devices, the B/Z history on a GPU) and uses that copy when it is its own.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/prepared_scene.h"
#include "core/results.h"
#include "core/run_metadata.h"
#include "core/sim_config.h"
#include "k/host_k.h"
#include "k/row_share.h"
#include "transport/phasor_system.h"
#include "util/error.h"

namespace rsim {

struct SceneShafts; // visibility/scene_shafts.h
class KJournal;      // k/k_journal.h

// K where a backend computed it.
class KHandle {
  public:
    virtual ~KHandle() = default;
    // K in host memory, encoded as stored (fetched from the devices the first time, and kept).
    virtual const HostK& host() = 0;
    // Frees a host copy that host() fetched from elsewhere (K stays where it was computed).
    virtual void dropHostCopy() {}
};

struct VisibilityOutcome {
    std::unique_ptr<KHandle> K;
    VisibilityStats stats; // counts, rays, and the energy diagnostics of the stored K
    KStorageReport storage;
    std::vector<DeviceMemory> deviceMemory;
    double compressSeconds = 0.0; // the part of the phase that encoded K
    TimingDetails details;
    // With the K cache's chunks file (k/k_journal.h): the chunks read from it instead of cast,
    // and whether it now holds all of K (then K need not be stored in the cache again).
    std::uint32_t chunksFromJournal = 0;
    bool kInJournal = false;
};

// One pose of a transport batch: its settings (light and sensor; the time axis, materials and
// indirect flag are the batch's), its direct terms and its sources E, R.
struct TransportPose {
    const SimConfig* config;
    const DirectTerms* direct;
    const Histories* sources;
};

struct TransportOutcome {
    std::vector<Histories> histories; // per pose: B and Z (E and R are the pipeline's)
    double downloadSeconds = 0.0;     // the part of the phase that brought B and Z to the host
    TimingDetails details;
    std::string summary; // extra detail for the phase's log line
};

// What a run will certainly ask of a backend, so that a GPU backend compiles those phases'
// pipelines on other threads before they run.
struct ExpectedPhases {
    bool direct = false;      // the direct terms
    bool distances = false;   // the poses' distances
    bool image = false;       // the poses' sensor images...
    bool primaryRays = false; // ...with their primary rays cast here
    // K's settings when this backend may compute K's visibility (it may still come from the K
    // cache); null when it will not.
    const KSettings* visibility = nullptr;
    // The transport reads K by phasors (MODEL.md §11): whose Vulkan gathers read K dense only.
    bool phasors = false;
};

// What a run's plan tells a backend before the first phase of a batch (simulateBatch), in one
// value; a default value (no row share, nothing expected) after it.
struct BackendSettings {
    // Row-block mode of an MPI job (k/row_share.h): visibility() computes this rank's rows of K
    // only and transport() exchanges far sums with the other ranks. It outlives the batch; null:
    // the whole scene.
    const RowShare* rowShare = nullptr;
    // The phases the batch will ask of this backend (backends without pipelines ignore them).
    ExpectedPhases expected;
    // What the host built from the scene while the devices were created
    // (visibility/scene_shafts.h): prepare() takes it for the scene it was built from instead
    // of building it again. Null: none.
    std::shared_ptr<const SceneShafts> shafts;
};

// How a backend works, for the pipeline's choices around it.
struct BackendTraits {
    // Its transport can leave B and Z on its device only (see transport()).
    bool keepsHistoriesOnDevice = false;
    // transport() reads its poses' sources (TransportPose::sources). A backend that makes its
    // own from the direct terms lets the pipeline build the host's copies meanwhile.
    bool transportReadsSources = true;
    // It runs under the Khronos validation layer (Vulkan with tuning.validation).
    bool validating = false;
};

class Backend {
  public:
    virtual ~Backend() = default;
    // backend, devices, visibility path, threads.
    virtual void describe(RunMetadata& meta) const = 0;
    virtual BackendTraits traits() const { return {}; }
    // See BackendSettings. A backend that cannot share K's rows throws InputError for a row
    // share; the CPU and Vulkan backends can.
    virtual void configure(const BackendSettings& settings) {
        if (settings.rowShare) throw InputError("this backend cannot share K's rows among MPI ranks (row-block mode)");
    }

    // Geometry phase.
    virtual void prepare(const PreparedScene& scene) = 0; // acceleration structures
    // `journal` (may be null): the K cache's chunks file, which a backend that computes K chunk
    // by chunk with full rows keeps its chunks in, and resumes from (k/k_journal.h); others
    // leave it alone.
    virtual VisibilityOutcome visibility(const KSettings& settings, KJournal* journal) = 0;

    // Pose phase. `K` may be null (no indirect light) and may come from another backend.
    virtual DirectTerms direct(const SimConfig& config) = 0;
    // The transport of several poses at once, in one pass over time; the result of each pose is
    // the same as when it runs alone. `poses` is not empty, and holds at most poseGroup() poses.
    // `hostHistories`: B and Z are also wanted in host memory (the time series output, or a
    // phase on another backend); otherwise a backend that keeps them on its device may leave
    // the host arrays empty.
    // `loopStarted` (may be empty): called once the time loop is under way, from where the host
    // mostly waits for the devices (the pipeline opens the output modules then).
    virtual TransportOutcome transport(KHandle* K, const std::vector<TransportPose>& poses, bool hostHistories,
                                       const std::function<void()>& loopStarted) = 0;
    // How many poses' transport run at once: at most `atMost` (at least 1) and what fits its
    // devices beside K; a GPU may round down to a multiple of its pose lanes. `K` (may be null)
    // is the one transport() will get: a backend places a foreign K first, so that the memory
    // it takes is counted.
    virtual std::uint32_t poseGroup(KHandle* K, const SimConfig& config, std::uint32_t atMost) = 0;
    // Places `K` (another backend's, or read from the K cache) where this backend's transport
    // reads it, ahead of the transport: the pipeline times it as a phase of its own,
    // `k_placement`. Whether it placed anything (nothing where the backend reads K where it
    // is, or K is in place already).
    virtual bool placeKAhead(KHandle* /*K*/, const SimConfig& /*config*/) { return false; }
    virtual TriangleDistances distances(const Histories& histories, const DirectTerms& direct,
                                        const SimConfig& config) = 0;
    // `hits`: the primary rays cast by another backend (primaryHits), or null: its own.
    virtual SensorImage image(const Histories& histories, const DirectTerms& direct, const SimConfig& config,
                              const PrimaryHits* hits) = 0;
    // The image's primary rays, for image() on a backend whose devices cast none
    // (pipeline/host_rays.h).
    virtual PrimaryHits primaryHits(const SimConfig&) {
        throw Error("internal: this backend does not cast primary rays for another");
    }
    // The sensor image of the `paths` transport (MODEL.md §10.2): each pixel's signal from camera
    // paths, with no K, direct terms or histories. A backend that cannot trace paths says so.
    virtual SensorImage pathTraced(const SimConfig&) {
        throw InputError("this backend cannot trace paths (simulation.transport = \"paths\"); use --backend cpu");
    }
    // The `phasors` transport's solve (MODEL.md §11) of one group's system over `K` (null: no
    // indirect light); its columns are the group's poses and frequencies. A backend that cannot
    // says so.
    virtual PhasorSolution phasors(KHandle*, const PhasorSystem&) {
        throw InputError("this backend cannot solve phasors (simulation.transport = \"phasors\"); use --backend cpu");
    }
    // s_fwd(t) and s_adj(t) (MODEL §5).
    virtual void signals(const Histories& histories, const DirectTerms& direct, const SimConfig& config,
                         std::vector<double>& fwd, std::vector<double>& adj) = 0;

    // Device-local bytes this process holds on each of the backend's devices now (empty when
    // the backend has no devices or they cannot say).
    virtual std::vector<std::uint64_t> deviceBytesInUse() const { return {}; }
    // The errors the validation layer reported so far (traits().validating).
    virtual std::uint64_t validationErrors() const { return 0; }
    // Writes now what it keeps for later runs (the drivers' pipeline caches), which its release
    // would otherwise write: a command may end before its release (util/early_exit.h).
    virtual void saveCaches() {}
};

std::unique_ptr<Backend> makeCpuBackend();

// K in host memory (the CPU backend's, or one read from the K cache).
class HostKHandle final : public KHandle {
  public:
    explicit HostKHandle(HostK K) : K_(std::move(K)) {}
    const HostK& host() override { return K_; }

  private:
    HostK K_;
};

} // namespace rsim
