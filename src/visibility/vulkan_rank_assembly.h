// SPDX-License-Identifier: MIT
// computeKRankAssembled's work (vulkan_visibility_ranks.h) as a class: one part's casts of its
// own block and of its halves of the blocks it shares, planned and set up on its device
// (vulkan_rank_assembly.cpp), then cast while the halves are swapped with the other MPI ranks or
// handed between the devices of one process (vulkan_rank_exchange.cpp), then encoded in place.
// Internal to src/visibility/.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "util/progress.h"
#include "util/timer.h"
#include "visibility/vulkan_visibility.h"
#include "visibility/vulkan_visibility_ranks.h"
#include "vulkan/piece_reader.h"
#include "vulkan/timeline.h"
#include "vulkan/timestamps.h"

namespace rsim {

// The cap capHalfBlockReadPieces set (0: none).
std::uint64_t halfBlockReadPiecesCap();

class RankAssembly {
public:
    using Region = HalfRegion;

    // Casts whose results are on the device at once: the host reads cast k's regions out of its
    // scratch while cast k + 1 writes the other slot's.
    static constexpr std::uint32_t kSlots = 2;
    static constexpr std::uint32_t kGroup = kHalfCastChunks;
    // The pieces in which a cast's regions come to the host (vk::PieceReader): two pinned buffers
    // of this size a device, instead of two as large as a cast's regions, which took 0.04-0.11 s
    // of two devices' setup before the first cast: the driver pins one allocation at a time for
    // the whole process (docs/benchmarks.md, "NVIDIA driver costs"; the figure: its version at
    // c8397db, "Two GPUs: the halves read back in pieces, the encoded K allocated while the
    // devices cast").
    static constexpr std::uint64_t kReadPieceBytes = std::uint64_t(32) << 20;
    // Each of the two staging buffers through which the devices of one process upload each
    // other's halves (kHalfSwapStagingBytes in all).
    static constexpr std::uint64_t kStageBytes = kHalfSwapStagingBytes / 2;

    RankAssembly(const VisibilityDevice& device, const PreparedScene& prepared, const KSettings& settings,
                 const KPlan& plan, const RowShare& share, const DeviceHalves* devices, Progress* sharedProgress);
    // Everything, once: the casts, the swap, the encoding and the row sums.
    RankAssembledK run();

private:
    // One cast: rows [rowBegin, rowEnd) against columns [colBegin, colEnd), pairs i < j, both K_ij
    // and K_ji stored; the side in the chunks `foreign` (consecutive chunks of another part) goes
    // to a scratch chunk each, whose region [col0, col1) comes back to the host.
    struct Cast {
        std::uint32_t rowBegin, rowEnd, colBegin, colEnd;
        std::vector<Region> foreign; // empty: this part's own block
        int receiver = -1;
        std::uint64_t sendOffset = 0; // MPI: where its first region goes in the message to `receiver`
    };
    // The casts run one after the other on the compute queue, each behind a barrier, so they
    // share the table and the lists; the host reads cast k's regions while cast k + 1 runs, so
    // each slot has its own scratch (and timestamps).
    struct Slot {
        std::shared_ptr<vk::Buffer> scratch;
        std::unique_ptr<vk::Timestamps> stamps; // kLaunchStamps for each launch of the largest cast
    };

    // The plan and the device's setup (vulkan_rank_assembly.cpp).
    void planHalfCasts();
    Cast groupCast(std::uint32_t g) const;
    void planSlots();
    std::uint64_t stripeAt(const Cast& c, std::size_t g) const;
    std::uint32_t launchesOf(const Cast& c) const;
    void sizeFor(const Cast& c);
    void setUpDevice();
    const std::shared_ptr<VisibilityLists>& makeLists();
    void makeScratch(std::uint32_t s);
    void planReceipts();
    // The casts and their regions read back (vulkan_rank_assembly.cpp).
    std::vector<vk::PieceReader::Region> regionsOf(const Cast& c) const;
    void submit(const Cast& c, std::size_t k);
    void readBack(const Cast& c, std::size_t k, float* into);
    static std::uint64_t castPairs(const Cast& c);
    void castOwnBlockWhileAllocating();
    bool allocateAhead(ChunksForLaunches& chunks);
    void allocateEncoded();
    RankAssembledK finish();
    // The swap of the halves (vulkan_rank_exchange.cpp).
    void castAndSwapWithRanks();
    void copyRanksHalvesIntoPlace();
    void castAndHandOverBetweenDevices();
    bool nextDeviceCast(std::size_t submitted);
    void upload(const DeviceHalfMail::Piece& piece);
    bool receive(bool wait);

