// SPDX-License-Identifier: MIT
#include "visibility/vulkan_visibility_chunked.h"

#include <algorithm>
#include <condition_variable>
#include <memory>
#include <mutex>

#include "k/k_diagnostics.h"
#include "util/parallel.h"
#include "util/progress.h"
#include "util/timer.h"
#include "visibility/vulkan_chunk_caster.h"
#include "vulkan/device_group.h"

namespace rsim {
namespace {

// Which chunks have arrived from the devices; the assembler waits on it. A failure wakes it.
class Arrivals {
public:
    explicit Arrivals(std::uint32_t chunks) : arrived_(chunks, false) {}
    void arrive(std::uint32_t c) {
        std::lock_guard lock(mutex_);
        arrived_[c] = true;
        cv_.notify_all();
    }
    void fail() {
        std::lock_guard lock(mutex_);
        failed_ = true;
        cv_.notify_all();
    }
    // False when a device failed.
    bool waitFor(std::uint32_t c) {
        std::unique_lock lock(mutex_);
        cv_.wait(lock, [&] { return arrived_[c] || failed_; });
        return !failed_;
    }

private:
    std::mutex mutex_;
    std::condition_variable cv_;
    std::vector<bool> arrived_;
    bool failed_ = false;
};

// Entry (i, j) of chunk c with j > i goes to (j, i) in j's chunk: every chunk after c, and
// chunk c itself.
void mirrorChunk(HostK& K, std::uint32_t c) {
    const KChunking& ch = K.chunking();
    const std::uint32_t r0 = ch.rowBegin(c), r1 = ch.rowEnd(c), rows = ch.rows(c), n = ch.n;
    const float* src = K.values(c);
    const std::uint32_t tile = 64, firstCol = r0 + 1, tiles = (n - std::min(n, firstCol) + tile - 1) / tile;
    parallelFor(tiles, 1, [&](std::size_t b, std::size_t e, unsigned) {
        for (std::size_t t = b; t < e; ++t) {
            const std::uint32_t j0 = firstCol + std::uint32_t(t) * tile, j1 = std::min(n, j0 + tile);
            for (std::uint32_t i0 = r0; i0 < r1; i0 += tile)
                for (std::uint32_t j = j0; j < j1; ++j) {
                    const std::uint32_t d = ch.chunkOf(j), rd = ch.rowBegin(d), rowsD = ch.rows(d);
                    float* dst = K.values(d);
                    const std::uint32_t iEnd = std::min({r1, i0 + tile, j});
                    for (std::uint32_t i = i0; i < iEnd; ++i)
                        dst[std::size_t(i) * rowsD + (j - rd)] = src[std::size_t(j) * rows + (i - r0)];
                }
        }
    });
}

} // namespace

ChunkedVisibility computeVisibilityChunked(const std::vector<VisibilityDevice>& devices,
                                           const PreparedScene& prepared, const KSettings& settings,
                                           const KPlan& plan, HostK& K) {
    const KChunking& ch = plan.chunking;
    const std::uint32_t C = ch.chunks();
    ChunkedVisibility out;
    // fp32 chunks until each is complete and encoded, zeroed on all cores before the first ray.
    // (Leaving them unzeroed, so that the devices' and the mirror's writes touch the pages
    // first, was measured slower with two devices: the large room's visibility 2.00 -> 2.21 s,
    // reverted in 2bfcaa5.)
    Stopwatch allocation;
    K = HostK(ch);
    out.allocationSeconds = allocation.seconds();

    std::vector<std::unique_ptr<ChunkCaster>> casters;
    for (std::uint32_t d = 0; d < devices.size(); ++d)
        casters.push_back(std::make_unique<ChunkCaster>(devices[d], prepared, settings, plan, plan.chunksOf(d)));
    Arrivals arrivals(C);
    Progress progress("visibility", std::uint64_t(ch.n) * (ch.n - 1) / 2, "pairs");
    Stopwatch busy;
    std::vector<double> busySeconds(devices.size(), 0.0);
    double assembled = 0.0; // when the assembling thread finished
    std::vector<double> rowSum(ch.n, 0.0);
    std::uint64_t clamped = 0;
    // One thread per device, and one more that assembles: chunk c is complete once its own upper
    // part has arrived and every earlier chunk has mirrored into it.
    const std::size_t D = devices.size();
    vk::forEachDevice(D + 1, [&](std::size_t d) {
        if (d == D) {
            for (std::uint32_t c = 0; c < C; ++c) {
                if (!arrivals.waitFor(c)) return;
                Stopwatch sw;
                mirrorChunk(K, c);
                K.encodeChunkAs(c, ch.format);
                // Its row sums too, while the devices cast later chunks (after the last chunk,
                // a pass over all of K took 0.55 s of the large room's 3.4 s with two devices;
                // docs/benchmarks.md at c8397db, "Two GPUs again, at today's estimator").
                clamped += addChunkRowSums(ch, c, K.chunk(c), prepared.area, rowSum);
                out.assemblySeconds += sw.seconds();
            }
            assembled = busy.seconds();
            return;
        }
        ChunkCaster& caster = *casters[d];
        try {
            if (caster.size() > 0) caster.submit(0);
            for (std::size_t k = 0; k < caster.size(); ++k) {
                if (k + 1 < caster.size()) caster.submit(k + 1); // slot (k+1)%2 was emptied at step k-1
                progress.add(caster.collect(k, K.values(caster.chunk(k))));
                arrivals.arrive(caster.chunk(k));
            }
            busySeconds[d] = busy.seconds();
        } catch (...) {
            arrivals.fail();
            throw;
        }
    });
    out.raySeconds = *std::max_element(busySeconds.begin(), busySeconds.end());
    out.compressSeconds = std::max(0.0, assembled - out.raySeconds);
    progress.finish();
    K.finishEncoding(ch.format);
    setEnergy(out.stats, summariseRowSums(rowSum, clamped));
    for (const auto& caster : casters) out.stats.addCounts(caster->stats());
    return out;
}

} // namespace rsim
