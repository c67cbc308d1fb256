// SPDX-License-Identifier: MIT
// Issue 5 on lavapipe: several devices (the same GPU listed more than once, each entry its own
// VkDevice), K streamed from host memory, and the memory cap all give the single-device results,
// whichever way K is computed (cast once between the devices, assembled on the host, where it
// lives). And the devices' swap of half blocks: what each part receives, and no hang when one fails.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstring>
#include <thread>

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include "backends/backend_choice.h"
#include "k/k_plan.h"
#include "k/shared_block_claims.h"
#include "transport/vulkan_transport.h"
#include "visibility/scene_shafts.h"
#include "visibility/vulkan_visibility.h"
#include "visibility/vulkan_visibility_ranks.h"
#include "support/test_scenes.h"
#include "support/vulkan_runs.h"
#include "util/error.h"

using namespace rsim;
using namespace rsim::test;


TEST_CASE("several devices, streaming and the memory cap give the single-device results",
          "[streaming][backends]") {
    if (vulkanPathsAvailable().empty()) SKIP("no Vulkan device with ray tracing");
    const PreparedScene s = roomWithBox();
    SceneDesc d = basicScene({0.3, 1.5, 1.4}, {4.0, 1.4, 0.9});
    d.sim.timesteps = 300;
    SimConfig c = makeSimConfig(d);
    c.k.chunkBytes = 6 << 10; // K in several chunks (lut8-log: ~30 rows each)
    const Run one = runVulkan(s, c, "0", "never");
    REQUIRE_FALSE(one.meta.k.streaming);
    REQUIRE(one.meta.k.chunks > 3);

    SECTION("two and three devices") {
        for (const char* devices : {"0,0", "0,0,0"}) {
            CAPTURE(devices);
            const Run many = runVulkan(s, c, devices, "auto");
            CHECK(many.meta.devices.size() == std::size_t(std::count(devices, devices + std::strlen(devices), ',') + 1));
            // Each pair cast once between the devices, K never assembled on the host.
            CHECK(hasDetail(many, "visibility_device_exchange"));
            CHECK_FALSE(hasDetail(many, "visibility_host_assembly"));
            // The passes' device time (GPU timestamps, which lavapipe has), summed over the
            // devices, and the half blocks' part of it.
            const double passes = detail(many, "visibility_gpu_facing_pairs") + detail(many, "visibility_gpu_listed_pairs") +
                                  detail(many, "visibility_gpu_traced_pairs") + detail(many, "visibility_gpu_near_pairs") +
                                  detail(many, "visibility_gpu_tile_queries");
            CHECK(detail(many, "visibility_gpu_half_blocks") > 0.0);
            CHECK(detail(many, "visibility_gpu_half_blocks") < passes);
            requireSame(one, many);
            CHECK(many.result.visibility.candidatePairs == one.result.visibility.candidatePairs);
            CHECK(many.result.visibility.nonzeroPairs == one.result.visibility.nonzeroPairs);
            CHECK(many.result.visibility.raysCast == one.result.visibility.raysCast);
            // The far sums pass between the devices through host memory they all import
            // (lavapipe has VK_EXT_external_memory_host).
            CHECK(detail(many, "radiosity_exchange_shared_mib") > 0.0);
        }
    }
    SECTION("1 to 4 blocks a pass on several devices: more near pairs, the same results") {
        // The near steps split each receiver's pairs over several invocations (kNearSplit): lists
        // of up to 32 steps sum the same as one device's of 8, T = 300 ends in a shorter block.
        for (std::uint32_t blocks : {1u, 3u, 4u}) {
            CAPTURE(blocks);
            const Run many = runVulkan(s, c, "0,0", "auto", 0.0, 0.0, blocks);
            CHECK(detail(many, "radiosity_exchange_shared_mib") > 0.0);
            requireSame(one, many);
        }
        requireSame(one, runVulkan(s, c, "0,0,0", "auto", 0.0, 0.0, 4));
    }
    SECTION("devices that do not share host memory exchange far sums through the host's copies: the same results") {
        struct Avoid {
            Avoid() { avoidSharedHostExchange(true); }
            ~Avoid() { avoidSharedHostExchange(false); }
        } avoid;
        for (const char* devices : {"0,0", "0,0,0"}) {
            CAPTURE(devices);
            const Run copied = runVulkan(s, c, devices, "auto");
            CHECK(hasDetail(copied, "radiosity_exchange"));
            CHECK_FALSE(hasDetail(copied, "radiosity_exchange_shared_mib"));
            requireSame(one, copied);
        }
    }
    SECTION("launches of a few hundred pairs: the same results on one device and on two") {
        // Two devices cast their own blocks' last launches while their chunks are allocated and
        // the rest before their half blocks; with small launches both parts have several, and
        // they claim the block they share one chunk at a time. Their half blocks come back, and
        // go up to the other device, in pieces of a few hundred bytes, which cut their regions
        // (and their floats) anywhere.
        struct Cap {
            Cap() {
                capVisibilityLaunchPairs(512);
                capHalfBlockReadPieces(998);
            }
            ~Cap() {
                capVisibilityLaunchPairs(0);
                capHalfBlockReadPieces(0);
            }
        } cap;
        for (const char* devices : {"0", "0,0"}) {
            CAPTURE(devices);
            const Run small = runVulkan(s, c, devices, "auto");
            requireSame(one, small);
            CHECK(small.result.visibility.candidatePairs == one.result.visibility.candidatePairs);
            CHECK(small.result.visibility.nonzeroPairs == one.result.visibility.nonzeroPairs);
            CHECK(small.result.visibility.raysCast == one.result.visibility.raysCast);
        }
    }
    SECTION("two devices' shared block cut at either end or in its middle: the same results") {
        // One device casts all of it, then the other; where the devices meet lies between.
        struct Override {
            ~Override() { fixSharedBlockCut(-1.0); }
        } reset;
        for (const double fraction : {0.0, 0.5, 1.0}) {
            CAPTURE(fraction);
            fixSharedBlockCut(fraction);
            const Run many = runVulkan(s, c, "0,0", "auto");
            CHECK(hasDetail(many, "visibility_device_exchange"));
            requireSame(one, many);
            CHECK(many.result.visibility.candidatePairs == one.result.visibility.candidatePairs);
            CHECK(many.result.visibility.raysCast == one.result.visibility.raysCast);
        }
    }
    SECTION("more devices than K chunks: the device without one idles") {
        SimConfig whole = c;
        whole.k.chunkBytes = std::uint64_t(64) << 20; // one chunk
        const Run single = runVulkan(s, whole, "0", "never");
        REQUIRE(single.meta.k.chunks == 1);
        requireSame(single, runVulkan(s, whole, "0,0", "auto"));
        requireSame(single, runVulkan(s, whole, "0,0", "always"));
    }
    SECTION("--stream always matches --stream never") {
        const Run streamed = runVulkan(s, c, "0", "always");
        CHECK(streamed.meta.k.streaming);
        requireSame(one, streamed);
    }
    SECTION("a streamed K gathered 1 to 4 blocks per copy: more near pairs, the same results") {
        for (std::uint32_t blocks : {1u, 2u, 3u}) {
            CAPTURE(blocks);
            requireSame(one, runVulkan(s, c, "0", "always", 0.0, 0.0, blocks));
        }
        requireSame(one, runVulkan(s, c, "0,0", "always", 0.0, 0.0, 3));
    }
    SECTION("two devices, streamed") {
        const Run streamed = runVulkan(s, c, "0,0", "always");
        CHECK(hasDetail(streamed, "visibility_host_assembly")); // a streamed K is assembled on the host
        requireSame(one, streamed);
    }
    SECTION("K computed where it lives (fp32 K beyond --max-host-mb): the same K, pairs counted once") {
        const double tinyHost = 0.01; // MiB: no assembly in host memory
        for (const char* devices : {"0,0", "0,0,0"}) {
            CAPTURE(devices);
            const Run rows = runVulkan(s, c, devices, "auto", 0.0, tinyHost);
            CHECK(hasDetail(rows, "visibility_host_wait")); // not cast once: the swapped halves exceed the host budget
            requireSame(one, rows);
            CHECK(rows.result.visibility.candidatePairs == one.result.visibility.candidatePairs);
            CHECK(rows.result.visibility.nonzeroPairs == one.result.visibility.nonzeroPairs);
            // The in-place path sums rows and errors on the device in fp32: they differ in rounding.
            CHECK(std::abs(rows.result.visibility.maxRowSum - one.result.visibility.maxRowSum) <= 1e-6);
            CHECK(std::abs(rows.meta.k.rmsError - one.meta.k.rmsError) <= 1e-6 * one.meta.k.rmsError);
        }
        requireSame(one, runVulkan(s, c, "0", "always", 0.0, tinyHost));
        requireSame(one, runVulkan(s, c, "0,0", "always", 0.0, tinyHost));
        // More devices than chunks: the device without one casts nothing.
        SimConfig whole = c;
        whole.k.chunkBytes = std::uint64_t(64) << 20;
        requireSame(runVulkan(s, whole, "0", "never"), runVulkan(s, whole, "0,0", "auto", 0.0, tinyHost));
    }
    SECTION("a cap below K's size streams, and --stream never refuses it") {
        // A cap between "the streaming buffers fit beside everything else" and "all of K fits".
        REQUIRE(one.meta.deviceMemory.size() == 1);
        const auto& m = one.meta.deviceMemory[0];
        const double chunk = double(m.kBytes) / double(m.chunks);
        REQUIRE(double(m.kBytes) > (kStreamBuffers + 2.0) * chunk);
        const double capMb = (double(m.fixedBytes) + (kStreamBuffers + 1.0) * chunk) / 1048576.0;
        const Run capped = runVulkan(s, c, "0", "auto", capMb);
        CHECK(capped.meta.k.streaming);
        requireSame(one, capped);
        // Room for three chunks per stream buffer: copied in groups of 3, 3, ..., and a shorter last.
        const double groupsMb = (double(m.fixedBytes) + (3.0 * kStreamBuffers + 0.5) * chunk) / 1048576.0;
        const Run grouped = runVulkan(s, c, "0", "always", groupsMb);
        CHECK(grouped.meta.k.streaming);
        REQUIRE(grouped.meta.deviceMemory.size() == 1);
        CHECK(grouped.meta.deviceMemory[0].copyGroup == 3);
        CHECK(grouped.meta.deviceMemory[0].chunks % 3 != 0); // a shorter last group
        requireSame(one, grouped);
        CHECK_THROWS_WITH(runVulkan(s, c, "0", "never", capMb),
                          Catch::Matchers::ContainsSubstring("does not fit") ||
                              Catch::Matchers::ContainsSubstring("more than the"));
    }
}

