// SPDX-License-Identifier: MIT
// The phasors transport's solve on Vulkan devices (transport/vulkan_phasors.h).
#include "transport/vulkan_phasors.h"

#include <algorithm>
#include <cstring>
#include <iterator>
#include <memory>
#include <utility>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "k/row_share.h"
#include "rsim/shared/phasors.h"
#include "util/error.h"
#include "util/progress.h"
#include "util/timer.h"
#include "vulkan/device_group.h"
#include "vulkan/pass.h"
#include "vulkan/shaders.h"

namespace rsim {
namespace {

// Source slices of a workgroup (its rows): 32 receivers x 8 slices, 256 invocations.
constexpr std::uint32_t kSlices = 8;
// The tiled gather's poses per invocation at most: its shared memory (the tile's pair factors
// and its sources' column values) is 16 KiB at 4 frequencies x 4 poses, of lavapipe's 32 KiB.
constexpr std::uint32_t kTiledPoses = 4;

// How an invocation's accumulators are spent: POSES poses x FREQS frequencies, at most
// RSIM_PHASOR_MAX_ACC in all. A group of RSIM_PHASOR_TILED_POSES poses or more takes the tiled
// gather (shaders/phasors_tiled.comp: a pair's factors once for every pose of a block of
// RSIM_PHASOR_TILE x POSES), a smaller one the plain gather (a pair's factors per invocation).
struct AccumulatorShape {
    std::uint32_t poses = 1, freqs = 1;
    bool tiled = false;
    static AccumulatorShape of(std::uint32_t P, std::uint32_t F) {
        AccumulatorShape a;
        a.tiled = P >= shared::RSIM_PHASOR_TILED_POSES;
        // Tiled: poses per invocation, each block RSIM_PHASOR_TILE times that.
        const std::uint32_t perInvocation = a.tiled ? (P + shared::RSIM_PHASOR_TILE - 1) / shared::RSIM_PHASOR_TILE : P;
        while (a.poses < perInvocation && a.poses * 2 <= (a.tiled ? kTiledPoses : shared::RSIM_PHASOR_MAX_ACC)) a.poses *= 2;
        a.freqs = std::max(1u, std::min(F, shared::RSIM_PHASOR_MAX_ACC / a.poses));
        return a;
    }
    // Poses of a workgroup (the dispatch's y counts blocks of them).
    std::uint32_t blockPoses() const { return tiled ? poses * shared::RSIM_PHASOR_TILE : poses; }
    vk::ShaderCode shader() const { return tiled ? vk::shaders::phasorsTiled() : vk::shaders::phasorsGather(); }
    vk::SpecConstants constants(std::uint32_t kStorage, std::uint32_t kLayout) const {
        if (tiled)
            return vk::specConstants({{shared::RSIM_SPEC_K_FORMAT, kStorage},
                                      {shared::RSIM_SPEC_K_LAYOUT, kLayout},
                                      {shared::RSIM_SPEC_PHASOR_FREQS, freqs},
                                      {shared::RSIM_SPEC_PHASOR_POSES, poses}});
        return vk::specConstants({{shared::RSIM_SPEC_K_FORMAT, kStorage},
                                  {shared::RSIM_SPEC_K_LAYOUT, kLayout},
                                  {shared::RSIM_SPEC_PHASOR_FREQS, freqs},
                                  {shared::RSIM_SPEC_PHASOR_POSES, poses},
                                  {shared::RSIM_SPEC_PHASOR_SLICES, kSlices},
                                  {shared::RSIM_SPEC_PHASOR_AHEAD, shared::RSIM_PHASOR_AHEAD}});
    }
};

// One device's buffers and passes: the iterates B^(k) and B^(k+1), the sources, the columns'
// flags and changes; it iterates the rows of the chunks it holds.
class DevicePhasors {
  public:
    DevicePhasors(const PhasorDevice& d, const PreparedScene& s, const PhasorSystem& sys, AccumulatorShape shape)
        : dev_(*d.device), k_(*d.k), sys_(sys), C_(sys.columns.count()), shape_(shape),
          pass_(dev_, shape.shader(),
                shape.constants(d.k->chunking.storage(), d.k->layoutSpec()),
                shape.tiled ? "phasor tiled gather" : "phasor gather") {
        std::vector<glm::vec4> tris(s.size());
        for (std::size_t m = 0; m < s.size(); ++m) tris[m] = glm::vec4(s.centroid[m], s.area[m]);
        tris_ = vk::makeStorage(dev_, tris, "phasor triangles");
        rho_ = vk::makeStorage(dev_, sys.reflectance, "phasor reflectances");
        x_ = vk::makeStorage(dev_, sys.sources, "phasor iterate");
        next_ = vk::makeStorage(dev_, sys.sources, "phasor next iterate");
        sources_ = vk::makeStorage(dev_, sys.sources, "phasor sources");
        omegas_ = vk::makeStorage(dev_, sys.columns.omegas, "phasor frequencies");
        changes_ = vk::makeStorage(dev_, std::vector<std::uint32_t>(C_, 0u), "phasor changes");
        active_ = vk::Buffer(dev_, std::uint64_t(C_) * 4, vk::kStorageUsage, vk::MemoryKind::Upload, "phasor columns");
        readback_ = vk::Buffer(dev_, rowBytes() * s.size() + std::uint64_t(C_) * 4, vk::kStorageUsage,
                               vk::MemoryKind::Readback, "phasor readback");
        for (std::size_t h = 0; h < k_.chunkIds.size(); ++h) {
            const std::uint32_t c = k_.chunkIds[h];
            rows_.push_back({k_.chunking.rowBegin(c) * rowBytes(), k_.chunking.rowBegin(c) * rowBytes(),
                             k_.chunking.rows(c) * rowBytes()});
        }
    }

