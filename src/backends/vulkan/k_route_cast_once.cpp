// SPDX-License-Identifier: MIT
// K cast once between the devices of one process (visibility/vulkan_visibility_ranks.h): each
// holds its block of rows in fp32, casts its block's upper triangle and half of the block it
// shares with every other device, uploads the halves the others cast for it from their memory,
// and encodes its rows in place. Nothing of K is assembled on the host.
#include <algorithm>
#include <exception>
#include <optional>

#include <spdlog/spdlog.h>

#include "backends/vulkan/k_routes.h"
#include "k/k_diagnostics.h"
#include "k/shared_block_claims.h"
#include "util/progress.h"
#include "visibility/vulkan_visibility_ranks.h"
#include "vulkan/device_group.h"

namespace rsim {

// Several devices, K resident (no MPI row share): whether each can hold its block of rows in
// fp32 beside everything else, every one owns a chunk, K's format is encoded on the devices,
// and the halves they send (fp32) and their staging buffers fit the host budget.
bool castOnceFits(const KRouteInputs& in, const KPlan& plan, const std::vector<DeviceBudget>& budgets) {
    const int D = int(in.devices.size());
    const KFormat format = plan.chunking.format;
    if (in.share || D < 2 || plan.anyStreamed() || !(plan.hostAssembled || plan.whereItLives) ||
        !(format == KFormat::Fp32 || kFormatInfo(format).logTable))
        return false;
    const RowShare blocks(plan.chunking, D, 0);
    std::uint64_t hostBytes = 0;
    for (int d = 0; d < D; ++d) {
        if (blocks.firstChunk(d) == blocks.endChunk(d)) return false;
        const RowShare part(plan.chunking, D, d);
        if (budgets[std::size_t(d)].fixedBytes + rankAssemblyDeviceBytes(part) > budgets[std::size_t(d)].budgetBytes)
            return false;
        hostBytes += kHalfSwapStagingBytes;
        for (int r = 0; r < D; ++r)
            if (r != d) hostBytes += std::uint64_t(blocks.pairBlock(d, r, true).pairs()) * 4;
    }
    return hostBytes <= in.maxHostBytes;
}

namespace {

class CastOnceRoute final : public KRoute {
public:
    CastOnceRoute(const KRouteInputs& in, const KPlan& plan) : in_(in), plan_(plan), cut_(plan.chunking, devices(), 0) {}

    std::vector<DeviceK> compute(const KSettings& k, VisibilityOutcome& out) override {
        // Two devices claim the block they share group by group from both ends, each group about
        // one launch of pairs.
        std::optional<SharedBlockClaims> claims;
        if (devices() == 2)
            claims.emplace(cut_.firstChunk(0), cut_.endChunk(0),
                           std::min(kHalfCastChunks,
                                    sharedBlockGroupChunks(visibilityPairsPerLaunch(*device(0), plan_.chunking.n),
                                                           plan_.chunking.rowsPerChunk, cut_.rowEnd(1) - cut_.rowBegin(1))));
        logBlocks(claims ? &*claims : nullptr);
        std::vector<RankAssembledK> parts = castOnEveryDevice(k, claims ? &*claims : nullptr);
        return combine(k, parts, out);
    }

private:
    int devices() const { return int(in_.devices.size()); }
    vk::Device* device(std::size_t d) const { return in_.devices[d].device; }

    void logBlocks(const SharedBlockClaims* claims) const {
        std::string blocks;
        for (int d = 0; d < devices(); ++d)
            blocks += fmt::format("{}{}: rows {} to {} ({} chunk(s))", d ? "; " : "", device(std::size_t(d))->label(),
                                  cut_.rowBegin(d), cut_.rowEnd(d), cut_.endChunk(d) - cut_.firstChunk(d));
        spdlog::info("K cast once on {} devices, each holding its block of rows in fp32 (these blocks, not the chunk "
                     "counts above), the halves of the blocks they share swapped: {}{}",
                     devices(), blocks,
                     claims ? fmt::format("; the shared block claimed in {} group(s) of {} chunk(s) from both ends",
                                          claims->groups(), claims->groupEnd(0) - claims->groupBegin(0))
                            : "");
    }

    // Every device casts its part on a thread of its own; the first failure that is not another
    // device's abandoned swap is rethrown.
    std::vector<RankAssembledK> castOnEveryDevice(const KSettings& k, SharedBlockClaims* claims) {
        const std::size_t D = std::size_t(devices());
        const std::uint64_t n = in_.scene->size();
        DeviceHalfMail mail{int(D)};
        const DeviceHalves shared{mail, claims};
        std::vector<RankAssembledK> parts(D);
        std::vector<std::exception_ptr> failures(D);
        Progress progress("visibility", n * (n - 1) / 2, "pairs");
        vk::forEachDevice(D, [&](std::size_t d) {
            try {
                const RowShare part(plan_.chunking, int(D), int(d));
                parts[d] = computeKRankAssembled(in_.devices[d], *in_.scene, k, plan_, part, &shared, &progress);
            } catch (...) {
                failures[d] = std::current_exception();
                mail.fail();
            }
        });
        if (claims)
            spdlog::debug("the shared block's {} group(s): {} cast by {}, {} by {}", claims->groups(), claims->met(),
                          device(0)->label(), claims->groups() - claims->met(), device(1)->label());
        for (const auto& f : failures) {
            if (!f) continue;
            try {
                std::rethrow_exception(f);
            } catch (const DeviceHalfMail::Abandoned&) {
            }
        }
        progress.finish();
        return parts;
    }

    // The devices' parts as one K: counts added, row sums and errors combined, times of the
    // slowest device.
    std::vector<DeviceK> combine(const KSettings& k, std::vector<RankAssembledK>& parts, VisibilityOutcome& out) const {
        VisibilityStats energy;
        KErrors errors;
        double rays = 0.0, exchange = 0.0;
        VisibilityPassTimes passes;
        double halves = 0.0; // the devices' time in the half blocks' passes
        std::vector<DeviceK> K;
        for (RankAssembledK& p : parts) {
            passes += p.halvesPasses;
            passes += p.ownPasses;
            halves += p.halvesPasses.total();
            out.stats.addCounts(p.stats);
            energy.clampedFormFactors += p.stats.clampedFormFactors;
            energy.rowsOverOne += p.stats.rowsOverOne;
            energy.maxRowSum = std::max(energy.maxRowSum, p.stats.maxRowSum);
            errors.sumSquared += p.errors.sumSquared;
            errors.maxAbs = std::max(errors.maxAbs, p.errors.maxAbs);
            rays = std::max(rays, p.raySeconds);
            exchange = std::max(exchange, p.exchangeSeconds);
            out.compressSeconds = std::max(out.compressSeconds, p.compressSeconds);
            K.push_back(std::move(p.K));
        }
        setEnergy(out.stats, energy);
        out.details.emplace_back("visibility_rays", rays);
        out.details.emplace_back("visibility_device_exchange", exchange);
        addPassTimes(passes, out);
        out.details.emplace_back("visibility_gpu_half_blocks", halves);
        noteEncodingErrors(k, plan_.chunking.n, errors, out);
        return K;
    }

    const KRouteInputs& in_;
    const KPlan& plan_;
    const RowShare cut_; // the devices' blocks of rows
};

} // namespace

std::unique_ptr<KRoute> makeCastOnceRoute(const KRouteInputs& in, const KPlan& plan) {
    return std::make_unique<CastOnceRoute>(in, plan);
}

} // namespace rsim
