// SPDX-License-Identifier: MIT
// K_ij on a Vulkan device (MODEL §2): the visibility pass (shaders/visibility.glsl) over rows
// of pairs i < j, writing K through a table of chunk addresses (k/gpu_k.h). Its pipelines and
// lists: vulkan_visibility_pipelines.cpp; one launch recorded: vulkan_visibility_record.cpp; the
// launches and K on one device: vulkan_visibility.cpp.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "core/prepared_scene.h"
#include "core/results.h"
#include "core/sim_config.h"
#include "k/gpu_k.h"
#include "util/progress.h"
#include "vulkan/accel.h"
#include "vulkan/gpu_scene.h"
#include "vulkan/pass.h"
#include "vulkan/pipeline.h"
#include "vulkan/ray_pass.h"
#include "vulkan/timestamps.h"

namespace rsim {

class EncodedAhead; // k/vulkan_log_encode.h

// The visibility shader the settings need: with the shaft query of clear pairs, or without.
vk::ShaderCode (*visibilityShader(const KSettings& settings))(vk::RayPath);
// The longest occluder list of a tile the settings use (0: none; tile_shaft.h): the former
// estimator and clear pairs by formula trace every ray.
std::uint32_t tileListMax(const KSettings& settings);
// Whether the traced pairs take the blocker rounds (gpu_layout.h): the settings ask for them
// and rsimBlockerRounds allows them.
bool blockerRounds(const KSettings& settings);

// The scene and sampling fields of the visibility pass's push constants (MODEL §2).
shared::VisibilityPush visibilityPush(const GpuGeometry& geometry, const PreparedScene& prepared,
                                      const KSettings& settings);

// The visibility pass's pipelines: the facing pairs' list (a compute pass on every ray path), the
// tiles' occluder lists and the pairs tested against them (when on), and the rays.
struct VisibilityPipelines {
    std::unique_ptr<vk::Pass<shared::VisibilityPush>> facing;
    std::unique_ptr<vk::Pass<shared::VisibilityPush>> tiles;  // tileListMax > 0 only
    std::unique_ptr<vk::Pass<shared::VisibilityPush>> listed; // tileListMax > 0 only
    std::unique_ptr<vk::Pass<shared::VisibilityPush>> nearLaunch; // the indirect launches' sizes
    std::unique_ptr<vk::Pass<shared::VisibilityPush>> activePairs; // the blocker rounds' compaction (when on)
    std::unique_ptr<vk::Pipeline> rays;
};
// Starts compiling, on the device's warm-up threads (vulkan/pipeline_warmup.h), the passes that
// makeVisibilityPipelines takes for these settings, before the phase begins: with occluder lists
// requested, the tiles' passes too, whatever the phase's sample of tiles decides (those then
// were only compiled).
void warmVisibilityPipelines(vk::Device& device, const KSettings& settings);
VisibilityPipelines makeVisibilityPipelines(vk::Device& device, const KSettings& settings,
                                            const vk::SceneAccel& accel);

// The bytes of the lists of one launch on this device for a scene of n triangles
// (visibilityPairsPerLaunch) beside its facing pairs: the tiles' occluder lists of at most
// tileListMax triangles and the pairs left to the rays (when tileListMax > 0), and the blocker
// rounds' area (when `rounds`).
std::uint64_t visibilityListBytes(vk::Device& device, std::uint32_t n, std::uint32_t tileListMax, bool rounds);

// The lists of one launch (VisibilityPush in gpu_layout.h), one set per command buffer in
// flight: its facing pairs, its tiles' occluder lists, and the near pairs its ray phase hands to
// its second phase.
struct VisibilityLists {
    // For the launches of a scene of `n` triangles on this device: at most
    // min(visibilityPairsPerLaunch, n^2) pairs each.
    VisibilityLists(vk::Device& device, std::uint32_t n, std::uint32_t tileListMax, bool rounds, const char* name);
    // For one launch of `pairs` pairs over `cells` rows x columns (a smaller first launch, whose
    // lists cost the driver less before it starts: its lists of pairs hold its pairs, its tiles
    // span its rows x columns), with the near list of the others, so that its near pairs are
    // listed as theirs would be.
    static std::shared_ptr<VisibilityLists> forLaunch(vk::Device& device, std::uint64_t pairs, std::uint64_t cells,
                                                      std::uint32_t n, std::uint32_t tileListMax, bool rounds,
                                                      const char* name);
    std::uint32_t capacity; // of the near list: a 64th of a launch's pairs, in [4096, 2^17];
                            // pairs beyond it are finished in the first phase
    std::uint32_t facingCapacity; // pairs a launch lists (and the blocker rounds' area holds)
    std::uint32_t tileListMax;  // 0: no occluder lists
    std::uint32_t tileCapacity; // tiles of one launch
    vk::Buffer buffer;          // the near list
    vk::Buffer facing;          // FacingListHeader, then a word per pair (rsimLaunchPairIndex)
    vk::Buffer tiles;           // the tiles' info and lists (tileListMax > 0)
    vk::Buffer traced;          // the pairs left to the rays (tileListMax > 0), as `facing`
    vk::Buffer rounds;          // the blocker rounds' area (BlockerRoundsHeader; when on)

