// SPDX-License-Identifier: MIT
// K of an MPI rank's rows in row-block mode (k/row_share.h) on the rank's Vulkan device, each
// pair cast once in the job, as on the CPU backend (and the same between the devices of one
// process, each a part of a RowShare without ranks, swapping through host memory): the rank
// casts its block's upper triangle and its half of the block of pairs it shares with every other
// rank (RowShare::pairBlock, cut at a chunk boundary), keeping both K_ij and K_ji of each pair on
// its device in fp32, the other rank's side in scratch stripes, read back in pieces while the
// next cast runs, that go to that rank. Its own block's launches from its last rows go first,
// while its fp32 rows are allocated; the ranks swap the halves while the devices cast the rest
// of their own blocks, each copies what it received into place, and encodes its rows on its
// device. Without it (K computed where it lives) each rank casts the full rows of its chunks:
// the pairs between two ranks' rows are cast by both.
#pragma once
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <span>
#include <vector>

#include "core/prepared_scene.h"
#include "core/results.h"
#include "core/sim_config.h"
#include "k/gpu_k.h"
#include "k/k_plan.h"
#include "k/row_share.h"
#include "util/error.h"
#include "util/progress.h"
#include "visibility/vulkan_visibility.h"
#include "visibility/vulkan_visibility_chunked.h"

namespace rsim {

// Device memory the assembly takes besides what the plan counts: this rank's rows of K in fp32,
// and the scratches of its casts (a bound).
std::uint64_t rankAssemblyDeviceBytes(const RowShare& share);

struct RankAssembledK {
    DeviceK K;                    // this rank's chunks, in the plan's format
    VisibilityStats stats;        // this rank's pairs and rays; the row sums of its rows
    KErrors errors;               // of the encoding, against fp32
    double raySeconds = 0.0;      // until the device finished casting and the halves were in place
    double exchangeSeconds = 0.0; // the swap of half blocks (while the device cast its block)
    double compressSeconds = 0.0; // the encoding in place
    // The device's time in the passes of the half blocks' casts and of its own block's (GPU
    // timestamps; the copies of the halves and the gaps between launches not counted).
    VisibilityPassTimes halvesPasses, ownPasses;
};

// The pinned staging buffers through which a device of one process uploads the halves the
// others cast for it (two of 64 MiB).
inline constexpr std::uint64_t kHalfSwapStagingBytes = std::uint64_t(128) << 20;

// How the devices of one process swap their halves: sendTo[r] goes to part r, and what part r
// sends this one is handed to receive(r, piece), which uploads it (the piece stays valid during
// the call). MPI ranks swap them through Ranks::alltoallInto instead.
using HalfSwap = std::function<void(const std::vector<std::span<const float>>& sendTo,
                                    const std::function<void(int, std::span<const float>)>& receive)>;

// The swap between the devices of one process, each on its own thread: a part posts its halves
// and waits for every other part's, receives what is its own from the others' memory, and waits
// until every part has received (so that no part's halves go before the others have read them).
// A part that fails calls fail(), which ends the others' waits with an error, once no part is
// still reading.
class DeviceHalfSwap {
public:
    // What the parts that did not fail throw.
    struct Abandoned : Error {
        Abandoned() : Error("another device failed while the devices swapped K's half blocks") {}
    };
    explicit DeviceHalfSwap(int parts) : posted_(std::size_t(parts), nullptr) {}
    HalfSwap forPart(int part);
    void fail();

private:
    void swap(int part, const std::vector<std::span<const float>>& sendTo,
              const std::function<void(int, std::span<const float>)>& receive);
    void waitFor(std::size_t& counter, std::unique_lock<std::mutex>& lock);

    std::mutex mutex_;
    std::condition_variable cv_;
    std::vector<const std::vector<std::span<const float>>*> posted_;
    std::size_t postedCount_ = 0, copiedCount_ = 0;
    std::size_t reading_ = 0; // parts reading the others' halves: a failure waits for them
    bool failed_ = false;
};

// Caps the bytes of the pieces in which a device reads its half blocks back for the rest of the
// process (0: kReadPieceBytes), so that the tests' small scenes cut their regions in pieces.
void capHalfBlockReadPieces(std::uint64_t bytes);

// Collective: every part of `share` calls it, with one device each. `swap`: empty for the
// ranks' alltoall. `progress`: shared by the parts of one process (else its own).
RankAssembledK computeKRankAssembled(const VisibilityDevice& device, const PreparedScene& prepared,
                                    const KSettings& settings, const KPlan& plan, const RowShare& share,
                                    const HalfSwap& swap = {}, Progress* progress = nullptr);

} // namespace rsim
