// SPDX-License-Identifier: MIT
// The near-pair lists that a device builds from its resident K (transport/vulkan_near_pairs.h)
// against the host's grid builder (transport/near_pairs.h): the same pairs in the same order.
#include <algorithm>
#include <cmath>
#include <random>

#include <catch2/catch_test_macros.hpp>

#include "core/results.h"
#include "k/gpu_k.h"
#include "k/host_k.h"
#include "support/test_scenes.h"
#include "transport/near_pairs.h"
#include "transport/vulkan_near_pairs.h"
#include "transport/vulkan_transport.h"
#include "vulkan/instance.h"

using namespace rsim;
using namespace rsim::test;

TEST_CASE("a device's near lists are the host's, whatever blocks of columns its pass scans",
          "[transport][vulkan]") {
    if (vulkanPathsAvailable().empty()) SKIP("no Vulkan device with ray tracing");
    // Triangles of 5-20 cm on three planes 10 cm apart: pairs within the near radius
    // (RSIM_TIME_BLOCK steps of c dt, 24 cm at dt = 0.1 ns), and most beyond it.
    SceneBuilder b;
    const auto m = b.material("m", 0.6f);
    b.rectangle({0, 0, 0}, {1.6, 0, 0}, {0, 0.8, 0}, 16, 8, m);
    b.rectangle({0, 0, 0.1}, {2.4, 0, 0}, {0, 2.0, 0}, 12, 10, m);
    b.rectangle({0.6, 0, 0.2}, {1.8, 0, 0}, {0, 0.9, 0}, 10, 6, m);
    const PreparedScene s = b.prepare();
    const std::uint32_t n = std::uint32_t(s.size());
    REQUIRE(n == 2 * (16 * 8 + 12 * 10 + 10 * 6));
    SceneDesc desc = basicScene({0.3, 0.1, 1.0}, {0.3, 0.1, 0.0});
    const SimConfig c = makeSimConfig(desc);
    DirectTerms direct;
    direct.irradiance.assign(n, 1.0f);
    direct.importance.assign(n, 1.0f);
    direct.tLight.assign(n, 3.0f);
    direct.tSensor.assign(n, 3.0f);
    const std::vector<shared::GpuTransportTri> records = makeTransportRecords(s, c, direct);

    // K with a third zeros, in chunks of 100 rows (the last one shorter).
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> u(0.0f, 1.0f);
    vk::Instance instance(true);
    vk::Device device = makeFirstDevice(instance);
    const vk::Buffer onDevice = vk::makeStorage(device, records, "transport triangles");
    for (const KFormat format : {KFormat::Fp32, KFormat::Lut8Log}) {
        CAPTURE(kFormatInfo(format).name);
        const KChunking ch{n, 100, format};
        HostK K(ch);
        for (std::uint32_t i = 0; i < n; ++i)
            for (std::uint32_t j = 0; j < n; ++j) {
                const float x = u(rng);
                K.store(i, j, i == j || x < 0.33f ? 0.0f : std::exp(-8.0f * x));
            }
        for (std::uint32_t x = 0; x < ch.chunks(); ++x) K.encodeChunkAs(x, format);
        K.finishEncoding(format);
        std::vector<std::uint32_t> all(ch.chunks());
        for (std::uint32_t x = 0; x < ch.chunks(); ++x) all[x] = x;
        const NearLists host =
            buildNearLists(s, c, [&](std::uint32_t i, std::uint32_t j) { return K.get(i, j); }, shared::RSIM_TIME_BLOCK);
        REQUIRE(host.offsets.back() > n);         // several near pairs a row on average
        REQUIRE(host.offsets.back() < n * n / 4); // and most pairs far
        // All chunks on the device; then only some (the others' rows empty, as on one of
        // several devices). Blocks of one column, of a few, of more than the row, and the default.
        for (const bool someChunks : {false, true}) {
            std::vector<std::uint32_t> ids = all;
            if (someChunks) ids = {1, 2, ch.chunks() - 1};
            const DeviceK dk = uploadChunks(device, K, ids, false, 1);
            // The last: blocks of one column, but at most 5 n counts (blocks widened to a fifth).
            for (const std::uint32_t columns : {1u, 37u, 2 * n, kNearListColumns, 0u}) {
                CAPTURE(someChunks, columns);
                const NearLists gpu =
                    columns ? buildNearListsVulkan(device, dk, onDevice, s, c, shared::RSIM_TIME_BLOCK, columns)
                            : buildNearListsVulkan(device, dk, onDevice, s, c, shared::RSIM_TIME_BLOCK, 1, 5 * n);
                REQUIRE(gpu.offsets.size() == std::size_t(n) + 1);
                std::size_t compared = 0;
                for (std::uint32_t i = 0; i < n; ++i) {
                    const bool held = !someChunks || std::find(ids.begin(), ids.end(), ch.chunkOf(i)) != ids.end();
                    const std::uint32_t count = gpu.offsets[i + 1] - gpu.offsets[i];
                    if (!held) {
                        REQUIRE(count == 0);
                        continue;
                    }
                    REQUIRE(count == host.offsets[i + 1] - host.offsets[i]);
                    for (std::uint32_t e = 0; e < count; ++e) {
                        const shared::NearPair& g = gpu.pairs[gpu.offsets[i] + e];
                        const shared::NearPair& h = host.pairs[host.offsets[i] + e];
                        REQUIRE(g.source == h.source);
                        REQUIRE(g.delay == h.delay);
                        REQUIRE(std::abs(g.coefB - h.coefB) <= 1e-6f * std::abs(h.coefB));
                        REQUIRE(std::abs(g.coefZ - h.coefZ) <= 1e-6f * std::abs(h.coefZ));
                        ++compared;
                    }
                }
                CHECK(compared > std::size_t(n));
            }
        }
    }
    CHECK(instance.validationErrors() == 0);
}

