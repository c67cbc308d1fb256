// SPDX-License-Identifier: MIT
#include "transport/row_exchange.h"

#include <algorithm>
#include <cstring>

#include "util/byte_stream.h"
#include "util/error.h"
#include "util/timer.h"

namespace rsim {

RowExchange::RowExchange(const RowShare& share, std::vector<std::pair<std::uint32_t, std::uint32_t>> rowsOfRank,
                         std::size_t groups, std::size_t groupStride, std::size_t rowBytes)
    : share_(share), rows_(std::move(rowsOfRank)), groups_(groups), stride_(groupStride), rowBytes_(rowBytes) {
    if (rows_.size() != std::size_t(share.count())) throw Error("internal: a row exchange without every rank's rows");
    std::size_t total = 0;
    for (const auto& [a, b] : rows_) {
        counts_.push_back(groups_ * std::size_t(b - a) * rowBytes_);
        total += counts_.back();
    }
    send_.resize(counts_[std::size_t(share.rank())]);
    recv_.resize(total);
}

void RowExchange::start(const void* data) {
    const auto [a, b] = rows_[std::size_t(share_.rank())];
    const std::size_t bytes = std::size_t(b - a) * rowBytes_;
    for (std::size_t g = 0; g < groups_ && bytes; ++g)
        std::memcpy(send_.data() + g * bytes, static_cast<const std::byte*>(data) + g * stride_ + a * rowBytes_, bytes);
    pending_ = share_.ranks().startAllgather(send_.data(), send_.size(), recv_.data(), counts_);
}

void RowExchange::finish(void* data, double* waited) {
    Stopwatch sw;
    pending_.wait();
    if (waited) *waited += sw.seconds();
    std::size_t at = 0;
    for (std::size_t r = 0; r < rows_.size(); ++r) {
        const auto [a, b] = rows_[r];
        const std::size_t bytes = std::size_t(b - a) * rowBytes_;
        if (int(r) != share_.rank())
            for (std::size_t g = 0; g < groups_ && bytes; ++g)
                std::memcpy(static_cast<std::byte*>(data) + g * stride_ + a * rowBytes_, recv_.data() + at + g * bytes,
                            bytes);
        at += counts_[r];
    }
}

std::vector<std::pair<std::uint32_t, std::uint32_t>> rowsOfPart(const RowShare& share, std::uint32_t part,
                                                               std::uint32_t parts) {
    std::vector<std::pair<std::uint32_t, std::uint32_t>> out;
    for (int r = 0; r < share.count(); ++r)
        out.emplace_back(share.rowOfChunk(share.partChunk(r, part, parts)),
                         share.rowOfChunk(share.partChunk(r, part + 1, parts)));
    return out;
}

NearLists shareNearLists(const NearLists& mine, const RowShare& share) {
    const std::uint32_t n = std::uint32_t(mine.offsets.size() - 1), a = share.rowBegin(), b = share.rowEnd();
    // This rank's rows: each row's count, then the pairs.
    std::vector<std::uint32_t> counts;
    for (std::uint32_t i = a; i < b; ++i) counts.push_back(mine.offsets[i + 1] - mine.offsets[i]);
    ByteWriter w;
    w.array(counts);
    w.array(std::vector<shared::NearPair>(mine.pairs.begin() + mine.offsets[a], mine.pairs.begin() + mine.offsets[b]));
    const std::vector<std::string> parts = share.ranks().allgather(w.bytes);
    NearLists out;
    out.offsets.assign(std::size_t(n) + 1, 0);
    for (int r = 0; r < share.count(); ++r) {
        ByteReader rd(parts[std::size_t(r)], "the near lists of rank " + std::to_string(r));
        const auto theirs = rd.array<std::uint32_t>();
        const auto pairs = rd.array<shared::NearPair>();
        if (theirs.size() != share.rowEnd(r) - share.rowBegin(r) || !rd.done()) rd.bad();
        std::copy(theirs.begin(), theirs.end(), out.offsets.begin() + share.rowBegin(r) + 1);
        out.pairs.insert(out.pairs.end(), pairs.begin(), pairs.end());
    }
    for (std::uint32_t i = 0; i < n; ++i) out.offsets[i + 1] += out.offsets[i];
    return out;
}

} // namespace rsim
