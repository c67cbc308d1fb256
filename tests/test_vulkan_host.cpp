// SPDX-License-Identifier: MIT
// The Vulkan host layer: device discovery, validation plumbing, move-only buffers.
#include <catch2/catch_test_macros.hpp>

#include <algorithm>
#include <cstring>
#include <memory>
#include <optional>

#include "backends/backend_choice.h"
#include "support/test_scenes.h"
#include "util/error.h"
#include "vulkan/buffer.h"
#include "vulkan/instance.h"
#include "vulkan/piece_reader.h"
#include "vulkan/shared_host_buffer.h"

using namespace rsim;

TEST_CASE("the validation layer's errors are counted", "[vulkan]") {
    if (test::vulkanPathsAvailable().empty()) SKIP("no Vulkan device with ray tracing");
    vk::Instance instance(true);
    const auto* info = test::firstUsableDevice(instance);
    REQUIRE(info);
    vk::Device device(instance, *info, info->rayQuery ? vk::RayPath::RayQuery : vk::RayPath::Pipeline, "test");
    REQUIRE(instance.validationErrors() == 0);
    // A buffer of size 0 is invalid usage (VUID-VkBufferCreateInfo-size-00912): the layer must
    // report it, or the zero-error checks of the other tests would prove nothing.
    VkBufferCreateInfo bi{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
    bi.size = 0;
    bi.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
    VkBuffer buffer = VK_NULL_HANDLE;
    device.vk().vkCreateBuffer(device.handle(), &bi, nullptr, &buffer);
    if (buffer) device.vk().vkDestroyBuffer(device.handle(), buffer, nullptr);
    CHECK(instance.validationErrors() > 0);
}

TEST_CASE("buffers are move-only owners and round-trip data", "[vulkan]") {
    if (test::vulkanPathsAvailable().empty()) SKIP("no Vulkan device with ray tracing");
    vk::Instance instance(true);
    const auto* info = test::firstUsableDevice(instance);
    REQUIRE(info);
    {
        vk::Device device(instance, *info, info->rayQuery ? vk::RayPath::RayQuery : vk::RayPath::Pipeline, "test");
        std::vector<float> values(100000);
        for (std::size_t i = 0; i < values.size(); ++i) values[i] = float(i) * 0.5f - 7.0f;
        vk::Buffer a = vk::makeStorage(device, values, "a");
        REQUIRE(a.address() != 0);
        vk::Buffer b = std::move(a);
        CHECK_FALSE(bool(a));
        CHECK(bool(b));
        CHECK(vk::download<float>(device, b, values.size()) == values);
        vk::Buffer c;
        c = std::move(b);
        CHECK(vk::download<float>(device, c, 10) == std::vector<float>(values.begin(), values.begin() + 10));
    } // device, buffers and their memory destroyed in order; the layer checks for leaks
    CHECK(instance.validationErrors() == 0);
}

TEST_CASE("a download in pieces hands every byte over once, in order", "[vulkan]") {
    if (test::vulkanPathsAvailable().empty()) SKIP("no Vulkan device with ray tracing");
    vk::Instance instance(true);
    const auto* info = test::firstUsableDevice(instance);
    REQUIRE(info);
    {
        vk::Device device(instance, *info, info->rayQuery ? vk::RayPath::RayQuery : vk::RayPath::Pipeline, "test");
        std::vector<std::uint32_t> values(25001);
        for (std::size_t i = 0; i < values.size(); ++i) values[i] = std::uint32_t(i * 2654435761u);
        const vk::Buffer b = vk::makeStorage(device, values, "b");
        const std::uint64_t bytes = values.size() * 4;
        // Pieces of one, two, many (the last one short) and all of the bytes.
        for (std::uint64_t piece : {bytes, bytes / 2 + 4, std::uint64_t(4096), std::uint64_t(12)}) {
            INFO("piece " << piece);
            std::vector<std::uint32_t> got(values.size(), 0);
            std::uint64_t expected = 0;
            std::size_t calls = 0;
            vk::downloadPieces(device, b, bytes, [&](std::uint64_t offset, const void* data, std::uint64_t n) {
                CHECK(offset == expected);
                CHECK(n <= piece);
                std::memcpy(reinterpret_cast<char*>(got.data()) + offset, data, n);
                expected += n;
                ++calls;
            }, piece);
            CHECK(expected == bytes);
            CHECK(calls == (bytes + piece - 1) / piece);
            CHECK(got == values);
        }
    }
    CHECK(instance.validationErrors() == 0);
}

TEST_CASE("regions read in pieces come one after the other, each byte once", "[vulkan]") {
    if (test::vulkanPathsAvailable().empty()) SKIP("no Vulkan device with ray tracing");
    vk::Instance instance(true);
    const auto* info = test::firstUsableDevice(instance);
    REQUIRE(info);
    {
        vk::Device device(instance, *info, info->rayQuery ? vk::RayPath::RayQuery : vk::RayPath::Pipeline, "test");
        std::vector<std::uint8_t> values(50000);
        for (std::size_t i = 0; i < values.size(); ++i) values[i] = std::uint8_t((i * 2654435761u) >> 13);
        const vk::Buffer b = vk::makeStorage(device, values, "b");
        // Out of order, of odd sizes, one empty, one a single byte, one at the buffer's end.
        const std::vector<vk::PieceReader::Region> regions{
            {30000, 7001}, {5, 1}, {12, 0}, {100, 9999}, {49000, 1000}, {20000, 3}};
        std::vector<std::uint8_t> expected;
        for (const auto& r : regions)
            expected.insert(expected.end(), values.begin() + std::ptrdiff_t(r.offset),
                            values.begin() + std::ptrdiff_t(r.offset + r.bytes));
        for (const bool transfer : {false, true}) {
            // Pieces that cut regions anywhere, hold several, or hold everything (at least 4 bytes).
            vk::PieceReader reader(device, 0, transfer, "test pieces");
            for (std::uint64_t asked : {std::uint64_t(1), std::uint64_t(7), std::uint64_t(4096),
                                        std::uint64_t(expected.size())}) {
                INFO("piece " << asked << (transfer ? ", transfer queue" : ", compute queue"));
                vk::PieceReader sized(device, asked, transfer, "test pieces");
                const std::uint64_t piece = sized.pieceBytes();
                CHECK(piece == std::max<std::uint64_t>(4, asked));
                std::vector<std::uint8_t> got;
                std::size_t calls = 0;
                sized.read(b, regions, [&](std::uint64_t where, const void* data, std::uint64_t n) {
                    CHECK(where == got.size());
                    CHECK(n <= piece);
                    got.insert(got.end(), static_cast<const std::uint8_t*>(data),
                               static_cast<const std::uint8_t*>(data) + n);
                    ++calls;
                });
                CHECK(calls == (expected.size() + piece - 1) / piece);
                CHECK(got == expected);
            }
            // A read after another, through the same two buffers.
            std::vector<std::uint8_t> twice;
            for (int k = 0; k < 2; ++k)
                reader.read(b, regions, [&](std::uint64_t, const void* data, std::uint64_t n) {
                    twice.insert(twice.end(), static_cast<const std::uint8_t*>(data),
                                 static_cast<const std::uint8_t*>(data) + n);
                });
            std::vector<std::uint8_t> both = expected;
            both.insert(both.end(), expected.begin(), expected.end());
            CHECK(twice == both);
            CHECK(reader.pieceBytes() == 4);
        }
        const vk::PieceReader::Region beyond{49999, 2};
        vk::PieceReader reader(device, 64, false, "test pieces");
        CHECK_THROWS(reader.read(b, {&beyond, 1}, [](std::uint64_t, const void*, std::uint64_t) {}));
    }
    CHECK(instance.validationErrors() == 0);
}

TEST_CASE("one device's copy into host memory that two devices import is what the other's copy reads", "[vulkan]") {
    if (test::vulkanPathsAvailable().empty()) SKIP("no Vulkan device with ray tracing");
    vk::Instance instance(true);
    const auto* info = test::firstUsableDevice(instance);
    REQUIRE(info);
    {
        vk::Device a(instance, *info, vk::RayPath::Bvh, "writer", false, true, true);
        vk::Device b(instance, *info, vk::RayPath::Bvh, "reader", false, true, true);
        // Without being asked, a device imports nothing.
        CHECK(vk::Device(instance, *info, vk::RayPath::Bvh, "alone", false).hostImportAlignment() == 0);
        if (!a.hostImportAlignment()) SKIP("the device does not import host memory");
        std::vector<std::uint32_t> values(3000); // not a multiple of the import's alignment
        for (std::size_t i = 0; i < values.size(); ++i) values[i] = std::uint32_t(i * 2654435761u);
        const vk::Buffer source = vk::makeStorage(a, values, "source");
        const vk::Buffer target(b, values.size() * 4, vk::kStorageUsage, vk::MemoryKind::Device, "target");
        std::string why;
        const auto shared = vk::SharedHostBuffer::tryCreate({&a, &b}, values.size() * 4, "shared", &why);
        INFO(why);
        REQUIRE(shared);
        CHECK(shared->size() >= values.size() * 4);
        CHECK(shared->size() % a.hostImportAlignment() == 0);
        // The writer copies every other kilobyte; the host sees them, the rest stays zero.
        std::vector<VkBufferCopy> regions;
        for (std::uint64_t at = 0; at < values.size() * 4; at += 2048)
            regions.push_back({at, at, std::min<std::uint64_t>(1024, values.size() * 4 - at)});
        a.submitAndWait([&](VkCommandBuffer cmd) {
            a.vk().vkCmdCopyBuffer(cmd, source.handle(), shared->buffer(0), std::uint32_t(regions.size()),
                                   regions.data());
            vk::hostReadBarrier(a, cmd);
        });
        std::vector<std::uint32_t> expected(values.size(), 0);
        for (const VkBufferCopy& r : regions)
            std::memcpy(reinterpret_cast<char*>(expected.data()) + r.srcOffset,
                        reinterpret_cast<const char*>(values.data()) + r.srcOffset, r.size);
        CHECK(std::memcmp(shared->data(), expected.data(), values.size() * 4) == 0);
        b.submitAndWait([&](VkCommandBuffer cmd) {
            const VkBufferCopy all{0, 0, values.size() * 4};
            b.vk().vkCmdCopyBuffer(cmd, shared->buffer(1), target.handle(), 1, &all);
        });
        CHECK(vk::download<std::uint32_t>(b, target, values.size()) == expected);
    }
    CHECK(instance.validationErrors() == 0);
}

TEST_CASE("a device's staging takes a larger pinned buffer put aside, and keeps its own over a smaller one",
          "[vulkan]") {
    if (test::vulkanPathsAvailable().empty()) SKIP("no Vulkan device with ray tracing");
    vk::Instance instance(true);
    const auto* info = test::firstUsableDevice(instance);
    REQUIRE(info);
    {
        vk::Device device(instance, *info, vk::RayPath::Bvh, "test", false);
        const VkBuffer small = device.stagingUpload(4096).handle();
        vk::Buffer larger(device, 1 << 20, 0, vk::MemoryKind::Upload, "put aside", true);
        const VkBuffer largerHandle = larger.handle();
        device.adoptStaging(std::move(larger), true);
        CHECK_FALSE(bool(larger));
        CHECK(device.stagingUpload(100000).handle() == largerHandle);
        CHECK(device.stagingUpload(100000).handle() != small);
        device.adoptStaging(vk::Buffer(device, 8192, 0, vk::MemoryKind::Upload, "smaller", true), true);
        CHECK(device.stagingUpload(1 << 20).handle() == largerHandle);
        // The readback side is its own: a buffer for uploads never serves downloads.
        vk::Buffer readback(device, 1 << 20, 0, vk::MemoryKind::Readback, "put aside", true);
        const VkBuffer readbackHandle = readback.handle();
        device.adoptStaging(std::move(readback), false);
        CHECK(device.stagingReadback(4096).handle() == readbackHandle);
        // Still usable both ways through them.
        std::vector<float> values(50000);
        for (std::size_t i = 0; i < values.size(); ++i) values[i] = float(i);
        const vk::Buffer b = vk::makeStorage(device, values, "values");
        CHECK(vk::download<float>(device, b, values.size()) == values);
    }
    CHECK(instance.validationErrors() == 0);
}

TEST_CASE("devices report their ray paths", "[vulkan]") {
    if (!vk::Instance::loaderAvailable()) SKIP("no Vulkan loader");
    std::optional<vk::Instance> instance;
    try {
        instance.emplace(false);
    } catch (const Error& e) {
        // No driver at all (the sanitizer job hides them): nothing to report on.
        if (std::string(e.what()).find("VK_ERROR_INCOMPATIBLE_DRIVER") != std::string::npos) SKIP(e.what());
        throw;
    }
    for (const auto& d : instance->devices()) {
        CAPTURE(d.name);
        if (d.usable) CHECK(d.apiVersion >= VK_API_VERSION_1_2); // every usable device has the bvh path
        if (!d.usable) CHECK_FALSE(d.unusableReason.empty());
    }
}

TEST_CASE("the auto ray path is ray queries where a device has them and rsim's own BVH elsewhere", "[vulkan][cli]") {
    vk::PhysicalDeviceInfo rtx; // hardware ray tracing: ray queries and a pipeline
    rtx.name = "rtx";
    rtx.accelerationStructure = rtx.rayQuery = rtx.rayTracingPipeline = true;
    vk::PhysicalDeviceInfo h100 = rtx; // a ray-tracing pipeline in software, no ray queries
    h100.name = "h100";
    h100.rayQuery = false;
    vk::PhysicalDeviceInfo plain; // Vulkan 1.2 without ray tracing
    plain.name = "plain";
    CHECK(rayPathFor(rtx, "auto") == vk::RayPath::RayQuery);
    CHECK(rayPathFor(h100, "auto") == vk::RayPath::Bvh);
    CHECK(rayPathFor(plain, "auto") == vk::RayPath::Bvh);
    for (const auto* d : {&rtx, &h100, &plain}) CHECK(rayPathFor(*d, "bvh") == vk::RayPath::Bvh);
    CHECK(rayPathFor(rtx, "pipeline") == vk::RayPath::Pipeline);
    CHECK(rayPathFor(h100, "pipeline") == vk::RayPath::Pipeline);
    CHECK_THROWS_AS(rayPathFor(h100, "ray-query"), InputError);
    CHECK_THROWS_AS(rayPathFor(plain, "pipeline"), InputError);
    CHECK_THROWS_AS(rayPathFor(rtx, "rt-cores"), InputError);
}

TEST_CASE("a device holds one thing of each kind until its release, and lets the last go when it gets another", "[vulkan]") {
    if (test::vulkanPathsAvailable().empty()) SKIP("no Vulkan device with ray tracing");
    vk::Instance instance(true);
    const auto* info = test::firstUsableDevice(instance);
    REQUIRE(info);
    std::weak_ptr<std::vector<vk::Buffer>> first, second, other;
    {
        vk::Device device(instance, *info, info->rayQuery ? vk::RayPath::RayQuery : vk::RayPath::Pipeline, "test");
        auto a = std::make_shared<std::vector<vk::Buffer>>();
        a->push_back(vk::makeStorage(device, std::vector<float>(1000, 1.0f), "held a"));
        first = a;
        device.holdUntilRelease("kind 1", std::move(a));
        CHECK_FALSE(first.expired());
        auto c = std::make_shared<std::vector<vk::Buffer>>();
        c->push_back(vk::makeStorage(device, std::vector<float>(1000, 3.0f), "held c"));
        other = c;
        device.holdUntilRelease("kind 2", std::move(c));
        auto b = std::make_shared<std::vector<vk::Buffer>>();
        b->push_back(vk::makeStorage(device, std::vector<float>(1000, 2.0f), "held b"));
        second = b;
        device.holdUntilRelease("kind 1", std::move(b));
        CHECK_FALSE(second.expired());
        CHECK_FALSE(other.expired()); // another kind stays
        // The first goes on another thread: at the latest when the device waits for that thread.
    } // the device's release frees both before the device itself; the layer checks for leaks
    CHECK(first.expired());
    CHECK(second.expired());
    CHECK(other.expired());
    CHECK(instance.validationErrors() == 0);
}
