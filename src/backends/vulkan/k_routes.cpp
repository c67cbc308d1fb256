// SPDX-License-Identifier: MIT
// The routes of K that need no exchange between devices (in place, host assembled, where it
// lives), the MPI rank's route, and the choice among all of them (k_routes.h).
#include "backends/vulkan/k_routes.h"

#include <cmath>
#include <limits>

#include <spdlog/spdlog.h>

#include "backends/vulkan/k_memory.h"
#include "k/k_diagnostics.h"
#include "k/vulkan_log_encode.h"
#include "util/timer.h"
#include "visibility/vulkan_visibility_chunked.h"
#include "visibility/vulkan_visibility_ranks.h"

namespace rsim {

void addPassTimes(const VisibilityPassTimes& passes, VisibilityOutcome& out) {
    out.details.emplace_back("visibility_gpu_facing_pairs", passes.facing);
    out.details.emplace_back("visibility_gpu_tile_queries", passes.tileQueries);
    out.details.emplace_back("visibility_gpu_listed_pairs", passes.listed);
    out.details.emplace_back("visibility_gpu_traced_pairs", passes.traced);
    out.details.emplace_back("visibility_gpu_near_pairs", passes.near);
}

void noteEncodingErrors(const KSettings& k, std::uint32_t n, const KErrors& e, VisibilityOutcome& out) {
    if (k.formatErrors) spdlog::warn("--kij-errors is only computed when one device holds fp32 K; not reported");
    out.storage.rmsError = std::sqrt(e.sumSquared / (double(n) * double(n)));
    out.storage.maxAbsError = e.maxAbs;
}

namespace {

// One device computes fp32 (or fp16) K in place and compresses it there.
class InPlaceRoute final : public KRoute {
public:
    explicit InPlaceRoute(const KRouteInputs& in) : in_(in) {}

    std::vector<DeviceK> compute(const KSettings& k, VisibilityOutcome& out) override {
        const VisibilityDevice& d0 = in_.devices[0];
        vk::Device& device = *d0.device;
        const std::uint32_t n = std::uint32_t(in_.scene->size());
        DeviceK K; // its chunks allocated beside the first launches
        K.chunking = KChunking::forBudget(n, k.format, k.chunkBytes)
                         .as(k.format == KFormat::Fp16 ? KFormat::Fp16 : KFormat::Fp32);
        double raySeconds = 0.0;
        VisibilityPassTimes passes;
        EncodedAhead encoded(k.format); // allocated while the last launches run
        out.stats = computeVisibilityVulkan(device, *d0.geometry, *d0.accel, *in_.scene, k, K, raySeconds, 0, &passes,
                                            &encoded);
        out.details.emplace_back("visibility_rays", raySeconds);
        addPassTimes(passes, out);
        spdlog::info("visibility: device time {:.3f} s listing the facing pairs, {:.3f} s querying the tiles' "
                     "occluders, {:.3f} s on listed pairs, {:.3f} s on traced pairs, {:.3f} s on the near pairs' "
                     "other samples",
                     passes.facing, passes.tileQueries, passes.listed, passes.traced, passes.near);
        if (k.formatErrors && k.format == KFormat::Fp32)
            out.storage.formatErrors = formatErrorReport(downloadDeviceK(device, K));
        Stopwatch sw;
        const KErrors errors = compressDeviceK(device, K, k.format, encoded.take(device, K));
        out.compressSeconds = sw.seconds();
        // fp16 is converted in the shader, which does not report its rounding error.
        const bool fp16 = k.format == KFormat::Fp16;
        out.storage.rmsError = fp16 ? std::numeric_limits<double>::quiet_NaN()
                                    : std::sqrt(errors.sumSquared / (double(n) * double(n)));
        out.storage.maxAbsError = fp16 ? std::numeric_limits<double>::quiet_NaN() : errors.maxAbs;
        setEnergy(out.stats, formFactorDiagnosticsDevice(device, *d0.geometry, K));
        std::vector<DeviceK> parts;
        parts.push_back(std::move(K));
        return parts;
    }

private:
    const KRouteInputs& in_;
};

// K computed chunk by chunk on every device, assembled and encoded in host memory, placed.
class HostAssembledRoute final : public KRoute {
public:
    HostAssembledRoute(const KRouteInputs& in, const KPlan& plan) : in_(in), plan_(plan) {}

    std::vector<DeviceK> compute(const KSettings& k, VisibilityOutcome& out) override {
        HostK K;
        const ChunkedVisibility v = computeVisibilityChunked(in_.devices, *in_.scene, k, plan_, K);
        out.stats = v.stats;
        // Encoding overlapped the devices' work; only what ran after the last chunk is "compress".
        out.compressSeconds = v.compressSeconds;
        out.details.emplace_back("visibility_rays", v.raySeconds);
        out.details.emplace_back("visibility_host_allocation", v.allocationSeconds);
        out.details.emplace_back("visibility_host_assembly", v.assemblySeconds);
        noteEncodingErrors(k, plan_.chunking.n, KErrors{K.sumSquaredError(), K.maxAbsError()}, out);
        Stopwatch sw;
        if (plan_.segments) { // placed as segments, made in host memory where K was assembled
            K.toLayout(KLayout::Segments);
            out.details.emplace_back("k_segments_on_host", sw.lap());
        }
        // K is not needed here once placed: each chunk's words go as soon as they are on their
        // device (or in its pinned memory), so that a streamed K is not held twice.
        std::vector<DeviceK> parts = placeK(*in_.slots, K, plan_, [&K](std::uint32_t c) {
            if (K.layout() == KLayout::Segments)
                SegmentChunk().words.swap(K.segments(c).words);
            else
                std::vector<std::uint32_t>().swap(K.chunk(c).words);
        });
        out.details.emplace_back("k_placement", sw.seconds());
        return parts;
    }

private:
    const KRouteInputs& in_;
    const KPlan& plan_;
};

// K computed by each device for its own chunks, encoded there chunk by chunk (k_plan.h).
class WhereItLivesRoute final : public KRoute {
public:
    WhereItLivesRoute(const KRouteInputs& in, const KPlan& plan) : in_(in), plan_(plan) {}

