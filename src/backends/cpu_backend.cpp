// SPDX-License-Identifier: MIT
// The CPU reference: MODEL.md §1-6 with Embree rays, on all cores. Clarity first; it is the
// oracle every other backend is tested against.
#include <cmath>

#include <spdlog/spdlog.h>

#include "accel/embree_scene.h"
#include "backends/backend.h"
#include "direct/cpu_direct.h"
#include "distance/cpu_distance.h"
#include "k/k_diagnostics.h"
#include "k/k_layout_choice.h"
#include "paths/cpu_paths.h"
#include "transport/cpu_transport.h"
#include "transport/sources.h"
#include "util/error.h"
#include "util/parallel.h"
#include "util/timer.h"
#include "visibility/cpu_visibility.h"

namespace rsim {
namespace {

class CpuBackend final : public Backend {
  public:
    void describe(RunMetadata& meta) const override {
        meta.backend = "cpu";
        meta.threads = threadCount();
        meta.devices = {"cpu (" + std::to_string(meta.threads) + " threads)"};
        meta.visibilityPath = "embree";
    }

    void prepare(const PreparedScene& scene) override {
        scene_ = &scene;
        Stopwatch sw;
        rays_ = std::make_unique<EmbreeScene>(scene);
        spdlog::info("accel: Embree BVH over {} triangles, {:.1f} MiB, {:.3f} s", scene.size(),
                     double(rays_->memoryBytes()) / 1048576.0, sw.seconds());
    }

    void configure(const BackendSettings& settings) override { share_ = settings.rowShare; }

    VisibilityOutcome visibility(const KSettings& k, KJournal* /*journal: K is computed whole here*/) override {
        const PreparedScene& s = scene();
        const KChunking chunking =
            KChunking::forBudget(std::uint32_t(s.size()), k.format, k.chunkBytes);
        if (share_ && share_->chunking().rowsPerChunk != chunking.rowsPerChunk)
            throw Error("internal: the row share was cut for other chunks");
        HostK K = share_ ? HostK(chunking, share_->firstChunk(), share_->endChunk()) : HostK(chunking);
        VisibilityOutcome out;
        out.stats = computeVisibilityCpu(s, k, *rays_, K, share_);
        if (k.formatErrors && k.format == KFormat::Fp32) out.storage.formatErrors = formatErrorReport(K);
        Stopwatch sw;
        K.compress(k.format);
        out.compressSeconds = sw.seconds();
        const double n = double(s.size());
        out.storage.format = kFormatInfo(k.format).name;
        out.storage.bytes = K.chunking().bytes();
        out.storage.chunks = K.chunkCount();
        out.storage.rowsPerChunk = K.chunking().rowsPerChunk;
        out.storage.rmsError = std::sqrt(K.sumSquaredError() / (n * n));
        out.storage.maxAbsError = K.maxAbsError();
        setEnergy(out.stats, formFactorDiagnostics(K, s.area));
        K.toLayout(chooseKLayout(k.layout, K, share_ ? &share_->ranks() : nullptr));
        noteKLayout(K, out.storage);
        out.K = std::make_unique<HostKHandle>(std::move(K));
        return out;
    }

    DirectTerms direct(const SimConfig& c) override { return computeDirectCpu(scene(), c, *rays_); }

    TransportOutcome transport(KHandle* K, const std::vector<TransportPose>& poses, bool,
                               const std::function<void()>& loopStarted) override {
        TransportOutcome out;
        std::vector<CpuTransportPose> work;
        out.histories.resize(poses.size());
        for (std::size_t p = 0; p < poses.size(); ++p) {
            Histories& h = out.histories[p];
            h.n = std::uint32_t(scene().size());
            h.timesteps = poses[p].config->timesteps;
            work.push_back({poses[p].config, &poses[p].sources->E, &poses[p].sources->R, &h.B, &h.Z});
        }
        CpuTransportTimes times;
        if (loopStarted) loopStarted();
        runTransportCpu(scene(), K ? &K->host() : nullptr, work, share_, &times);
        if (K) {
            out.details.emplace_back("radiosity_lists", times.lists);
            out.details.emplace_back("radiosity_far_sums", times.farSums);
            out.details.emplace_back("radiosity_near_steps", times.nearSteps);
        }
        if (share_) {
            out.details.emplace_back("radiosity_exchange", times.exchange);
            out.summary = fmt::format("{:.3f} s waiting for the far sums of {} other rank(s)", times.exchange,
                                      share_->count() - 1);
        }
        return out;
    }

    // Host memory is the pipeline's to bound (simulate.cpp).
    std::uint32_t poseGroup(KHandle*, const SimConfig&, std::uint32_t atMost) override {
        return std::min(atMost, 1u << 20);
    }

    TriangleDistances distances(const Histories& h, const DirectTerms& d,
                                const SimConfig& c) override {
        return computeTriangleDistances(scene(), c, h, d);
    }

    void signals(const Histories& h, const DirectTerms&, const SimConfig& c, std::vector<double>& fwd,
                 std::vector<double>& adj) override {
        sensorSignals(scene(), c.timesteps, h.B, h.Z, h.E, h.R, fwd, adj);
    }

    SensorImage image(const Histories& h, const DirectTerms&, const SimConfig& c, const PrimaryHits* hits) override {
        return renderSensorImageCpu(scene(), c, hits ? *hits : primaryHitsCpu(scene(), c, *rays_), h);
    }

    PrimaryHits primaryHits(const SimConfig& c) override { return primaryHitsCpu(scene(), c, *rays_); }

    SensorImage pathTraced(const SimConfig& c) override { return pathTracedImageCpu(scene(), c, *rays_); }

    PhasorSolution phasors(KHandle* K, const PhasorSystem& system) override {
        return solvePhasorsCpu(scene(), K ? &K->host() : nullptr, system, share_);
    }

  private:
    const PreparedScene& scene() const {
        if (!scene_) throw Error("internal: the CPU backend ran a phase before prepare()");
        return *scene_;
    }
    const PreparedScene* scene_ = nullptr;
    std::unique_ptr<EmbreeScene> rays_;
    const RowShare* share_ = nullptr;
};

} // namespace

std::unique_ptr<Backend> makeCpuBackend() {
    return std::make_unique<CpuBackend>();
}

} // namespace rsim
