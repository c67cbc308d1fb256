// SPDX-License-Identifier: MIT
// The Vulkan visibility pass's two phases (VisibilityPush in include/rsim/shared/gpu_layout.h):
// near pairs handed to the second phase and near pairs finished in the first one, when the near
// list is full, give the same K.
#include <algorithm>
#include <cmath>

#include <catch2/catch_approx.hpp>
#include <catch2/catch_test_macros.hpp>

#include "accel/ray_bvh.h"
#include "accel/shaft_bvh.h"
#include "geometry/edge_neighbours.h"
#include "vulkan/gpu_scene.h"
#include "support/test_scenes.h"
#include "visibility/vulkan_visibility.h"
#include "vulkan/instance.h"

using namespace rsim;
using namespace rsim::test;
using Catch::Approx;

namespace {
// Calls test(device, path) on the instance's first usable device for each ray path it offers
// (ray queries, the ray-tracing pipeline).
template <class Test>
void forEachRayPath(vk::Instance& instance, Test test) {
    for (const auto& info : instance.devices()) {
        if (!info.usable) continue;
        for (vk::RayPath path : {vk::RayPath::RayQuery, vk::RayPath::Pipeline}) {
            if (path == vk::RayPath::RayQuery ? !info.rayQuery : !info.rayTracingPipeline) continue;
            CAPTURE(int(path));
            vk::Device device(instance, info, path, "test");
            test(device, path);
        }
        break;
    }
}

// The kernel tests' room: a shell and a box, with many near pairs.
PreparedScene kernelRoom() {
    SceneBuilder b;
    auto wall = b.material("wall", 0.5f);
    b.roomShell({0, 0, 0}, {3.0, 2.0, 2.0}, 3, wall);
    b.box({1.0, 0.8, 0.0}, {1.4, 1.2, 0.5}, 2, wall);
    return b.prepare();
}

// Calls test(device, geometry, accel) with the scene placed on each ray path of the instance's
// first usable device (forEachRayPath), then checks that the validation layer saw no error.
template <class Test>
void onEachRayPath(const PreparedScene& s, Test test) {
    vk::Instance instance(true);
    forEachRayPath(instance, [&](vk::Device& device, vk::RayPath) {
        const ShaftBvh shafts = ShaftBvh::build(s);
        GpuGeometry scene(device, s, rayBvhNodes(shafts, 0.0f), shafts.prims, edgeNeighbours(s));
        std::vector<glm::vec3> vertices;
        for (std::size_t i = 0; i < s.size(); ++i) vertices.insert(vertices.end(), {s.v0[i], s.v1[i], s.v2[i]});
        vk::SceneAccel accel(device, vertices);
        test(device, scene, accel);
    });
    CHECK(instance.validationErrors() == 0);
}
} // namespace

TEST_CASE("near pairs listed for the second phase or finished at once give the same K", "[vulkan][kernel]") {
    if (vulkanPathsAvailable().empty()) SKIP("no Vulkan device with ray tracing");
    const PreparedScene s = kernelRoom();
    const SimConfig c = makeSimConfig(basicScene({0.3, 1.0, 1.0}, {3.0, 1.0, 1.0}));
    // The scene has near pairs, many more than the one-entry list below holds.
    std::size_t near = 0;
    for (std::size_t i = 0; i < s.size(); ++i)
        for (std::size_t j = i + 1; j < s.size(); ++j)
            near += shared::rsimKSamplesPerSide(kSampling(c.k, s.rayEps), s.tri(i), s.tri(j)) >
                    shared::rsimKBaseSamplesPerSide(c.k.samples);
    REQUIRE(near > 100);

    onEachRayPath(s, [&](vk::Device& device, const GpuGeometry& scene, const vk::SceneAccel& accel) {
        auto run = [&](std::uint32_t capacity) {
            DeviceK K = allocateDeviceK(device, KChunking{scene.n, scene.n, KFormat::Fp32});
            double raySeconds = 0.0;
            const VisibilityStats stats = computeVisibilityVulkan(device, scene, accel, s, c.k, K, raySeconds, capacity);
            return std::pair{downloadDeviceK(device, K).decodeAll(), stats.raysCast};
        };
        const auto [listed, raysListed] = run(0);
        const auto [inline1, raysInline] = run(1);
        // Both ways sum a side's first S/2 samples, then the rest: the same order, so lavapipe
        // gives the same bits. A driver may contract a * b + c into an FMA differently in the
        // two inlined copies of the sample (NVIDIA does): allow fp32 rounding, and a ray whose
        // verdict that flips.
        REQUIRE(listed.size() == inline1.size());
        std::size_t differ = 0;
        for (std::size_t k = 0; k < listed.size(); ++k)
            differ += std::abs(listed[k] - inline1[k]) > 1e-5f * std::max(listed[k], inline1[k]);
        CAPTURE(differ, listed.size());
        CHECK(differ <= listed.size() / 1000);
        CHECK(double(raysListed) == Approx(double(raysInline)).epsilon(1e-4));
    });
}

