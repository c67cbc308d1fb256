// SPDX-License-Identifier: MIT
// The Vulkan backend: every phase of MODEL.md on one or several GPUs (or software devices);
// only results (direct terms, B/Z histories, distances, the sensor image) come back to the host.
//
// K takes one of two routes. When one device can hold fp32 K beside everything else, that
// device computes K in place and compresses it there ("fast path"). Otherwise (several devices,
// streaming, or a K too large for fp32 on the device) K is computed chunk by chunk, assembled
// and encoded in host memory, and each chunk goes to the device that gathers from it: resident
// in device memory, or pinned in host memory and streamed every time block (streaming/k_plan.h).
#include <cmath>
#include <exception>
#include <limits>
#include <memory>
#include <thread>

#include <spdlog/spdlog.h>

#include "backends/backend.h"
#include "backends/vulkan_backend.h"
#include "backends/vulkan_scene.h"
#include "direct/vulkan_direct.h"
#include "distance/vulkan_distance.h"
#include "streaming/k_plan.h"
#include "transport/sources.h"
#include "transport/vulkan_near_pairs.h"
#include "transport/vulkan_transport.h"
#include "util/error.h"
#include "util/parallel.h"
#include "visibility/cpu_visibility.h"
#include "visibility/vulkan_visibility.h"
#include "visibility/vulkan_visibility_chunked.h"

namespace rsim {
namespace {

struct Slot {
    std::unique_ptr<vk::Device> device;
    std::unique_ptr<GpuScene> scene;
    std::unique_ptr<vk::SceneAccel> accel;
    // K chunks this device gathers from (resident or pinned), and all chunk tables.
    std::vector<vk::Buffer> chunks;
    vk::Buffer tables;
};

// Row sums and clamps of an assembled K (the same diagnostics as formFactorDiagnostics).
VisibilityStats hostDiagnostics(const PreparedScene& s, const HostChunkedK& K) {
    const std::uint32_t n = K.plan.n;
    std::vector<double> rowSum(n, 0.0);
    std::vector<std::uint64_t> clamped(n, 0);
    const std::uint32_t storage = kFormatInfo(K.plan.format).storage;
    parallelFor(K.plan.chunks, 1, [&](std::size_t b, std::size_t e, unsigned) {
        for (std::size_t c = b; c < e; ++c) {
            const std::uint32_t r0 = K.plan.rowBegin(std::uint32_t(c)), rows = K.plan.rowEnd(std::uint32_t(c)) - r0;
            for (std::uint32_t j = 0; j < n; ++j)
                for (std::uint32_t r = 0; r < rows; ++r) {
                    const float k = decodeElement(K.chunks[c], storage, std::uint64_t(j) * rows + r);
                    if (k == 0.0f) continue;
                    clamped[r0 + r] += k * s.area[j] > 1.0f;
                    rowSum[r0 + r] += double(shared::rsimFormFactor(k, s.area[j]));
                }
        }
    });
    VisibilityStats v;
    for (std::uint32_t i = 0; i < n; ++i) {
        v.clampedFormFactors += clamped[i];
        v.maxRowSum = std::max(v.maxRowSum, rowSum[i]);
        v.rowsOverOne += rowSum[i] > kRowSumWarning;
    }
    return v;
}

class VulkanBackend final : public Backend {
public:
    VulkanBackend(std::shared_ptr<vk::Instance> instance, const std::vector<const vk::PhysicalDeviceInfo*>& infos,
                  vk::RayPath path, StreamMode stream, std::uint64_t maxDeviceBytes)
        : instance_(std::move(instance)), stream_(stream), maxDeviceBytes_(maxDeviceBytes) {
        for (std::size_t d = 0; d < infos.size(); ++d) {
            Slot s;
            s.device = std::make_unique<vk::Device>(*instance_, *infos[d], path,
                                                    "device " + std::to_string(d) + " (" + infos[d]->name + ")");
            slots_.push_back(std::move(s));
        }
    }

    std::string name() const override { return "vulkan"; }