TEST_CASE("a Vulkan backend takes the host's shafts built from its scene, and builds its own for another",
          "[backends]") {
    if (vulkanPathsAvailable().empty()) SKIP("no Vulkan device with ray tracing");
    const PreparedScene s = roomWithBox();
    SimConfig c = makeSimConfig(basicScene({0.3, 1.5, 1.4}, {4.0, 1.4, 0.9}));
    c.timesteps = 300;
    const Run plain = runVulkan(s, c, "0", "never");
    // Another scene: the same room without the box.
    SceneBuilder b;
    b.roomShell({0, 0, 0}, {4.0, 3.0, 2.5}, 3, b.material("wall", 0.7f));
    const PreparedScene other = b.prepare();
    for (const bool own : {true, false}) {
        CAPTURE(own);
        std::shared_ptr<const SceneShafts> shafts = buildSceneShafts(own ? s : other, tileListMax(c.k));
        BackendChoice choice;
        choice.backend = "vulkan";
        choice.validation = true;
        auto backend = makeVulkanBackend(choice);
        backend->configure(BackendSettings{nullptr, {}, shafts});
        Run r;
        r.result = simulateOn(PhaseBackends::all(*backend), s, c, false, true, &r.meta);
        CHECK((shafts.use_count() > 1) == own); // the backend keeps what it took
        requireSame(plain, r);
        CHECK(r.result.visibility.raysCast == plain.result.visibility.raysCast);
    }
}