    std::vector<DeviceK> compute(const KSettings& k, VisibilityOutcome& out) override {
        KWhereItLives v = computeKWhereItLives(in_.devices, *in_.scene, k, plan_, in_.journal);
        out.stats = v.stats;
        // Encoding overlapped the casting: it is part of the visibility phase, and a detail.
        out.details.emplace_back("visibility_rays", v.raySeconds);
        out.details.emplace_back("visibility_host_wait", v.waitSeconds);
        out.details.emplace_back("visibility_host_encode", v.encodeSeconds);
        out.details.emplace_back("visibility_host_row_sums", v.rowSumSeconds);
        out.details.emplace_back("visibility_host_place", v.placeSeconds);
        if (in_.journal) out.details.emplace_back("visibility_host_journal", v.journalSeconds);
        out.chunksFromJournal = v.chunksFromJournal;
        out.kInJournal = v.journalComplete;
        noteEncodingErrors(k, plan_.chunking.n, v.errors, out);
        return std::move(v.parts);
    }

private:
    const KRouteInputs& in_;
    const KPlan& plan_;
};

// This rank's chunks, each pair cast once in the job (visibility/vulkan_visibility_ranks.h).
class RankAssembledRoute final : public KRoute {
public:
    RankAssembledRoute(const KRouteInputs& in, const KPlan& plan) : in_(in), plan_(plan) {}

    std::vector<DeviceK> compute(const KSettings& k, VisibilityOutcome& out) override {
        RankAssembledK v = computeKRankAssembled(in_.devices[0], *in_.scene, k, plan_, *in_.share);
        out.stats = v.stats;
        out.compressSeconds = v.compressSeconds;
        out.details.emplace_back("visibility_rays", v.raySeconds);
        out.details.emplace_back("visibility_rank_exchange", v.exchangeSeconds);
        noteEncodingErrors(k, plan_.chunking.n, v.errors, out);
        std::vector<DeviceK> parts;
        parts.push_back(std::move(v.K));
        return parts;
    }

private:
    const KRouteInputs& in_;
    const KPlan& plan_;
};

// Row-block mode: whether the ranks cast each pair once and swap half blocks, each on its one
// device that holds its rows of K in fp32 beside everything else (they agree), or each casts
// the full rows of its chunks (K computed where it lives).
bool rankAssembledFits(const KRouteInputs& in, const KPlan& plan, const std::vector<DeviceBudget>& budgets) {
    const RowShare* share = in.share;
    if (!share || share->count() < 2) return false;
    const KFormat format = plan.chunking.format;
    const bool encodable = format == KFormat::Fp32 || kFormatInfo(format).logTable;
    const bool fits = in.devices.size() == 1 && !plan.anyStreamed() && encodable &&
                      budgets[0].fixedBytes + rankAssemblyDeviceBytes(*share) <= budgets[0].budgetBytes;
    std::vector<std::uint64_t> all{fits ? 1u : 0u};
    share->ranks().min(all);
    if (all[0])
        spdlog::info("K of this rank's chunks {} to {}: each pair cast once in the job, half blocks swapped with "
                     "the other ranks, assembled on {} ({} MiB of fp32)",
                     share->firstChunk(), share->endChunk(), in.devices[0].device->label(),
                     rankAssemblyDeviceBytes(*share) >> 20);
    else
        spdlog::info("K computed where it lives: each device casts the full rows of its chunks of this rank's "
                     "chunks {} to {} (casting each pair once needs every rank to hold its rows of K in fp32 on "
                     "one device, in lut8-log, lut4-log or fp32)",
                     share->firstChunk(), share->endChunk());
    return all[0] != 0;
}

} // namespace

std::unique_ptr<KRoute> chooseKRoute(const KRouteInputs& in, KPlan& plan, const std::vector<DeviceBudget>& budgets) {
    if (castOnceFits(in, plan, budgets)) {
        plan = plan.withBlocks(RowShare(plan.chunking, int(in.devices.size()), 0).firsts());
        return makeCastOnceRoute(in, plan);
    }
    if (rankAssembledFits(in, plan, budgets)) return std::make_unique<RankAssembledRoute>(in, plan);
    if (plan.hostAssembled) return std::make_unique<HostAssembledRoute>(in, plan);
    if (plan.whereItLives) return std::make_unique<WhereItLivesRoute>(in, plan);
    return std::make_unique<InPlaceRoute>(in);
}

} // namespace rsim