    SimulationResult simulate(const PreparedScene& s, const SimConfig& c, const RunOptions& opt,
                              PhaseTimes& times) override {
        const vk::Device& d0 = *slots_[0].device;
        SimulationResult r;
        r.n = std::uint32_t(s.size());
        r.timesteps = c.timesteps;
        r.backend = "vulkan";
        for (const auto& slot : slots_)
            r.devices.push_back(slot.device->info().name + " (" + slot.device->info().typeName() + ", " +
                                slot.device->info().driver + ")");
        r.visibilityPath = vk::rayPathName(d0.rayPath());
        const std::uint64_t errorsBefore = instance_->validationErrors();

        Stopwatch sw;
        std::vector<glm::vec3> vertices(3 * s.size());
        for (std::size_t i = 0; i < s.size(); ++i) {
            vertices[3 * i] = s.v0[i];
            vertices[3 * i + 1] = s.v1[i];
            vertices[3 * i + 2] = s.v2[i];
        }
        const bool indirect = c.indirect || opt.keepK;
        for (std::size_t k = 0; k < slots_.size(); ++k) {
            if (k > 0 && !indirect) break; // without K, device 0 does everything
            slots_[k].scene = std::make_unique<GpuScene>(*slots_[k].device, s, c);
            slots_[k].accel = std::make_unique<vk::SceneAccel>(*slots_[k].device, vertices);
        }
        times.add("accel", sw.seconds());

        sw = Stopwatch();
        r.direct = computeDirectVulkan(d0, *slots_[0].scene, *slots_[0].accel, s, c);
        times.add("direct", sw.seconds());
        checkDirectTerms(r.direct, c);
        const std::vector<shared::GpuTransportTri> records = makeTransportRecords(s, c, r.direct);

        std::vector<TransportDevice> transportDevices;
        NearLists near;
        std::unique_ptr<GpuKMatrix> residentK; // the fast path's K, on device 0
        if (indirect) {
            std::vector<DeviceBudget> budgets;
            const KPlan plan = planFor(s, c, budgets);
            for (std::size_t k = 0; k < budgets.size(); ++k) {
                SimulationResult::DeviceMemory m{budgets[k].label, budgets[k].budgetBytes, budgets[k].fixedBytes, 0,
                                                 0, plan.streamed[k], plan.streamed[k] ? plan.streamGroup[k] : 0};
                for (std::uint32_t ch : plan.chunksOf(std::uint32_t(k))) {
                    m.kBytes += plan.chunkBytes(ch);
                    ++m.chunks;
                }
                r.deviceMemory.push_back(m);
            }
            if (!plan.hostAssembled) {
                residentK = fastPathK(s, c, r, times);
                if (c.indirect) { // K may exist only for output.kij
                    sw = Stopwatch();
                    near = buildNearListsVulkan(d0, *residentK, records, c);
                    r.timingDetails.emplace_back("near_lists", sw.seconds());
                }
                TransportDevice td{&d0, slots_[0].scene.get(), {}};
                td.k.format = residentK->format;
                td.k.n = r.n;
                td.k.rowsPerChunk = residentK->rowsPerChunk;
                for (std::uint32_t ch = 0; ch < residentK->chunkCount(); ++ch) {
                    td.k.chunks.push_back(ch);
                    td.k.buffers.push_back(&residentK->chunks[ch]);
                    td.k.bytes.push_back(residentK->chunks[ch].size());
                }
                td.k.tables = residentK->tables ? &residentK->tables : nullptr;
                transportDevices.push_back(td);
            } else {
                HostChunkedK K{plan, {}, 0.0, 0.0};
                hostAssembledK(s, c, r, times, K);
                if (c.indirect) { // K may exist only for output.kij
                    sw = Stopwatch();
                    near = buildNearLists(s, c, [&K](std::uint32_t i, std::uint32_t j) { return K.get(i, j); });
                    r.timingDetails.emplace_back("near_lists", sw.seconds());
                }
                if (opt.keepK) {
                    r.K.assign(std::size_t(r.n) * r.n, 0.0f);
                    parallelFor(r.n, 64, [&](std::size_t b, std::size_t e, unsigned) {
                        for (std::size_t i = b; i < e; ++i)
                            for (std::uint32_t j = 0; j < r.n; ++j) r.K[i * r.n + j] = K.get(std::uint32_t(i), j);
                    });
                }
                sw = Stopwatch();
                transportDevices = place(K);
                r.timingDetails.emplace_back("k_placement", sw.seconds());
            }
        } else {
            times.add("compress", 0.0);
            transportDevices.push_back(TransportDevice{&d0, slots_[0].scene.get(), {}});
        }

        sw = Stopwatch();
        GpuTransport transport = runTransportVulkan(transportDevices, records, near, c, c.indirect);
        times.add("radiosity", sw.seconds());
        r.timingDetails.emplace_back("radiosity_setup", transport.setupSeconds);
        r.timingDetails.emplace_back("radiosity_loop", transport.loopSeconds);
        if (transportDevices.size() > 1) r.timingDetails.emplace_back("radiosity_exchange", transport.exchangeSeconds);
        if (transport.streamedBytes) {
            r.timingDetails.emplace_back("streamed_gib", double(transport.streamedBytes) / 1073741824.0);
            r.timingDetails.emplace_back("streamed_gbs", double(transport.streamedBytes) / transport.loopSeconds / 1e9);
        }
        spdlog::info("radiosity: {} timesteps in {:.3f} s ({:.3f} s time loop{}{})", c.timesteps, sw.seconds(),
                     transport.loopSeconds,
                     transportDevices.size() > 1 ? fmt::format(", {:.3f} s combining far sums", transport.exchangeSeconds) : "",
                     transport.streamedBytes ? fmt::format(", {:.1f} GiB of K streamed", double(transport.streamedBytes) / 1073741824.0) : "");
        const vk::Buffer& history = transport.histories[0];

        // The results the host needs: B and Z, and E and R rebuilt from the direct terms.
        sw = Stopwatch();
        const auto bz = vk::download<glm::vec2>(d0, history, std::size_t(r.n) * c.timesteps);
        r.B.resize(bz.size());
        r.Z.resize(bz.size());
        parallelFor(bz.size(), 1 << 16, [&](std::size_t begin, std::size_t end, unsigned) {
            for (std::size_t k = begin; k < end; ++k) {
                r.B[k] = bz[k].x;
                r.Z[k] = bz[k].y;
            }
        });
        buildSources(s, c, r.direct, r.E, r.R);
        times.add("download", sw.seconds());

        sw = Stopwatch();
        finishSignals(s, c, r);
        const vk::Buffer transportTris = vk::makeStorage(d0, records, "transport triangles (distances)");
        computeTriangleDistancesVulkan(d0, *slots_[0].scene, transportTris, history, c, r);
        if (opt.images)
            r.image = renderSensorImageVulkan(d0, *slots_[0].scene, *slots_[0].accel, transportTris, history, s, c);
        times.add("distance", sw.seconds());
        if (opt.keepK && residentK) r.K = downloadK(d0, *residentK);
        r.validationErrors = instance_->validationErrors() - errorsBefore;
        if (instance_->validation())
            spdlog::info("Vulkan validation: {} error(s) during the run", r.validationErrors);
        for (auto& slot : slots_) { // free K and the scenes: the backend may run again
            slot.chunks.clear();
            slot.tables.reset();
        }
        return r;
    }

private:
    // Memory each device may use and what it needs besides K.
    KPlan planFor(const PreparedScene& s, const SimConfig& c, std::vector<DeviceBudget>& budgets) const {
        const std::uint64_t n = s.size();
        for (std::size_t k = 0; k < slots_.size(); ++k) {
            const vk::Device& dev = *slots_[k].device;
            DeviceBudget b;
            b.label = dev.label();
            b.budgetBytes = dev.deviceLocalBudget();
            if (maxDeviceBytes_) b.budgetBytes = std::min(b.budgetBytes, maxDeviceBytes_);
            // Scene and BVH are already allocated; the budget query saw them. Add the transport's
            // buffers (history, far sums, records, near lists) and a margin for the visibility
            // scratch and pipelines.
            const std::uint64_t scratch = std::uint64_t(chunkRows(std::uint32_t(n), c.kFormat, c.chunkBytes)) * n * 4;
            b.fixedBytes = n * c.timesteps * 8 + n * 8 * shared::RSIM_TIME_BLOCK + n * 64 + n * 64 * 16 + scratch +
                           (8ull << 20);
            budgets.push_back(b);
        }
        return planK(std::uint32_t(n), c.kFormat, c.chunkBytes, budgets, stream_);
    }

