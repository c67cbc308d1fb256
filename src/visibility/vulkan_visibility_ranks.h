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
// device. The devices of one process cast all of their own blocks first, then their halves,
// each cast's regions handed to their receiver as soon as they are read back (two devices claim
// the block they share group by group from both ends: k/shared_block_claims.h). Without it (K computed where it lives) each rank casts the full rows of its chunks:
// the pairs between two ranks' rows are cast by both.
#pragma once
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "core/prepared_scene.h"
#include "core/results.h"
#include "core/sim_config.h"
#include "k/gpu_k.h"
#include "k/k_plan.h"
#include "k/row_share.h"
#include "k/shared_block_claims.h"
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
    double exchangeSeconds = 0.0; // the swap of half blocks (MPI: while the device cast its block;
                                  // devices: their uploads, and the wait for the others' last halves)
    double compressSeconds = 0.0; // the encoding in place
    // The device's time in the passes of the half blocks' casts and of its own block's (GPU
    // timestamps; the copies of the halves and the gaps between launches not counted).
    VisibilityPassTimes halvesPasses, ownPasses;
};

// The most chunks of another part's (MPI ranks, three or more devices), or of part 0's (two
// devices' claims), one half cast covers: a cast of one chunk's rows against half a part's rows
// (or the reverse) has a few million pairs, and every cast pays its launch's phases and their
// tails; four make launches of about the most pairs a launch covers in the large scenes that
// several devices share (2^24, visibilityPairsPerLaunch). The scratches are sized for it.
inline constexpr std::uint32_t kHalfCastChunks = 4;

// The pinned staging buffers through which a device of one process uploads the halves the
// others cast for it (two of 64 MiB).
inline constexpr std::uint64_t kHalfSwapStagingBytes = std::uint64_t(128) << 20;

// A part of what one part casts for another: columns [col0, col1) of the receiver's chunk
// `chunk`, all its rows, as the chunk stores them ([j][i - rowBegin]), so that the receiver
// copies it into place as it is.
struct HalfRegion {
    std::uint32_t chunk, col0, col1;
    std::uint64_t elements(const KChunking& ch) const { return std::uint64_t(col1 - col0) * ch.rows(chunk); }
};

// How the devices of one process, each on its own thread, hand each other their halves: each
// cast's regions, as soon as they are read back (the receiver uploads them while it casts). A
// part that fails calls fail(), which ends the others' waits with an error. MPI ranks swap
// theirs at once through Ranks::alltoallInto instead.
class DeviceHalfMail {
public:
    // What the parts that did not fail throw.
    struct Abandoned : Error {
        Abandoned() : Error("another device failed while the devices swapped K's half blocks") {}
    };
    struct Piece {
        int from = -1;
        std::vector<HalfRegion> regions;  // the receiver's, one after the other in `data`
        std::unique_ptr<float[]> data;
    };
    explicit DeviceHalfMail(int parts) : boxes_(std::size_t(parts)) {}
    void post(int to, Piece piece);
    // Part `from` posts nothing more.
    void finish(int from);
    // The pieces posted to `to` so far; with `wait`, at least one, or none once every part has
    // finished. Throws Abandoned once a part failed.
    std::vector<Piece> take(int to, bool wait);
    void fail();

private:
    std::mutex mutex_;
    std::condition_variable cv_;
    std::vector<std::vector<Piece>> boxes_;
    std::size_t finished_ = 0;
    bool failed_ = false;
};

// What the devices of one process share in the assembly: the mail, and for two devices the
// claims on the block they share (more devices cut each shared block in its lower part's middle
// chunk, as MPI ranks do).
struct DeviceHalves {
    DeviceHalfMail& mail;
    SharedBlockClaims* claims = nullptr;
};

// Caps the bytes of the pieces in which a device reads its half blocks back, and of the fills in
// which it uploads the others' (devices of one process), for the rest of the process (0:
// kReadPieceBytes, a staging buffer), so that the tests' small scenes cut their regions in pieces.
void capHalfBlockReadPieces(std::uint64_t bytes);

// Collective: every part of `share` calls it, with one device each. `devices`: the devices of
// one process (none: MPI ranks). `progress`: shared by the parts of one process (else its own).
RankAssembledK computeKRankAssembled(const VisibilityDevice& device, const PreparedScene& prepared,
                                    const KSettings& settings, const KPlan& plan, const RowShare& share,
                                    const DeviceHalves* devices = nullptr, Progress* progress = nullptr);

} // namespace rsim