TEST_CASE("the devices' mail of half blocks delivers each piece once, and a failed part ends the others' wait",
          "[streaming]") {
    constexpr int P = 3, kPieces = 5;
    using Piece = DeviceHalfMail::Piece;
    const auto piece = [](int from, int to, int k) {
        Piece p{from, {{std::uint32_t(to), std::uint32_t(k), std::uint32_t(k + 1)}}, std::make_unique<float[]>(2)};
        p.data[0] = float(from);
        p.data[1] = float(k);
        return p;
    };
    SECTION("three parts, each posting as it goes and taking what came, then waiting for the rest") {
        DeviceHalfMail mail(P);
        std::vector<std::vector<std::pair<int, int>>> received(P); // (from, k) as they came
        std::vector<std::thread> threads;
        for (int me = 0; me < P; ++me)
            threads.emplace_back([&, me] {
                const auto take = [&](bool wait) {
                    std::vector<Piece> got = mail.take(me, wait);
                    for (const Piece& p : got) {
                        // What the piece says matches where it came from and went.
                        if (p.regions.size() == 1 && p.regions[0].chunk == std::uint32_t(me) &&
                            p.data[0] == float(p.from))
                            received[std::size_t(me)].push_back({p.from, int(p.data[1])});
                        else
                            received[std::size_t(me)].push_back({-1, -1});
                    }
                    return !got.empty();
                };
                for (int k = 0; k < kPieces; ++k) {
                    for (int r = 0; r < P; ++r)
                        if (r != me) mail.post(r, piece(me, r, k));
                    take(false);
                }
                mail.finish(me);
                while (take(true)) {
                }
            });
        for (auto& t : threads) t.join();
        for (int me = 0; me < P; ++me) {
            CAPTURE(me);
            std::vector<std::pair<int, int>> got = received[std::size_t(me)];
            std::sort(got.begin(), got.end());
            std::vector<std::pair<int, int>> expected;
            for (int from = 0; from < P; ++from)
                for (int k = 0; from != me && k < kPieces; ++k) expected.push_back({from, k});
            CHECK(got == expected);
        }
        CHECK(mail.take(0, true).empty()); // every part finished, nothing left
    }
    SECTION("a part that waits returns once every part has finished, with nothing for it") {
        DeviceHalfMail mail(2);
        std::atomic<bool> returned{false};
        std::size_t pieces = 1;
        std::thread waiter([&] { // (Catch2's checks only on the test's thread)
            mail.finish(0);
            pieces = mail.take(0, true).size();
            returned = true;
        });
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        const bool early = returned;
        mail.finish(1);
        waiter.join();
        CHECK_FALSE(early);
        CHECK(returned);
        CHECK(pieces == 0);
    }
    SECTION("one part fails: the others throw instead of waiting, also for pieces that came") {
        DeviceHalfMail mail(P);
        std::vector<int> abandoned(P, 0);
        std::vector<std::thread> threads;
        for (int me = 0; me < P; ++me)
            threads.emplace_back([&, me] {
                if (me == 1) {
                    mail.post(0, piece(1, 0, 0));
                    mail.fail();
                    return;
                }
                mail.finish(me);
                try {
                    while (!mail.take(me, true).empty()) {
                    }
                } catch (const DeviceHalfMail::Abandoned&) {
                    abandoned[std::size_t(me)] = 1;
                }
            });
        for (auto& t : threads) t.join();
        CHECK(abandoned == std::vector<int>{1, 0, 1});
    }
}