    // One device computes fp32 (or fp16) K in place and compresses it there.
    std::unique_ptr<GpuKMatrix> fastPathK(const PreparedScene& s, const SimConfig& c, SimulationResult& r,
                                          PhaseTimes& times) {
        const vk::Device& d0 = *slots_[0].device;
        const KFormat format = c.kFormat;
        Stopwatch sw;
        auto K = std::make_unique<GpuKMatrix>(allocateK(d0, r.n, format == KFormat::Fp16 ? KFormat::Fp16 : KFormat::Fp32,
                                                        chunkRows(r.n, format, c.chunkBytes)));
        r.visibility = computeVisibilityVulkan(d0, *slots_[0].scene, *slots_[0].accel, s, c, *K);
        const double secs = sw.seconds();
        times.add("visibility", secs);
        r.timingDetails.emplace_back("visibility_rays", r.visibility.raySeconds);
        logVisibility(r, secs);
        if (c.kFormatErrors && format == KFormat::Fp32) {
            std::vector<std::vector<float>> chunks;
            for (std::uint32_t ch = 0; ch < K->chunkCount(); ++ch)
                chunks.push_back(vk::download<float>(d0, K->chunks[ch], std::size_t(K->rowEnd(ch) - K->rowBegin(ch)) * r.n));
            for (const FormatError& f : formatErrors(chunks, std::uint64_t(r.n) * r.n))
                r.kFormatErrors.push_back({kFormatInfo(f.format).name, f.rms, f.maxAbs});
        }
        sw = Stopwatch();
        const KErrors errors = compressKVulkan(d0, *K, format);
        times.add("compress", sw.seconds());
        // fp16 is converted in the shader, which does not report its rounding error.
        const bool fp16 = format == KFormat::Fp16;
        r.kRmsError = fp16 ? std::numeric_limits<double>::quiet_NaN()
                           : std::sqrt(errors.sumSquared / (double(r.n) * double(r.n)));
        r.kMaxAbsError = fp16 ? std::numeric_limits<double>::quiet_NaN() : errors.maxAbs;
        r.kFormat = kFormatInfo(format).name;
        r.kBytes = K->bytes();
        r.kChunks = K->chunkCount();
        r.kRowsPerChunk = K->rowsPerChunk;
        setEnergy(r, formFactorDiagnosticsVulkan(d0, *slots_[0].scene, *K));
        return K;
    }

