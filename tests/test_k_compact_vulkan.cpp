// SPDX-License-Identifier: MIT
// K stored as segments made on the device (issue 63, k/vulkan_k_compact.h): the device's
// segments are the host's toSegments() word for word, in every format, with partial tiles, more
// than one block of columns, and a tile's blocks scanned in more than one round.
#include <cstdint>
#include <random>
#include <vector>

#include <catch2/catch_test_macros.hpp>

#include "k/gpu_k.h"
#include "k/host_k.h"
#include "k/k_segments.h"
#include "k/vulkan_k_compact.h"
#include "support/test_scenes.h"
#include "vulkan/instance.h"

using namespace rsim;
using namespace rsim::test;

namespace {

// Element (i, j) of a K with runs of zeros along rows and whole columns nearly empty: 1e-6 to
// 0.3 where non-zero.
float sparseElement(std::mt19937& rng, bool sparseColumn) {
    std::uniform_real_distribution<double> u(0.0, 1.0);
    std::uniform_real_distribution<float> value(1e-6f, 0.3f);
    return u(rng) >= (sparseColumn ? 0.97 : 0.4) ? value(rng) : 0.0f;
}

void requireSameSegments(const SegmentChunk& device, const SegmentChunk& host) {
    REQUIRE(device.tileStart == host.tileStart);
    REQUIRE(device.segments == host.segments);
    REQUIRE(device.words == host.words);
    CHECK(device.values == host.values);
    CHECK(device.table == host.table);
}

} // namespace

TEST_CASE("the device makes K's segments word for word as the host does, in every format", "[k][segments][vulkan]") {
    if (vulkanPathsAvailable().empty()) SKIP("no Vulkan device with ray tracing");
    vk::Instance instance(true);
    vk::Device device = makeFirstDevice(instance);
    // 600 triangles: three blocks of 256 columns, the last partial; chunks of 70 rows: tiles of
    // 32, 32 and 6 rows.
    const std::uint32_t n = 600;
    HostK fp32(KChunking{n, 70, KFormat::Fp32});
    std::mt19937 rng(5);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    for (std::uint32_t j = 0; j < n; ++j) {
        const bool sparseColumn = u(rng) < 0.7;
        for (std::uint32_t i = 0; i < n; ++i)
            if (i != j) fp32.store(i, j, sparseElement(rng, sparseColumn));
    }
    for (const KFormat format :
         {KFormat::Fp32, KFormat::Fp16, KFormat::Lut8Log, KFormat::Lut8Range, KFormat::Lut4Log, KFormat::Lut4Range}) {
        INFO(kFormatInfo(format).name);
        HostK dense = fp32;
        dense.compress(format);
        HostK expected = dense;
        expected.toLayout(KLayout::Segments);
        std::vector<std::uint32_t> ids(dense.chunkCount());
        for (std::uint32_t c = 0; c < ids.size(); ++c) ids[c] = c;
        DeviceK K = uploadChunks(device, dense, ids, false, 1);
        const CompactedK made = compactDeviceK(device, K);
        CHECK(K.layout == KLayout::Segments);
        CHECK(made.segments == expected.segmentCount());
        CHECK(made.bytes == expected.storedBytes());
        const HostK back = downloadDeviceK(device, K);
        REQUIRE(back.layout() == KLayout::Segments);
        for (std::uint32_t c = 0; c < ids.size(); ++c) {
            INFO("chunk " << c);
            requireSameSegments(back.segments(c), expected.segments(c));
        }
    }
    CHECK(instance.validationErrors() == 0);
}

TEST_CASE("the device scans a tile of more than 256 blocks of columns", "[k][segments][vulkan]") {
    if (vulkanPathsAvailable().empty()) SKIP("no Vulkan device with ray tracing");
    vk::Instance instance(true);
    vk::Device device = makeFirstDevice(instance);
    // 70,000 columns are 274 blocks of 256: pass 1 scans them in two rounds. Only the first chunk
    // (40 rows: a whole tile and a partial one) exists.
    const std::uint32_t n = 70000, rows = 40;
    const KChunking chunking{n, rows, KFormat::Fp32};
    std::vector<float> values(chunking.elements(0), 0.0f);
    std::mt19937 rng(9);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    for (std::uint32_t j = 0; j < n; ++j) {
        const bool sparseColumn = u(rng) < 0.8;
        for (std::uint32_t r = 0; r < rows; ++r)
            if (r != j) values[chunking.index(r, j)] = sparseElement(rng, sparseColumn);
    }
    HostK K = HostK::unfilled(chunking);
    K.chunk(0) = encodeChunk(values.data(), values.size(), KFormat::Fp32);
    const SegmentChunk expected = toSegments(K.chunk(0), rows, n, chunking.storage());
    REQUIRE(expected.segmentCount() > 2 * n / 10); // not one block's worth of segments only
    DeviceK onDevice = uploadChunks(device, K, {0}, false, 1);
    const CompactedK made = compactDeviceK(device, onDevice);
    CHECK(made.segments == expected.segmentCount());
    HostK back = HostK::unfilled(chunking);
    copyChunksToHost(device, onDevice, back);
    requireSameSegments(back.segments(0), expected);
    CHECK(instance.validationErrors() == 0);
}