TEST_CASE("only a run that may stream or share K asks its device for a transfer queue", "[streaming]") {
    BackendChoice choice;
    const std::uint64_t gib = std::uint64_t(1) << 30;
    // 10,000 triangles: fp32 K of 0.4 GB, an eighth of a 3.2 GB device.
    CHECK_FALSE(needsTransferQueues(choice, 1, 80 * gib, 10'000));
    CHECK_FALSE(needsTransferQueues(choice, 1, std::uint64_t(3.2e9), 10'000));
    CHECK(needsTransferQueues(choice, 1, std::uint64_t(3.1e9), 10'000));
    CHECK(needsTransferQueues(choice, 1, 80 * gib, 0)); // the bound unknown
    CHECK(needsTransferQueues(choice, 2, 80 * gib, 10'000));
    CHECK(needsTransferQueues(choice, 1, 80 * gib, 60'000)); // 14.4 GB of fp32 K
    choice.maxDeviceMb = 2000;
    CHECK(needsTransferQueues(choice, 1, 80 * gib, 10'000));
    choice.maxDeviceMb = 0;
    choice.stream = "always";
    CHECK(needsTransferQueues(choice, 1, 80 * gib, 10'000));
    choice.stream = "never";
    CHECK_FALSE(needsTransferQueues(choice, 1, 80 * gib, 10'000));
}