    // K computed chunk by chunk on every device and assembled and encoded in host memory.
    void hostAssembledK(const PreparedScene& s, const SimConfig& c, SimulationResult& r, PhaseTimes& times,
                        HostChunkedK& K) {
        std::vector<VisibilityDevice> devices;
        for (auto& slot : slots_) devices.push_back({slot.device.get(), slot.scene.get(), slot.accel.get()});
        Stopwatch sw;
        double compressTail = 0.0;
        r.visibility = computeVisibilityChunked(devices, s, c, K, compressTail);
        const double secs = sw.seconds();
        // Encoding overlapped the devices' work; only what ran after the last chunk is "compress".
        times.add("visibility", secs - compressTail);
        times.add("compress", compressTail);
        r.timingDetails.emplace_back("visibility_rays", r.visibility.raySeconds);
        r.timingDetails.emplace_back("visibility_host_allocation", r.visibility.hostAllocationSeconds);
        logVisibility(r, secs);
        if (c.kFormatErrors)
            spdlog::warn("--kij-errors is only computed when one device holds fp32 K; not reported");
        r.kRmsError = std::sqrt(K.sumSquaredError / (double(r.n) * double(r.n)));
        r.kMaxAbsError = K.maxAbsError;
        r.kFormat = kFormatInfo(K.plan.format).name;
        r.kBytes = kBytes(r.n, K.plan.format, K.plan.rowsPerChunk);
        r.kChunks = K.plan.chunks;
        r.kRowsPerChunk = K.plan.rowsPerChunk;
        r.streaming = K.plan.anyStreamed();
        setEnergy(r, hostDiagnostics(s, K));
    }

