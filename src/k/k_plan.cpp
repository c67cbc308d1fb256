// SPDX-License-Identifier: MIT
#include "k/k_plan.h"
#include "util/host_memory.h"

#include <algorithm>

#include <unistd.h>

#include <spdlog/spdlog.h>

#include "util/error.h"

namespace rsim {

StreamMode parseStreamMode(const std::string& v) {
    if (v == "auto") return StreamMode::Auto;
    if (v == "always") return StreamMode::Always;
    if (v == "never") return StreamMode::Never;
    throw InputError("--stream " + v + ": expected auto, always or never");
}

std::vector<std::uint32_t> KPlan::chunksOf(std::uint32_t d) const {
    std::vector<std::uint32_t> out;
    for (std::uint32_t c = 0; c < chunking.chunks(); ++c)
        if (owner[c] == d) out.push_back(c);
    return out;
}

KPlan KPlan::withBlocks(const std::vector<std::uint32_t>& first) const {
    KPlan p = *this;
    for (std::uint32_t d = 0; d + 1 < first.size(); ++d)
        for (std::uint32_t c = first[d]; c < first[d + 1]; ++c)
            p.owner[c] = d;
    p.hostAssembled = p.whereItLives = false;
    p.castOnceOnDevices = true;
    return p;
}

bool KPlan::anyStreamed() const {
    return std::find(streamed.begin(), streamed.end(), true) != streamed.end();
}

void KPlan::checkSegmentsFit(std::uint32_t d, std::uint64_t bytes, std::uint32_t placed, std::uint32_t total) const {
    const DeviceBudget& b = budgets.at(d);
    if (b.fixedBytes + bytes <= b.budgetBytes) return;
    const double MiB = 1048576.0;
    throw InputError(fmt::format("{}: K stored as segments takes {:.1f} MiB after {} of its {} chunks, beyond the {:.1f} "
                                 "MiB available beside {:.1f} MiB of other data; set simulation.k_layout = \"dense\" "
                                 "(K then streams from host memory where it does not fit), stream the segments with --stream always, or "
                                 "use more devices",
                                 b.label, double(bytes) / MiB, placed, total,
                                 double(b.budgetBytes - std::min(b.budgetBytes, b.fixedBytes)) / MiB,
                                 double(b.fixedBytes) / MiB));
}

std::uint64_t defaultHostBudgetBytes() {
    // Half of what the process may still take (a cgroup's limit included), at the start.
    return availableHostBytes() / 2;
}

KPlan planK(KChunking chunking, const std::vector<DeviceBudget>& devices, StreamMode mode,
            std::uint64_t hostBudgetBytes, std::uint32_t firstChunk, std::uint32_t endChunk, bool segments) {
    KPlan p;
    p.chunking = chunking;
    p.budgets = devices;
    p.segments = segments;
    const std::uint32_t n = chunking.n;
    const KFormat format = chunking.format;
    const std::uint32_t D = std::uint32_t(devices.size());
    // Static round-robin: chunks are of equal size (the last may be shorter), so every device
    // gets the same work to within one chunk.
    endChunk = std::min(endChunk, chunking.chunks());
    const bool allChunks = firstChunk == 0 && endChunk == chunking.chunks();
    for (std::uint32_t c = 0; c < chunking.chunks(); ++c)
        p.owner.push_back(c >= firstChunk && c < endChunk ? (c - firstChunk) % D : KPlan::kNoDevice);
    p.streamed.assign(D, false);
    p.streamGroup.assign(D, 1);
    for (std::uint32_t d = 0; d < D; ++d) {
        std::uint64_t kBytes = 0;
        for (std::uint32_t c : p.chunksOf(d))
            kBytes += chunking.chunkBytes(c);
        const DeviceBudget& b = devices[d];
        const bool fits = b.fixedBytes + kBytes <= b.budgetBytes;
        if (mode == StreamMode::Never && !fits && !p.segments)
            throw InputError(
                b.label + ": K needs " + std::to_string(kBytes >> 20) + " MiB (" +
                kFormatInfo(format).name + ") besides " + std::to_string(b.fixedBytes >> 20) +
                " MiB of other data, more than the " + std::to_string(b.budgetBytes >> 20) +
                " MiB available; use --stream auto (or more devices, or a smaller --kij)");
        // A device without chunks (more devices than chunks) holds nothing to stream.
        p.streamed[d] = !p.chunksOf(d).empty() && (mode == StreamMode::Always || (!fits && !p.segments));
        const std::uint64_t chunk = chunking.largestChunkBytes();
        if (p.streamed[d] && b.fixedBytes + kStreamBuffers * chunk > b.budgetBytes)
            throw Error(b.label + ": not even " + std::to_string(kStreamBuffers) + " K chunks of " +
                        std::to_string(chunk >> 20) + " MiB fit beside " +
                        std::to_string(b.fixedBytes >> 20) + " MiB of other data in " +
                        std::to_string(b.budgetBytes >> 20) + " MiB; use a smaller --chunk-mb");
        if (p.streamed[d]) {
            const std::uint64_t spare = (b.budgetBytes - b.fixedBytes) / (kStreamBuffers * chunk);
            const std::uint64_t target = std::max<std::uint64_t>(1, kStreamGroupBytes / chunk);
            p.streamGroup[d] = std::uint32_t(
                std::clamp<std::uint64_t>(std::min(spare, target), 1, p.chunksOf(d).size()));
        }
        spdlog::info(
            "{}: K {} ({} chunk(s) of {} rows, {} MiB on this device{}), {} + {} MiB of {} MiB",
            b.label,
            p.streamed[d] ? "streamed from host memory"
            : p.segments  ? "resident as segments, sized as they are made"
                          : "resident",
            p.chunksOf(d).size(),
            chunking.rowsPerChunk, kBytes >> 20,
            p.streamed[d] ? fmt::format(", copied {} at a time", p.streamGroup[d]) : p.segments ? " if dense" : "",
            b.fixedBytes >> 20,
            (p.streamed[d] ? kStreamBuffers * p.streamGroup[d] * chunk : kBytes) >> 20,
            b.budgetBytes >> 20);
    }
    // One device that can hold fp32 K beside everything else computes K in place.
    const std::uint64_t fp32Bytes = std::uint64_t(n) * n * 4;
    const bool inPlace =
        allChunks && D == 1 && !p.anyStreamed() && devices[0].fixedBytes + fp32Bytes <= devices[0].budgetBytes;
    p.hostAssembled = allChunks && !inPlace && fp32Bytes <= hostBudgetBytes;
    p.whereItLives = !inPlace && !p.hostAssembled;
    if (allChunks && p.whereItLives)
        spdlog::info("K computed where it lives: fp32 K ({} MiB) exceeds the host memory for assembling it ({} MiB, "
                     "--max-host-mb); each device casts the full rows of its chunks, every pair twice",
                     fp32Bytes >> 20, hostBudgetBytes >> 20);
    return p;
}

} // namespace rsim
