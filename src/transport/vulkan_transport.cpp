// SPDX-License-Identifier: MIT
// The Vulkan transport's run (vulkan_transport.h): its plan (the blocks' steps, K resident or
// streamed, how the devices' far sums travel), each device's set-up on a thread of its own, then
// the time loop: per block the devices' far gathers, the exchange of their sums between devices
// and ranks, and the near steps, submitted and waited for in the order the devices need.
#include "transport/vulkan_transport.h"

#include <algorithm>
#include <memory>
#include <utility>

#include <spdlog/spdlog.h>

#include "transport/row_exchange.h"
#include "transport/vulkan_transport_device.h"
#include "util/error.h"
#include "util/progress.h"
#include "util/timer.h"
#include "vulkan/device_group.h"

namespace rsim {
namespace {

// One run of the transport: what it decided before the devices' set-up, the devices' parts, and
// the time loop's state that its blocks share. Its results go to `out`.
class TransportLoop {
public:
    // Checks the run's size and plans its blocks and exchanges (with `share`, a collective of
    // the ranks).
    TransportLoop(const std::vector<TransportDevice>& devices, std::uint32_t n, std::uint32_t poses,
                  const SimConfig& config, bool indirect, const TransportTuning& tuning, const RowShare* share,
                  const FarSumsMail* mail, GpuTransport& out);
    // Each device's buffers, uploads and pipelines on a thread of its own (each device has its
    // own queue and pools).
    void setUpDevices(const NearLists& near, const SimConfig& config, const TransportTuning& tuning);
    // The time loop, from `loopStarted` to every device's end.
    void run(const std::function<void()>& loopStarted);
    // The devices' histories are identical: device 0's serves the later passes; the others'
    // wait for the next group.
    void takeHistories();

private:
    void setUpDevice(std::size_t d, const NearLists& near, const SimConfig& config, const TransportTuning& tuning);
    // What the exchanges of every block use, made as the loop begins.
    void prepareExchanges();
    // The block [t0, t0 + steps), the b-th.
    void runBlock(std::uint32_t t0, std::uint32_t b, std::uint32_t steps);
    // SharedHost: the block's far gathers and near steps queued on every device, the near steps
    // behind the gates; the block before's gates opened while the devices have this one queued.
    void queueSharedBlock(std::uint32_t t0, std::uint32_t b, std::uint32_t steps);
    // Once every device's far gathers of the last queued block have ended, its gates.
    void openGates();
    // HostCopies: the block's far sums, each device's the rows of its chunks, combined on the
    // host: through the ranks' exchange, or from device to device.
    void combineFarSums(std::uint32_t steps);

