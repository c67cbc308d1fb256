// SPDX-License-Identifier: MIT
#include "visibility/vulkan_visibility_chunked.h"

#include <algorithm>
#include <array>
#include <condition_variable>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>

#include <spdlog/spdlog.h>

#include "backends/vulkan_rays.h"
#include "visibility/vulkan_visibility.h"
#include "util/parallel.h"
#include "util/progress.h"
#include "util/timer.h"

namespace rsim {

VisibilityStats computeVisibilityChunked(const std::vector<VisibilityDevice>& devices,
                                         const PreparedScene& prepared, const SimConfig& config,
                                         HostChunkedK& K, double& compressSeconds) {
    const KPlan& plan = K.plan;
    const std::uint32_t n = plan.n, C = plan.chunks;
    // fp32 chunks (device layout) until each is complete and encoded, zeroed on all cores before
    // the first ray. (Leaving them unzeroed, so that the devices' and the mirror's writes touch
    // the pages first, was measured slower on 2 H200s: docs/benchmarks.md.)
    Stopwatch allocation;
    std::vector<std::vector<float>> full(C);
    parallelFor(C, 1, [&](std::size_t b, std::size_t e, unsigned) {
        for (std::size_t c = b; c < e; ++c) full[c].assign(plan.elements(std::uint32_t(c)), 0.0f);
    });
    const double allocationSeconds = allocation.seconds();
    K.chunks.assign(C, EncodedChunk{});

    std::mutex mutex;
    std::condition_variable arrivedCv;
    std::vector<bool> arrived(C, false);
    std::exception_ptr failure;
    std::vector<VisibilityStats> perDevice(devices.size());
    Progress progress("visibility", std::uint64_t(n) * (n - 1) / 2, "pairs");

    auto deviceWork = [&](std::uint32_t d) {
        try {
            const vk::Device& dev = *devices[d].device;
            auto pipeline = makeRayPassPipeline(dev, &vk::shaders::visibility, sizeof(shared::VisibilityPush),
                                                false, *devices[d].accel, "visibility (chunked)");
            GpuCounters counters(dev, 3, "visibility counters");
            const auto mine = plan.chunksOf(d);
            std::uint64_t largest = 0;
            for (std::uint32_t c : mine) largest = std::max(largest, plan.elements(c));
            if (largest == 0) return;
            // Two slots, so that the device casts chunk k + 1 while the host copies chunk k out
            // of the other slot's readback buffer. Each slot's address table points every chunk
            // index at its scratch: only the current chunk's rows are written.
            struct Slot {
                vk::Buffer scratch, readback, table;
                std::unique_ptr<NearVisibilityList> near;
            };
            std::array<Slot, 2> slots;
            for (std::size_t s = 0; s < slots.size(); ++s) {
                const std::string tag = std::to_string(s);
                slots[s].scratch = vk::Buffer(dev, largest * 4, vk::kStorageUsage, vk::MemoryKind::Device,
                                              std::string("K chunk (fp32), slot ").append(tag));
                slots[s].readback = vk::Buffer(dev, largest * 4, VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                                               vk::MemoryKind::Readback, std::string("K chunk readback, slot ").append(tag));
                slots[s].table = vk::makeStorage(dev, std::vector<std::uint64_t>(C, slots[s].scratch.address()),
                                                 std::string("K chunk addresses, slot ").append(tag));
                slots[s].near = std::make_unique<NearVisibilityList>(dev, visibilityPairsPerLaunch(dev),
                                                                     "visibility near pairs");
            }
            const VkSemaphore chunkDone = dev.createTimelineSemaphore("visibility chunks");
            std::uint64_t submitted = 0;
            // Declared after the slots, so destroyed before them: never free a buffer the device
            // may still use (an exception below leaves submissions in flight).
            struct Drain {
                const vk::Device& dev;
                VkSemaphore sem;
                const std::uint64_t& value;
                ~Drain() {
                    try {
                        dev.waitTimeline(sem, value);
                    } catch (...) {
                    }
                }
            } drain{dev, chunkDone, submitted};
            shared::VisibilityPush push = visibilityPush(*devices[d].scene, prepared, config);
            push.stats = counters.address();
            push.rowsPerChunk = plan.rowsPerChunk;
            push.kStorage = shared::RSIM_K_FP32;
            push.mirror = 0;
            std::vector<std::uint64_t> pairsOf(mine.size(), 0);
            // Chunk k: zero the scratch, cast its rows, copy it to the readback buffer; one
            // submission, signalling k + 1 on chunkDone. The barrier first orders the fill after
            // the copy that last read this slot (two submissions earlier).
            auto submit = [&](std::size_t k) {
                const std::uint32_t c = mine[k];
                const Slot& s = slots[k % 2];
                push.kChunks = s.table.address();
                dev.submitAsync(
                    false,
                    [&](VkCommandBuffer cmd) {
                        vk::computeBarrier(dev, cmd);
                        dev.vk().vkCmdFillBuffer(cmd, s.scratch.handle(), 0, VK_WHOLE_SIZE, 0);
                        vk::computeBarrier(dev, cmd);
                        pairsOf[k] = recordVisibilityRows(dev, *pipeline, push, plan.rowBegin(c), plan.rowEnd(c),
                                                          *s.near, cmd);
                        vk::computeBarrier(dev, cmd);
                        const VkBufferCopy region{0, 0, plan.elements(c) * 4};
                        dev.vk().vkCmdCopyBuffer(cmd, s.scratch.handle(), s.readback.handle(), 1, &region);
                        VkMemoryBarrier toHost{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
                        toHost.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
                        toHost.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
                        dev.vk().vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT,
                                                      0, 1, &toHost, 0, nullptr, 0, nullptr);
                    },
                    VK_NULL_HANDLE, 0, chunkDone, k + 1);
                submitted = k + 1;
            };
            Stopwatch busy;
            submit(0);
            for (std::size_t k = 0; k < mine.size(); ++k) {
                if (k + 1 < mine.size()) submit(k + 1); // slot (k+1)%2 was emptied at step k-1
                dev.waitTimeline(chunkDone, k + 1);
                dev.reclaim();
                const std::uint32_t c = mine[k];
                const std::uint32_t r0 = plan.rowBegin(c), r1 = plan.rowEnd(c), rows = r1 - r0;
                const float* values = static_cast<const float*>(slots[k % 2].readback.mapped());
                progress.add(pairsOf[k]);
                // Only the upper entries (i < j): the lower ones belong to the host's mirror.
                float* dst = full[c].data();
                for (std::uint32_t j = r0 + 1; j < n; ++j) {
                    const std::uint32_t upto = std::min(rows, j - r0);
                    std::copy_n(&values[std::size_t(j) * rows], upto, dst + std::size_t(j) * rows);
                }
                std::lock_guard lock(mutex);
                arrived[c] = true;
                arrivedCv.notify_all();
            }
            const auto sums = counters.read();
            perDevice[d].candidatePairs = sums[0];
            perDevice[d].nonzeroPairs = sums[1];
            perDevice[d].raysCast = sums[2];
            perDevice[d].raySeconds = busy.seconds();
        } catch (...) {
            std::lock_guard lock(mutex);
            if (!failure) failure = std::current_exception();
            std::fill(arrived.begin(), arrived.end(), true);
            arrivedCv.notify_all();
        }
    };
    std::vector<std::thread> threads;
    for (std::uint32_t d = 0; d < devices.size(); ++d) threads.emplace_back(deviceWork, d);

    // Assembler: chunk c is complete once its own upper part has arrived and every earlier
    // chunk has mirrored into it; mirror it into the chunks after it, then encode it.
    double afterLast = 0.0;
    std::exception_ptr assemblyFailure;
    try {
        for (std::uint32_t c = 0; c < C; ++c) {
            {
                std::unique_lock lock(mutex);
                arrivedCv.wait(lock, [&] { return arrived[c]; });
                if (failure) break;
            }
            Stopwatch sw;
            const std::uint32_t r0 = plan.rowBegin(c), r1 = plan.rowEnd(c), rows = r1 - r0;
            const float* src = full[c].data();
            // (i, j) with i in chunk c, j > i, goes to (j, i): chunk d(j), element i * rows_d + (j - r0_d).
            const std::uint32_t tile = 64;
            const std::uint32_t firstCol = r0 + 1, tiles = (n - std::min(n, firstCol) + tile - 1) / tile;
            parallelFor(tiles, 1, [&](std::size_t b, std::size_t e, unsigned) {
                for (std::size_t t = b; t < e; ++t) {
                    const std::uint32_t j0 = firstCol + std::uint32_t(t) * tile, j1 = std::min(n, j0 + tile);
                    for (std::uint32_t i0 = r0; i0 < r1; i0 += tile)
                        for (std::uint32_t j = j0; j < j1; ++j) {
                            const std::uint32_t d = j / plan.rowsPerChunk, rd = plan.rowBegin(d);
                            const std::uint32_t rowsD = plan.rowEnd(d) - rd;
                            float* dst = full[d].data();
                            const std::uint32_t iEnd = std::min({r1, i0 + tile, j});
                            for (std::uint32_t i = i0; i < iEnd; ++i)
                                dst[std::size_t(i) * rowsD + (j - rd)] = src[std::size_t(j) * rows + (i - r0)];
                        }
                }
            });
            K.chunks[c] = encodeChunk(full[c].data(), full[c].size(), plan.format);
            std::vector<float>().swap(full[c]);
            K.sumSquaredError += K.chunks[c].sumSquaredError;
            K.maxAbsError = std::max(K.maxAbsError, K.chunks[c].maxAbsError);
            afterLast = c + 1 == C ? sw.seconds() : afterLast;
        }
    } catch (...) {
        assemblyFailure = std::current_exception();
    }
    for (auto& t : threads) t.join();
    progress.finish();
    if (failure) std::rethrow_exception(failure);
    if (assemblyFailure) std::rethrow_exception(assemblyFailure);
    compressSeconds = afterLast;

    VisibilityStats stats;
    stats.hostAllocationSeconds = allocationSeconds;
    for (const auto& v : perDevice) {
        stats.candidatePairs += v.candidatePairs;
        stats.nonzeroPairs += v.nonzeroPairs;
        stats.raysCast += v.raysCast;
        stats.raySeconds = std::max(stats.raySeconds, v.raySeconds);
    }
    return stats;
}

} // namespace rsim