    // What the caller gave.
    const VisibilityDevice& vd_;
    vk::Device& dev_;
    const PreparedScene& prepared_;
    const KSettings& settings_;
    const KPlan& plan_;
    const RowShare& share_;
    const DeviceHalves* const devices_;
    Progress* const sharedProgress_;
    const KChunking ch_;
    const int me_, R_;
    const std::uint32_t R0_, R1_;
    RankAssembledK out_;
    const std::string who_;
    SharedBlockClaims* const claims_;

    // The casts of half blocks. MPI ranks and three or more devices: all of them now, for each
    // other part the groups of its chunks (their regions come back cast by cast). Two devices:
    // each group of part 0's chunks they claim (groupCast), part 0's rows against part 1's.
    // Then the rest of the own block: MPI ranks cast it after the halves, while they swap them;
    // devices before, and hand each half cast's regions over as soon as they are read back.
    std::vector<Cast> halves_;
    // What goes to each other rank (MPI), left uninitialised: the copies out of the pieces read
    // back touch its pages first, beside the casting, instead of a fill before the first cast.
    std::vector<std::unique_ptr<float[]>> sendStore_;
    std::vector<std::span<const float>> sendTo_;
    std::uint64_t pairs_ = 0;
    std::optional<Cast> own_;
    std::array<Slot, kSlots> slots_;
    shared::VisibilityPush push_{};
    // The scratches and the timestamps are sized for every cast this part may make.
    std::uint64_t scratchBytes_ = 0;
    std::uint32_t mostLaunches_ = 0;
    // This part's entries are written as its chunks arrive (ChunksForLaunches::need).
    vk::Buffer table_;
    std::shared_ptr<vk::PieceReader> reader_;
    VisibilityPipelines pipelines_;
    std::optional<GpuCounters> counters_;
    // The casts' lists and scratches, and this part's fp32 chunks, are allocated between the own
    // block's first launches (castOwnBlockWhileAllocating).
    std::shared_ptr<VisibilityLists> lists_;
    // The other parts' halves on their way to the device (`halvesIn_` from MPI ranks, `stage_`
    // from the devices of one process); declared before the semaphores, so destroyed after they
    // waited.
    vk::Buffer halvesIn_;
    std::shared_ptr<std::array<vk::Buffer, 2>> stage_;
    std::optional<vk::TimelineSemaphore> done_;
    std::optional<vk::TimelineSemaphore> uploads_;
    std::uint64_t ownRestPairs_ = 0; // the own block's pairs after its first launches
    // What the other parts cast for this part's chunks (MPI ranks, three or more devices): where
    // each part's regions begin in what it sends.
    std::vector<std::vector<Region>> from_;
    std::vector<std::uint64_t> fromAt_;
    std::uint64_t total_ = 0;
    std::optional<Progress> ownProgress_;
    Progress* progress_ = nullptr;
    Stopwatch sw_; // from the own block's first launch
    // K's encoded chunks, allocated while the device casts (allocateEncoded).
    std::vector<vk::Buffer> encoded_;

    // The devices of one process (castAndHandOverBetweenDevices): the casts listed so far, the
    // half casts taken from `halves_`, the groups claimed, whether no half cast is left.
    std::vector<Cast> casts_;
    std::size_t listed_ = 0;
    std::uint32_t claimed_ = 0;
    bool exhausted_ = false;
    std::array<std::uint64_t, 2> stageFree_{0, 0}; // the uploads' value after which a buffer is free
    std::size_t nextStage_ = 0;
    double uploading_ = 0.0;
};

} // namespace rsim