    const std::vector<TransportDevice>& devices_;
    std::uint32_t n_, poses_, T_;
    bool indirect_;
    const RowShare* share_;
    const FarSumsMail* mail_;
    GpuTransport& out_;
    std::size_t D_ = 0;
    bool exchange_ = false;
    std::uint32_t block_ = 0;
    bool resident_ = true;
    FarSumsExchange how_ = FarSumsExchange::None;
    std::vector<std::unique_ptr<DeviceTransport>> st_;
    // The ranks' exchanges combine every row on the host; several devices of one process send each
    // other their rows directly (DeviceTransport::sendFarSumsTo).
    std::vector<glm::vec2> merged_;
    // SharedHost: the block whose far gathers were submitted last; the host opens its gates (each
    // device's near steps, queued behind them) once every device's gathers have ended, after it
    // has queued the next block's.
    std::uint64_t gates_ = 0; // gates opened, one per exchanged block
    std::vector<std::uint64_t> farDone_, nextFarDone_;
    bool gatherPending_ = false;
    // Row-block mode: the exchanges of a block's far sums (every step of the block, fp32 B and Z
    // per pose), of all this rank's rows or of each half; built once, their buffers serve every block.
    std::vector<RowExchange> rankExchanges_;
};

TransportLoop::TransportLoop(const std::vector<TransportDevice>& devices, std::uint32_t n, std::uint32_t poses,
                             const SimConfig& config, bool indirect, const TransportTuning& tuning,
                             const RowShare* share, const FarSumsMail* mail, GpuTransport& out)
    : devices_(devices), n_(n), poses_(poses), T_(config.timesteps), indirect_(indirect), share_(share), mail_(mail),
      out_(out) {
    if (poses != paddedPoses(poses, tuning)) throw Error("internal: the transport's pose count is not padded");
    if (std::uint64_t(n) * T_ * poses >= (std::uint64_t(1) << 32))
        throw Error("N x T x poses = " + std::to_string(std::uint64_t(n) * T_ * poses) +
                    " exceeds the 2^32 entries of one history buffer; use fewer timesteps or poses per group");
    D_ = indirect ? devices.size() : 1;
    if (!indirect) share_ = nullptr;
    exchange_ = D_ > 1 || share_;
    // Blocks of this many steps: the near lists were built for it (transportNearBelow).
    block_ = transportNearBelow(devices, tuning, share_ != nullptr);
    for (std::size_t d = 0; d < D_; ++d) resident_ = resident_ && !(devices[d].k && devices[d].k->streamed);
    if (share_) { // the exchanges in halves need every rank's K resident: all ranks take the same path
        std::vector<std::uint64_t> all{resident_ ? 1u : 0u};
        share_->ranks().min(all);
        resident_ = all[0] == 1;
    }
    // Several devices of one process with K resident: the far sums of a block pass from device to
    // device through host memory that every device imports, the host copying nothing.
    const bool mailed = mail && mail->holds(farSumsBytes(n, block_, poses)) && D_ > 1 && !share_ && resident_;
    how_ = !exchange_ ? FarSumsExchange::None : mailed ? FarSumsExchange::SharedHost : FarSumsExchange::HostCopies;
}

void TransportLoop::setUpDevices(const NearLists& near, const SimConfig& config, const TransportTuning& tuning) {
    st_.resize(D_);
    if (D_ == 1) setUpDevice(0, near, config, tuning);
    else vk::forEachDevice(D_, [&](std::size_t d) { setUpDevice(d, near, config, tuning); });
}

void TransportLoop::setUpDevice(std::size_t d, const NearLists& near, const SimConfig& config,
                                const TransportTuning& tuning) {
    const Stopwatch sw;
    st_[d] = std::make_unique<DeviceTransport>(devices_[d], n_, poses_, near, config, how_, tuning, block_);
    spdlog::debug("{}: the transport's buffers, uploads and passes in {:.4f} s ({} s)", devices_[d].device->label(),
                  sw.seconds(), st_[d]->setupParts());
}

void TransportLoop::prepareExchanges() {
    merged_ = std::vector<glm::vec2>(share_ ? std::size_t(n_) * block_ * poses_ : 0);
    if (how_ == FarSumsExchange::SharedHost) {
        out_.sharedExchangeBytes = 2 * mail_->blocks[0]->size();
        spdlog::debug("the devices' far sums through {:.1f} MiB of host memory they all import",
                      double(out_.sharedExchangeBytes) / 1048576.0);
    }
    farDone_.assign(D_, 0);
    nextFarDone_.assign(D_, 0);
    const std::uint32_t parts = resident_ ? 2 : 1;
    for (std::uint32_t part = 0; share_ && part < parts; ++part)
        rankExchanges_.emplace_back(*share_, rowsOfPart(*share_, part, parts), block_,
                                    std::size_t(n_) * poses_ * sizeof(glm::vec2),
                                    std::size_t(poses_) * sizeof(glm::vec2));
}

void TransportLoop::run(const std::function<void()>& loopStarted) {
    Stopwatch loop;
    if (loopStarted) loopStarted();
    prepareExchanges();
    Progress progress("radiosity", T_, "timesteps");
    for (std::uint32_t t0 = 0, b = 0; t0 < T_; t0 += block_, ++b) {
        const std::uint32_t steps = std::min(block_, T_ - t0);
        runBlock(t0, b, steps);
        progress.add(steps);
    }
    if (gatherPending_) openGates();
    for (auto& s : st_) s->finish();
    progress.finish();
    out_.loopSeconds = loop.seconds();
    for (auto& s : st_) out_.streamedBytes += s->streamedBytes();
}

void TransportLoop::runBlock(std::uint32_t t0, std::uint32_t b, std::uint32_t steps) {
    for (auto& s : st_) s->throttle(b);
    // Nothing can arrive before the shortest far delay: the first block has no far gather.
    const bool gather = indirect_ && t0 + steps > block_;
    if (!exchange_ && resident_) {
        for (auto& s : st_) s->submitBlock(t0, steps, b, gather);
        return;
    }
    if (gather && how_ == FarSumsExchange::SharedHost) {
        queueSharedBlock(t0, b, steps);
        return;
    }
    if (gather && share_ && resident_) {
        // Row-block mode: the first half of this rank's chunks, then the second; the first
        // half's far sums travel to the other ranks while the devices gather the second.
        out_.exchangeSeconds +=
            exchangeInHalves(st_, *share_, merged_, rankExchanges_[0], rankExchanges_[1], t0, steps);
    } else if (gather) {
        for (auto& s : st_) s->submitFar(t0, steps, exchange_);
    }
    if (gather && exchange_ && !(share_ && resident_)) combineFarSums(steps);
    using Upload = DeviceTransport::FarSumsUpload;
    const Upload upload = !(gather && exchange_) ? Upload::None : share_ ? Upload::All : Upload::Others;
    for (auto& s : st_) s->submitNear(t0, steps, b, upload);
}

void TransportLoop::queueSharedBlock(std::uint32_t t0, std::uint32_t b, std::uint32_t steps) {
    const vk::SharedHostBuffer& m = *mail_->blocks[b % 2];
    for (std::size_t d = 0; d < D_; ++d) nextFarDone_[d] = st_[d]->submitFarShared(t0, steps, m, d);
    const std::uint64_t gate = gates_ + (gatherPending_ ? 2 : 1);
    for (std::size_t d = 0; d < D_; ++d) st_[d]->submitNearShared(t0, steps, b, m, d, gate);
    if (gatherPending_) openGates(); // the block before, while the devices have this one queued
    farDone_.swap(nextFarDone_);
    gatherPending_ = true;
}

void TransportLoop::openGates() {
    for (std::size_t d = 0; d < D_; ++d) st_[d]->reached(farDone_[d], UINT64_MAX);
    const Stopwatch sw;
    ++gates_;
    for (auto& s : st_) s->openGate(gates_);
    out_.exchangeSeconds += sw.seconds();
    gatherPending_ = false;
}

void TransportLoop::combineFarSums(std::uint32_t steps) {
    // Combine: each device's far sums hold the rows of its chunks.
    for (auto& s : st_) s->waitForFarSums();
    Stopwatch sw;
    if (share_) {
        for (auto& s : st_) s->contributeFarSums(merged_, steps);
        rankExchanges_[0].start(merged_.data());
        rankExchanges_[0].finish(merged_.data(), nullptr);
        for (auto& s : st_) s->receiveFarSums(merged_);
    } else {
        for (std::size_t from = 0; from < D_; ++from)
            for (std::size_t to = 0; to < D_; ++to)
                if (to != from) st_[from]->sendFarSumsTo(*st_[to], steps);
    }
    out_.exchangeSeconds += sw.seconds();
}

void TransportLoop::takeHistories() {
    out_.lanes = st_[0]->lanes();
    out_.history = st_[0]->takeHistory();
    for (std::size_t d = 1; d < st_.size(); ++d)
        if (devices_[d].spareHistory) *devices_[d].spareHistory = st_[d]->takeHistory();
}

} // namespace

GpuTransport runTransportVulkan(const std::vector<TransportDevice>& devices, std::uint32_t n, std::uint32_t poses,
                                const NearLists& nearGiven, const SimConfig& config, bool indirect,
                                const TransportTuning& tuning, const RowShare* share,
                                const std::function<void()>& loopStarted, const FarSumsMail* mail) {
    Stopwatch setup;
    GpuTransport out;
    TransportLoop loop(devices, n, poses, config, indirect, tuning, share, mail, out);
    NearLists none;
    none.offsets.assign(n + 1, 0);
    loop.setUpDevices(indirect && !nearGiven.offsets.empty() ? nearGiven : none, config, tuning);
    out.setupSeconds = setup.seconds();
    loop.run(loopStarted);
    loop.takeHistories();
    return out;
}

} // namespace rsim
