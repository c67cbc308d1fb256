// SPDX-License-Identifier: MIT
// The exchanges of row-block mode (k/row_share.h): each rank's rows of an array, sent to every
// rank by a non-blocking allgather (MPI_Iallgatherv), and the near lists of every rank's rows.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "k/row_share.h"
#include "transport/near_pairs.h"

namespace rsim {

// An array of `groups` groups of n rows of `rowBytes` bytes each (group g at g * groupStride
// bytes), of which each rank computed rows [rowsOfRank[r].first, .second): start() sends this
// rank's rows, finish() puts every other rank's rows in place.
class RowExchange {
public:
    RowExchange(const RowShare& share, std::vector<std::pair<std::uint32_t, std::uint32_t>> rowsOfRank,
                std::size_t groups, std::size_t groupStride, std::size_t rowBytes);
    void start(const void* data);
    void poll() { pending_.poll(); }
    // Waits for the exchange (the seconds it waited are added to *waited) and unpacks it.
    void finish(void* data, double* waited);

private:
    const RowShare& share_;
    std::vector<std::pair<std::uint32_t, std::uint32_t>> rows_;
    std::size_t groups_, stride_, rowBytes_;
    std::vector<std::size_t> counts_;
    std::vector<std::byte> send_, recv_;
    Ranks::Pending pending_;
};

// The rows of a rank's chunks, cut into `parts` parts (RowShare::partChunk), for every rank:
// the rowsOfRank of a RowExchange of part `part`.
std::vector<std::pair<std::uint32_t, std::uint32_t>> rowsOfPart(const RowShare& share, std::uint32_t part,
                                                               std::uint32_t parts);

// Every rank's near lists (`mine` holds this rank's rows', the others empty), on every rank.
NearLists shareNearLists(const NearLists& mine, const RowShare& share);

} // namespace rsim