    std::uint64_t bytes() const { return buffer.size() + facing.size() + tiles.size() + traced.size() + rounds.size(); }

  private:
    VisibilityLists(vk::Device& device, std::uint64_t pairsPerLaunch, std::uint64_t cellsPerLaunch,
                    std::uint64_t nearListPairs, std::uint32_t n, std::uint32_t tileListMax, bool rounds,
                    const char* name);
};
// The counters VisibilityPush::stats points at: candidate pairs, non-zero pairs, rays cast,
// clear pairs, rays tested against a tile's list, tiles with a list, tiles with too long a
// list, the lists' entries, rays answered by their pair's last blockers.
inline constexpr std::uint32_t kVisibilityCounters = 9;
VisibilityStats visibilityCounts(const GpuCounters& counters);
// The same from the counters' sums (GpuCounters::sums), kVisibilityCounters of them.
VisibilityStats visibilityCounts(const std::vector<std::uint64_t>& sums);

// The most pairs one visibility launch covers on this device, for a scene of n triangles: about
// sqrt(P x 2^21) of its P = n (n - 1) / 2 pairs, between 2^20 and 2^24. A launch's lists are
// allocated for that many pairs, which costs the driver about 1 ms per million, and each launch
// adds about 1.5 ms of barriers between its passes: the sum is least near that size
// (docs/benchmarks.md, "Visibility on one GPU", the pairs a launch).
std::uint64_t visibilityPairsPerLaunch(vk::Device& device, std::uint32_t n);
// Caps the pairs of a launch for the rest of the process (0: no cap), so that the tests' small
// scenes take several launches. Where the launches end decides the tiles, so which pairs are
// tested against a list and which traced: only rays that graze an edge can get another verdict
// (docs/model-choices.md, "Where the tiles fall").
void capVisibilityLaunchPairs(std::uint64_t pairs);

// The device's time in each pass of the visibility launches (GPU timestamps; 0 where the
// compute queue has none): the facing pairs' lists, the tiles' occluder lists, the pairs tested
// against them, the traced pairs' first samples, and the near pairs' other samples, seconds
// summed over the launches.
struct VisibilityPassTimes {
    double facing = 0.0, tileQueries = 0.0, listed = 0.0, traced = 0.0, near = 0.0;
    double total() const { return facing + tileQueries + listed + traced + near; }
    VisibilityPassTimes& operator+=(const VisibilityPassTimes& o) {
        facing += o.facing;
        tileQueries += o.tileQueries;
        listed += o.listed;
        traced += o.traced;
        near += o.near;
        return *this;
    }
    // Adds the passes of `launches` launches from a command buffer's timestamps' intervals
    // (vk::Timestamps::intervals), kLaunchStamps per launch; the intervals between launches
    // are not counted.
    void add(const std::vector<double>& intervals, std::uint32_t launches);
};
// The timestamps one launch writes.
inline constexpr std::uint32_t kLaunchStamps = 6;

// What a launch needs recorded before it (its K chunks zeroed and addressed: ChunksForLaunches).
using LaunchPreparation = std::function<void(VkCommandBuffer, const shared::VisibilityPush&)>;
// What the next launch (`next`) needs, done on the host while a launch runs (its K chunks
// allocated: ChunksForLaunches), and what may be done ahead while `running()` (whether the
// launch still runs). Returns whether the launches go on after this one.
using BetweenLaunches = std::function<bool(const shared::VisibilityPush& next, const std::function<bool()>& running)>;
// The lists of launch k (0: the first cast), which may be made between the launches.
using LaunchLists = std::function<const VisibilityLists&(std::size_t k)>;

// Casts the visibility rays of rows [rowBegin, rowEnd) (pairs i < j), in launches the device's
// limits allow, one submission each, each waited for; `push` has everything but the row range
// and the near list, and the column range: [push.colBegin, push.colEnd) (visibilityPush: all).
// `times`, when given, receives each pass's device time. With `prepare`, the launches run from
// the last rows to the first, each after what `prepare` records for it; `between` runs after each
// launch's submission but the last, before the wait; with `prepare` it may stop them after that
// launch. Returns the lowest row cast (rowEnd when none was): rowBegin, or where `between` stopped
// the launches.
std::uint32_t castVisibilityRows(vk::Device& device, const VisibilityPipelines& pipelines, shared::VisibilityPush push,
                                 std::uint32_t rowBegin, std::uint32_t rowEnd, const LaunchLists& lists,
                                 Progress& progress, VisibilityPassTimes* times = nullptr,
                                 const LaunchPreparation& prepare = {}, const BetweenLaunches& between = {});
// The same launches recorded into one command buffer (no wait); returns the pairs they cover.
// With `ts` (at least kLaunchStamps x visibilityLaunchCount timestamps), it is reset and each
// launch writes its own kLaunchStamps, for VisibilityPassTimes::add.
std::uint64_t recordVisibilityRows(vk::Device& device, const VisibilityPipelines& pipelines,
                                   shared::VisibilityPush push, std::uint32_t rowBegin, std::uint32_t rowEnd,
                                   const VisibilityLists& lists, VkCommandBuffer cmd,
                                   const vk::Timestamps* ts = nullptr);
// The first row of each launch recordVisibilityRows records for these rows, then the last one's
// end (empty without launches). The launches of [rows[k], rows[k + 1]) alone are launch k, the same shape.
std::vector<std::uint32_t> visibilityLaunchRows(vk::Device& device, shared::VisibilityPush push,
                                                std::uint32_t rowBegin, std::uint32_t rowEnd);
// How many launches recordVisibilityRows records for these rows.
std::uint32_t visibilityLaunchCount(vk::Device& device, shared::VisibilityPush push, std::uint32_t rowBegin,
                                    std::uint32_t rowEnd);
// The last launch recordVisibilityRows would record for these rows (the first cast when the
// launches run from the last rows): its pairs, which its lists of pairs must hold, and its rows x
// columns, which its tiles span (VisibilityLists::forLaunch).
struct VisibilityLaunchSize {
    std::uint64_t pairs = 0, cells = 0;
};
VisibilityLaunchSize lastVisibilityLaunchSize(vk::Device& device, shared::VisibilityPush push, std::uint32_t rowBegin,
                                              std::uint32_t rowEnd);

// K in place on one device (fp32 or fp16, every chunk, both halves); a K without chunks (only
// its chunking) has them allocated beside the first launches. `raySeconds` receives the time of
// the ray dispatches (with any wait for a chunk). `nearCapacity` caps the near list (0: VisibilityLists'
// default); the tests use it to run the first phase's fallback. `times`: as castVisibilityRows.
// `encoded`, for a K without chunks: K's encoded chunks are allocated into it while the last
// launches run, once the fp32 chunks all exist (as much as the launches leave time for).
VisibilityStats computeVisibilityVulkan(vk::Device& device, const GpuGeometry& geometry,
                                        const vk::SceneAccel& accel, const PreparedScene& prepared,
                                        const KSettings& settings, DeviceK& K, double& raySeconds,
                                        std::uint32_t nearCapacity = 0, VisibilityPassTimes* times = nullptr,
                                        EncodedAhead* encoded = nullptr);

} // namespace rsim
