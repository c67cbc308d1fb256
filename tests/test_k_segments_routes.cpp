// SPDX-License-Identifier: MIT
// K stored as segments (issue 63) on every way the Vulkan backend computes K: in place and cast
// once on two devices (each device makes its chunks segments), and where dense K would have to
// stream: resident as segments instead, made on the host that assembled K or chunk by chunk where
// it lives; with --stream always, streamed from host memory. The results are dense K's; "auto"
// stores K so only where dense K could not be held; segments that do not fit stop the run,
// naming the device.
#include <string>

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include "k/k_plan.h"
#include "support/test_scenes.h"
#include "support/vulkan_runs.h"

using namespace rsim;
using namespace rsim::test;
using Catch::Matchers::ContainsSubstring;

TEST_CASE("K stored as segments on every route of the Vulkan backend gives dense K's results",
          "[k][segments][vulkan][streaming]") {
    if (vulkanPathsAvailable().empty()) SKIP("no Vulkan device with ray tracing");
    const PreparedScene s = roomWithBox();
    SceneDesc d = basicScene({0.3, 1.5, 1.4}, {4.0, 1.4, 0.9});
    d.sim.timesteps = 300;
    SimConfig dense = makeSimConfig(d);
    dense.k.chunkBytes = 6 << 10; // K in several chunks
    dense.k.layout = KLayout::Dense;
    SimConfig seg = dense;
    seg.k.layout = KLayout::Segments;
    const Run one = runVulkan(s, dense, "0", "never");
    REQUIRE(one.meta.k.layout == "dense");
    REQUIRE(one.meta.deviceMemory.size() == 1);

    SECTION("in place, and cast once on two devices: each device makes its chunks segments") {
        for (const char* devices : {"0", "0,0"}) {
            CAPTURE(devices);
            const Run r = runVulkan(s, seg, devices, "auto");
            CHECK(r.meta.k.layout == "segments");
            CHECK(r.meta.k.segments > 0);
            CHECK(hasDetail(r, "k_segments_on_device"));
            requireSame(one, r);
        }
    }
    SECTION("where dense K would stream: resident as segments, made on the host or where K lives") {
        const Run inPlace = runVulkan(s, seg, "0", "auto");
        const auto& m = one.meta.deviceMemory[0];
        const std::uint64_t segBytes = inPlace.meta.k.bytes;
        CAPTURE(m.kBytes, segBytes, m.fixedBytes);
        REQUIRE(segBytes < m.kBytes); // room for the segments, not for dense K
        const double capMb = double(m.fixedBytes + (segBytes + m.kBytes) / 2) / 1048576.0;
        REQUIRE(runVulkan(s, dense, "0", "auto", capMb).meta.k.streaming);
        const Run assembled = runVulkan(s, seg, "0", "auto", capMb);
        CHECK_FALSE(assembled.meta.k.streaming);
        CHECK(assembled.meta.k.layout == "segments");
        CHECK(hasDetail(assembled, "k_segments_on_host"));
        CHECK(assembled.meta.k.bytes == segBytes);
        requireSame(one, assembled);
        for (const char* devices : {"0", "0,0"}) {
            CAPTURE(devices);
            const Run lives = runVulkan(s, seg, devices, "auto", capMb, 0.01); // no assembly in host memory
            CHECK(hasDetail(lives, "visibility_host_wait"));
            CHECK(lives.meta.k.layout == "segments");
            CHECK(lives.meta.k.segments == inPlace.meta.k.segments);
            requireSame(one, lives);
        }
    }
    SECTION("auto: segments only where dense K would stream from more host memory than K may take") {
        const Run inPlace = runVulkan(s, seg, "0", "auto");
        const auto& m = one.meta.deviceMemory[0];
        const double capMb = double(m.fixedBytes + (inPlace.meta.k.bytes + m.kBytes) / 2) / 1048576.0;
        SimConfig automatic = dense;
        automatic.k.layout = KLayout::Auto;
        CHECK(runVulkan(s, automatic, "0", "auto").meta.k.layout == "dense"); // dense K fits
        const Run streamed = runVulkan(s, automatic, "0", "auto", capMb); // the host holds dense K
        CHECK(streamed.meta.k.streaming);
        CHECK(streamed.meta.k.layout == "dense");
        const Run lives = runVulkan(s, automatic, "0", "auto", capMb, 0.01);
        CHECK_FALSE(lives.meta.k.streaming);
        CHECK(lives.meta.k.layout == "segments");
        requireSame(one, lives);
    }
    SECTION("--stream always streams the segments from host memory") {
        const Run inPlace = runVulkan(s, seg, "0", "auto");
        for (const char* devices : {"0", "0,0"}) {
            CAPTURE(devices);
            const Run r = runVulkan(s, seg, devices, "always");
            CHECK(r.meta.k.streaming);
            CHECK(r.meta.k.layout == "segments");
            CHECK(r.meta.k.segments == inPlace.meta.k.segments);
            requireSame(one, r);
            const Run lives = runVulkan(s, seg, devices, "always", 0.0, 0.01); // where it lives
            CHECK(hasDetail(lives, "visibility_host_wait"));
            CHECK(lives.meta.k.layout == "segments");
            requireSame(one, lives);
        }
    }
    SECTION("segments that do not fit stop the run, naming the device") {
        const double capMb = double(one.meta.deviceMemory[0].fixedBytes + 1024) / 1048576.0;
        CHECK_THROWS_WITH(runVulkan(s, seg, "0", "auto", capMb),
                          ContainsSubstring("K stored as segments takes") && ContainsSubstring("k_layout = \"dense\""));
        CHECK_THROWS_WITH(runVulkan(s, seg, "0", "auto", capMb, 0.01), ContainsSubstring("K stored as segments takes"));
    }
}