    std::uint64_t rowBytes() const { return std::uint64_t(C_) * sizeof(glm::vec2); }
    // The columns still iterated (1) or frozen (0).
    void setActive(const std::vector<std::uint8_t>& active) {
        auto* flags = static_cast<std::uint32_t*>(active_.mapped());
        for (std::uint32_t c = 0; c < C_; ++c) flags[c] = active[c];
    }

    // One iteration: B^(k+1) of this device's rows, the columns' changes read back, and with
    // `sendRows` its rows of B^(k+1) too.
    void iterate(bool sendRows) {
        dev_.submitAndWait([&](VkCommandBuffer cmd) {
            dev_.vk().vkCmdFillBuffer(cmd, changes_.handle(), 0, VK_WHOLE_SIZE, 0);
            vk::computeBarrier(dev_, cmd);
            pass_.bind(cmd);
            const std::uint32_t F = std::uint32_t(sys_.columns.omegas.size()), P = sys_.columns.poses;
            for (std::size_t h = 0; h < k_.chunkIds.size(); ++h) {
                shared::PhasorPush p = push(h);
                const std::uint32_t groups =
                    (k_.chunking.rows(k_.chunkIds[h]) + shared::RSIM_PHASOR_RECEIVERS - 1) / shared::RSIM_PHASOR_RECEIVERS;
                for (p.freq0 = 0; p.freq0 < F; p.freq0 += shape_.freqs)
                    pass_.dispatch(cmd, p, groups, (P + shape_.blockPoses() - 1) / shape_.blockPoses());
            }
            vk::computeBarrier(dev_, cmd);
            const VkBufferCopy changes{0, rowBytes() * sys_.n, std::uint64_t(C_) * 4};
            dev_.vk().vkCmdCopyBuffer(cmd, changes_.handle(), readback_.handle(), 1, &changes);
            if (sendRows && !rows_.empty())
                dev_.vk().vkCmdCopyBuffer(cmd, next_.handle(), readback_.handle(), std::uint32_t(rows_.size()),
                                          rows_.data());
            vk::hostReadBarrier(dev_, cmd);
        });
    }

    // The largest change of each column on this device's rows.
    float change(std::uint32_t c) const {
        float v;
        std::memcpy(&v, static_cast<const char*>(readback_.mapped()) + rowBytes() * sys_.n + std::uint64_t(c) * 4, 4);
        return v;
    }
    // Copies this device's rows of B^(k+1) (after iterate(true)) into `all` [n][C].
    void rowsInto(std::vector<glm::vec2>& all) const {
        for (const VkBufferCopy& r : rows_)
            std::memcpy(reinterpret_cast<char*>(all.data()) + r.srcOffset,
                        static_cast<const char*>(readback_.mapped()) + r.srcOffset, r.size);
    }
    // The other devices' rows of B^(k+1) from `all`.
    void receiveRows(const std::vector<glm::vec2>& all) { vk::uploadBytes(dev_, next_, all.data(), rowBytes() * sys_.n); }
    void swap() { std::swap(x_, next_); }
    std::vector<glm::vec2> values() const { return vk::download<glm::vec2>(dev_, x_, std::size_t(sys_.n) * C_); }