    // Each chunk to the device that gathers from it; returns the transport's view.
    std::vector<TransportDevice> place(HostChunkedK& K) {
        const KPlan& plan = K.plan;
        const std::uint32_t tableSize = shared::rsimKTableSize(kFormatInfo(plan.format).storage);
        std::vector<float> tables(std::size_t(plan.chunks) * tableSize);
        for (std::uint32_t ch = 0; ch < plan.chunks; ++ch)
            std::copy(K.chunks[ch].table.begin(), K.chunks[ch].table.end(), tables.begin() + std::ptrdiff_t(ch) * tableSize);
        // One thread per device: each uploads its own chunks (the devices are independent).
        std::vector<TransportDevice> out(slots_.size());
        std::vector<std::exception_ptr> failures(slots_.size());
        auto placeOn = [&](std::size_t d) {
            Slot& slot = slots_[d];
            const vk::Device& dev = *slot.device;
            TransportDevice td{&dev, slot.scene.get(), {}};
            td.k.format = plan.format;
            td.k.n = plan.n;
            td.k.rowsPerChunk = plan.rowsPerChunk;
            td.k.streamed = plan.streamed[d];
            td.k.streamGroup = plan.streamGroup[d];
            for (std::uint32_t ch : plan.chunksOf(std::uint32_t(d))) {
                const auto& words = K.chunks[ch].words;
                const std::uint64_t bytes = words.size() * 4;
                if (td.k.streamed) {
                    vk::Buffer pinned(dev, bytes, VK_BUFFER_USAGE_TRANSFER_SRC_BIT, vk::MemoryKind::Upload,
                                      "K chunk " + std::to_string(ch) + " (host)");
                    std::memcpy(pinned.mapped(), words.data(), bytes);
                    slot.chunks.push_back(std::move(pinned));
                } else {
                    slot.chunks.push_back(vk::makeStorage(dev, words, "K chunk " + std::to_string(ch)));
                }
                std::vector<std::uint32_t>().swap(K.chunks[ch].words);
                td.k.chunks.push_back(ch);
                td.k.bytes.push_back(bytes);
            }
            for (const auto& b : slot.chunks) td.k.buffers.push_back(&b);
            if (tableSize) {
                slot.tables = vk::makeStorage(dev, tables, "K tables");
                td.k.tables = &slot.tables;
            }
            out[d] = td;
        };
        std::vector<std::thread> threads;
        for (std::size_t d = 0; d < slots_.size(); ++d)
            threads.emplace_back([&, d] {
                try {
                    placeOn(d);
                } catch (...) {
                    failures[d] = std::current_exception();
                }
            });
        for (auto& t : threads) t.join();
        for (auto& f : failures)
            if (f) std::rethrow_exception(f);
        return out;
    }

    static void setEnergy(SimulationResult& r, const VisibilityStats& e) {
        r.visibility.clampedFormFactors = e.clampedFormFactors;
        r.visibility.maxRowSum = e.maxRowSum;
        r.visibility.rowsOverOne = e.rowsOverOne;
    }
    static void logVisibility(const SimulationResult& r, double secs) {
        spdlog::info("visibility: {} candidate pairs, {} non-zero, {} rays in {:.2f} s ({:.1f} Mrays/s)",
                     r.visibility.candidatePairs, r.visibility.nonzeroPairs, r.visibility.raysCast, secs,
                     double(r.visibility.raysCast) / secs * 1e-6);
    }

    std::shared_ptr<vk::Instance> instance_;
    std::vector<Slot> slots_;
    StreamMode stream_;
    std::uint64_t maxDeviceBytes_;
};

} // namespace

std::unique_ptr<Backend> makeVulkanBackendOn(std::shared_ptr<vk::Instance> instance,
                                             const std::vector<const vk::PhysicalDeviceInfo*>& infos,
                                             vk::RayPath path, StreamMode stream, std::uint64_t maxDeviceBytes) {
    return std::make_unique<VulkanBackend>(std::move(instance), infos, path, stream, maxDeviceBytes);
}

} // namespace rsim
