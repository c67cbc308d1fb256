// SPDX-License-Identifier: MIT
// The host's part of the Vulkan transport's far-sum exchanges (vulkan_transport_device.h): the
// far sums' mail in host memory that several devices import (makeFarSumsMail), the host's
// copies between devices and into and out of the MPI ranks' exchanges, and row-block mode's
// exchange of a block in two halves.
#include "transport/vulkan_transport_device.h"

#include <algorithm>
#include <cstring>

#include <spdlog/spdlog.h>

#include "util/parallel.h"

namespace rsim {
namespace {
bool hostCopiesOnly = false; // avoidSharedHostExchange
} // namespace

void avoidSharedHostExchange(bool avoid) { hostCopiesOnly = avoid; }

// The copies of a block (several MB between the devices' gathers, which wait for them) run on
// every thread: on one, industry's radiosity loop on two devices spent 0.18 of its 0.79 s
// combining far sums (1add2cb).
void DeviceTransport::contributeFarSums(std::vector<glm::vec2>& merged, std::uint32_t steps, std::uint32_t c0,
                                        std::uint32_t c1) const {
    const auto* src = static_cast<const glm::vec2*>(readback_.mapped());
    const KChunking& ch = k_->chunking;
    std::vector<std::uint32_t> chunks;
    for (std::uint32_t c : k_->chunkIds)
        if (c >= c0 && c < c1) chunks.push_back(c);
    parallelFor(chunks.size() * steps, 16, [&](std::size_t b, std::size_t e, unsigned) {
        for (std::size_t x = b; x < e; ++x) {
            const std::uint32_t c = chunks[x / steps], q = std::uint32_t(x % steps);
            const std::size_t o = (std::size_t(q) * n_ + ch.rowBegin(c)) * P_;
            std::memcpy(&merged[o], &src[o], std::size_t(ch.rows(c)) * P_ * sizeof(glm::vec2));
        }
    });
}

void DeviceTransport::receiveFarSums(const std::vector<glm::vec2>& merged) {
    auto* to = static_cast<char*>(upload_.mapped());
    const auto* from = reinterpret_cast<const char*>(merged.data());
    parallelFor(farBytes_, std::size_t(256) << 10, [&](std::size_t b, std::size_t e, unsigned) {
        std::memcpy(to + b, from + b, e - b);
    });
}

void DeviceTransport::sendFarSumsTo(DeviceTransport& to, std::uint32_t steps) const {
    // In pieces of at most 256 KiB, copied on every thread.
    constexpr std::uint64_t kPiece = std::uint64_t(256) << 10;
    std::vector<VkBufferCopy> pieces;
    for (const VkBufferCopy& r : rowRegions(steps, true))
        for (std::uint64_t o = 0; o < r.size; o += kPiece)
            pieces.push_back({r.srcOffset + o, r.srcOffset + o, std::min(kPiece, r.size - o)});
    const auto* from = static_cast<const char*>(readback_.mapped());
    auto* into = static_cast<char*>(to.upload_.mapped());
    parallelFor(pieces.size(), 1, [&](std::size_t b, std::size_t e, unsigned) {
        for (std::size_t x = b; x < e; ++x)
            std::memcpy(into + pieces[x].srcOffset, from + pieces[x].srcOffset, pieces[x].size);
    });
}

double exchangeInHalves(std::vector<std::unique_ptr<DeviceTransport>>& st, const RowShare& share,
                        std::vector<glm::vec2>& merged, RowExchange& firstHalf, RowExchange& secondHalf,
                        std::uint32_t t0, std::uint32_t steps) {
    const std::uint32_t first = share.firstChunk(), middle = share.partChunk(share.rank(), 1, 2),
                        end = share.endChunk();
    std::vector<std::uint64_t> firstDone, secondDone;
    for (auto& s : st) firstDone.push_back(s->submitFarOfChunks(t0, steps, first, middle));
    for (auto& s : st) secondDone.push_back(s->submitFarOfChunks(t0, steps, middle, end));
    for (std::size_t d = 0; d < st.size(); ++d) st[d]->reached(firstDone[d], UINT64_MAX);
    Stopwatch sw;
    for (auto& s : st) s->contributeFarSums(merged, steps, first, middle);
    firstHalf.start(merged.data());
    double host = sw.seconds();
    constexpr std::uint64_t kPollNs = 100'000;
    for (std::size_t d = 0; d < st.size(); ++d)
        while (!st[d]->reached(secondDone[d], kPollNs)) firstHalf.poll();
    sw = Stopwatch();
    for (auto& s : st) s->contributeFarSums(merged, steps, middle, end);
    secondHalf.start(merged.data());
    firstHalf.finish(merged.data(), nullptr);
    secondHalf.finish(merged.data(), nullptr);
    for (auto& s : st) s->receiveFarSums(merged);
    return host + sw.seconds();
}

std::unique_ptr<FarSumsMail> makeFarSumsMail(const std::vector<TransportDevice>& devices, std::uint32_t n,
                                             std::uint32_t poses, const TransportTuning& tuning, bool indirect,
                                             bool ranks) {
    auto mail = std::make_unique<FarSumsMail>();
    bool streamed = false;
    for (const TransportDevice& d : devices) streamed = streamed || (d.k && d.k->streamed);
    if (devices.size() < 2 || !indirect || ranks || streamed || hostCopiesOnly) return mail;
    std::vector<vk::Device*> all;
    for (const TransportDevice& d : devices) all.push_back(d.device);
    const std::uint64_t bytes = farSumsBytes(n, transportNearBelow(devices, tuning), poses);
    std::string why;
    for (auto& m : mail->blocks)
        if (!(m = vk::SharedHostBuffer::tryCreate(all, bytes, "far sums between the devices", &why))) break;
    if (!*mail) {
        mail->blocks[0].reset();
        spdlog::debug("the devices' far sums through the host's copies: {}", why);
    }
    return mail;
}

} // namespace rsim