  private:
    shared::PhasorPush push(std::size_t held) const {
        shared::PhasorPush p{};
        p.k = k_.chunkRef(held);
        p.tris = tris_.address();
        p.rho = rho_.address();
        p.x = x_.address();
        p.next = next_.address();
        p.sources = sources_.address();
        p.omegas = omegas_.address();
        p.iterated = active_.address();
        p.changes = changes_.address();
        p.n = sys_.n;
        p.columns = C_;
        p.poses = sys_.columns.poses;
        p.invCdtSq = sys_.invCdtSq;
        p.rounded = sys_.roundedDelays ? 1u : 0u;
        return p;
    }

    vk::Device& dev_;
    const DeviceK& k_;
    const PhasorSystem& sys_;
    std::uint32_t C_;
    AccumulatorShape shape_;
    vk::Pass<shared::PhasorPush> pass_;
    vk::Buffer tris_, rho_, x_, next_, sources_, omegas_, changes_, active_, readback_;
    std::vector<VkBufferCopy> rows_; // this device's rows of an iterate, as copy regions
};

} // namespace

PhasorSolution solvePhasorsVulkan(const std::vector<PhasorDevice>& devices, const PreparedScene& s,
                                  const PhasorSystem& sys, const RowShare* share) {
    const std::uint32_t C = sys.columns.count();
    if (sys.sources.size() != std::size_t(sys.n) * C) throw Error("internal: the phasor sources do not match the columns");
    PhasorConvergence conv(sys);
    PhasorSolution out;
    out.iterations.assign(C, 0);
    out.change.assign(C, 0.0);
    out.scale = conv.scale;
    // Under MPI every rank iterates (a rank may hold no rows): the ranks' collectives pair up.
    if (!sys.indirect || (!share && (devices.empty() || !devices[0].k))) {
        out.values = sys.sources;
        return out;
    }
    const Stopwatch setup;
    const AccumulatorShape shape = AccumulatorShape::of(sys.columns.poses, std::uint32_t(sys.columns.omegas.size()));
    std::vector<PhasorDevice> held; // the devices with K's chunks
    std::copy_if(devices.begin(), devices.end(), std::back_inserter(held), [](const PhasorDevice& d) { return d.k; });
    std::vector<std::unique_ptr<DevicePhasors>> dev(held.size());
    vk::forEachDevice(dev.size(), [&](std::size_t d) { dev[d] = std::make_unique<DevicePhasors>(held[d], s, sys, shape); });
    const double setupSeconds = setup.seconds();
    // The iterate passes through host memory between the devices, and between the ranks.
    const bool viaHost = dev.size() > 1 || share;
    std::vector<glm::vec2> all(viaHost ? std::size_t(sys.n) * C : 0);
    double exchange = 0.0;
    const Stopwatch loop;
    Progress progress("phasors", sys.maxIterations, "iterations");
    for (std::uint32_t k = 1; k <= sys.maxIterations; ++k) {
        for (auto& d : dev) d->setActive(conv.active);
        vk::forEachDevice(dev.size(), [&](std::size_t d) { dev[d]->iterate(viaHost); });
        std::vector<double> changes(C, 0.0);
        for (const auto& d : dev)
            for (std::uint32_t c = 0; c < C; ++c) changes[c] = std::max(changes[c], double(d->change(c)));
        if (viaHost) {
            const Stopwatch sw;
            for (const auto& d : dev) d->rowsInto(all);
            if (share) swapPhasorRows(*share, C, all, changes);
            vk::forEachDevice(dev.size(), [&](std::size_t d) { dev[d]->receiveRows(all); });
            exchange += sw.seconds();
        }
        for (auto& d : dev) d->swap();
        out.sweeps = k;
        progress.add(1);
        if (!conv.update(k, changes, out)) break;
    }
    progress.finish();
    out.converged = std::none_of(conv.active.begin(), conv.active.end(), [](std::uint8_t a) { return a != 0; });
    out.values = viaHost ? std::move(all) : dev[0]->values();
    out.details.emplace_back("phasors_setup", setupSeconds);
    out.details.emplace_back("phasors_loop", loop.seconds());
    if (viaHost) out.details.emplace_back("phasors_exchange", exchange);
    out.summary = fmt::format("{} device(s){}, {} gather, {} x {} accumulators per invocation, setup {:.3f} s",
                              dev.size(), share ? fmt::format(" and {} other rank(s)", share->count() - 1) : std::string(),
                              shape.tiled ? "tiled" : "plain", shape.freqs, shape.poses, setupSeconds);
    return out;
}

} // namespace rsim