TEST_CASE("K whose chunks and lists are made between the launches equals K whose memory came first",
          "[vulkan][kernel]") {
    if (vulkanPathsAvailable().empty()) SKIP("no Vulkan device with ray tracing");
    const PreparedScene s = kernelRoom();
    const SimConfig c = makeSimConfig(basicScene({0.3, 1.0, 1.0}, {3.0, 1.0, 1.0}));
    struct Cap {
        ~Cap() { capVisibilityLaunchPairs(0); }
    } cap;
    onEachRayPath(s, [&](vk::Device& device, const GpuGeometry& scene, const vk::SceneAccel& accel) {
        const KChunking chunking{scene.n, 16, KFormat::Fp32};
        REQUIRE(chunking.chunks() > 4);
        // Several launches, the first cast (the last rows') at most half the others' size, so
        // that it gets lists of its own; several chunks, allocated as the launches reach them.
        bool small = false;
        for (std::uint64_t pairs = 1024; pairs <= 4096 && !small; pairs += 64) {
            capVisibilityLaunchPairs(pairs);
            const std::vector<std::uint32_t> rows =
                visibilityLaunchRows(device, visibilityPush(scene, s, c.k), 0, scene.n - 1);
            const std::uint32_t a = rows[rows.size() - 2], z = rows.back();
            small = rows.size() > 5 && 2 * std::uint64_t(z - a) * (scene.n - a - 1) <= pairs;
        }
        REQUIRE(small);
        double raySeconds = 0.0;
        DeviceK before = allocateDeviceK(device, chunking); // every chunk first, the launches in order
        const VisibilityStats a = computeVisibilityVulkan(device, scene, accel, s, c.k, before, raySeconds);
        DeviceK between; // from the last rows, chunks and lists between the launches
        between.chunking = chunking;
        const VisibilityStats z = computeVisibilityVulkan(device, scene, accel, s, c.k, between, raySeconds);
        CHECK(downloadDeviceK(device, between).decodeAll() == downloadDeviceK(device, before).decodeAll());
        CHECK(z.raysCast == a.raysCast);
        CHECK(z.nonzeroPairs == a.nonzeroPairs);
        CHECK(z.raysListed == a.raysListed);
    });
}

TEST_CASE("a visibility launch covers about sqrt(P x 2^21) of a scene's P pairs, within 2^20 and 2^24",
          "[vulkan][kernel]") {
    if (vulkanPathsAvailable().empty()) SKIP("no Vulkan device with ray tracing");
    vk::Instance instance(true);
    forEachRayPath(instance, [&](vk::Device& device, vk::RayPath path) {
        const std::uint64_t limit = path == vk::RayPath::Pipeline
                                        ? std::uint64_t(device.rtProperties().maxRayDispatchInvocationCount)
                                        : std::uint64_t(1) << 24;
        auto expected = [&](std::uint64_t pairs) { return std::min(pairs, limit); };
        // Small scenes: the lower bound (their lists are sized by n^2 anyway).
        for (std::uint32_t n : {0u, 1u, 2u, 566u}) CHECK(visibilityPairsPerLaunch(device, n) == expected(1u << 20));
        // The medium room: sqrt(65,637,153 x 2^21), the size measured best (docs/benchmarks.md,
        // "Visibility settings chosen by measurement").
        CHECK(visibilityPairsPerLaunch(device, 11458) == expected(11732479));
        // Large scenes: the upper bound, with no overflow on the way.
        for (std::uint32_t n : {40000u, 300000u, 4000000000u})
            CHECK(visibilityPairsPerLaunch(device, n) == expected(std::uint64_t(1) << 24));
        std::uint64_t last = 0;
        for (std::uint32_t n = 0; n < 200000; n += 997) {
            const std::uint64_t pairs = visibilityPairsPerLaunch(device, n);
            CHECK(pairs >= last);
            last = pairs;
        }
        capVisibilityLaunchPairs(512);
        CHECK(visibilityPairsPerLaunch(device, 11458) == 512);
        capVisibilityLaunchPairs(0);
    });
    CHECK(instance.validationErrors() == 0);
}