TEST_CASE("several builders' near lists merge into each row's pairs, parts in their order", "[transport]") {
    // Three parts over five rows: part 0 rows 0-1, part 1 rows 1 and 3, part 2 row 4; row 2 has
    // none, row 1 pairs of two parts.
    const auto pair = [](std::uint32_t source) { return shared::NearPair{source, 1u, 0.5f, 0.25f}; };
    std::vector<NearLists> parts(3);
    parts[0].offsets = {0, 2, 3, 3, 3, 3};
    parts[0].pairs = {pair(1), pair(2), pair(0)};
    parts[1].offsets = {0, 0, 1, 1, 3, 3};
    parts[1].pairs = {pair(4), pair(0), pair(4)};
    parts[2].offsets = {0, 0, 0, 0, 0, 1};
    parts[2].pairs = {pair(3)};
    const NearLists merged = mergeNearLists(parts);
    CHECK(merged.offsets == std::vector<std::uint32_t>{0, 2, 4, 4, 6, 7});
    std::vector<std::uint32_t> sources;
    for (const shared::NearPair& p : merged.pairs) sources.push_back(p.source);
    CHECK(sources == std::vector<std::uint32_t>{1, 2, 0, 4, 0, 4, 3});
    // Many rows, each with pairs from both parts (none, one or two of each).
    std::vector<NearLists> big(2);
    const std::uint32_t rows = 20000;
    for (NearLists& p : big) p.offsets.assign(rows + 1, 0);
    for (std::uint32_t i = 0; i < rows; ++i)
        for (std::uint32_t part = 0; part < 2; ++part) {
            const std::uint32_t count = (i + part) % 3;
            for (std::uint32_t k = 0; k < count; ++k) big[part].pairs.push_back(pair(i * 10 + part * 5 + k));
            big[part].offsets[i + 1] = std::uint32_t(big[part].pairs.size());
        }
    const NearLists all = mergeNearLists(big);
    REQUIRE(all.offsets.size() == rows + 1);
    REQUIRE(all.pairs.size() == big[0].pairs.size() + big[1].pairs.size());
    bool inOrder = true;
    for (std::uint32_t i = 0; i < rows; ++i) {
        std::vector<std::uint32_t> expected;
        for (std::uint32_t part = 0; part < 2; ++part)
            for (std::uint32_t k = 0; k < (i + part) % 3; ++k) expected.push_back(i * 10 + part * 5 + k);
        std::vector<std::uint32_t> got;
        for (std::uint32_t k = all.offsets[i]; k < all.offsets[i + 1]; ++k) got.push_back(all.pairs[k].source);
        inOrder = inOrder && got == expected;
    }
    CHECK(inOrder);
    // One part alone: its own lists.
    const NearLists one = mergeNearLists({parts[0]});
    CHECK(one.offsets == parts[0].offsets);
    CHECK(one.pairs.size() == parts[0].pairs.size());
}
