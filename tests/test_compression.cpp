// SPDX-License-Identifier: MIT
// K compression (issue 4): exact zeros, error bounds on synthetic log-normal data, identical
// decoding on the host and the GPU, and the accuracy bar of a whole simulation.
#include <algorithm>
#include <cmath>
#include <map>
#include <random>

#include <catch2/catch_test_macros.hpp>
#include <catch2/generators/catch_generators_range.hpp>

#include "k/host_k.h"
#include "k/k_diagnostics.h"
#include "support/test_scenes.h"
#include "k/gpu_k.h"
#include "k/vulkan_log_encode.h"
#include "vulkan/gpu_scene.h"
#include "vulkan/instance.h"

using namespace rsim;
using namespace rsim::test;

namespace {

// K-like data: about a third zeros, the rest log-normal over several decades.
std::vector<float> logNormal(std::size_t count, unsigned seed) {
    std::mt19937 rng(seed);
    std::lognormal_distribution<float> value(-1.0f, 2.0f);
    std::uniform_real_distribution<float> u(0.0f, 1.0f);
    std::vector<float> v(count);
    for (float& x : v) x = u(rng) < 0.35f ? 0.0f : value(rng);
    return v;
}

std::vector<KFormat> allFormats() {
    std::vector<KFormat> f;
    for (const auto& i : kFormats()) f.push_back(i.format);
    return f;
}

} // namespace

TEST_CASE("every format keeps exact zeros and its error bound", "[compression]") {
    const KFormat format = GENERATE(from_range(allFormats()));
    const KFormatInfo& info = kFormatInfo(format);
    CAPTURE(info.name);
    const std::vector<float> v = logNormal(20001, 5); // odd: the last word is partly used
    const EncodedChunk c = encodeChunk(v.data(), v.size(), format);
    CHECK(c.bytes(info.storage) == (v.size() * shared::rsimKBits(info.storage) + 7) / 8 +
                                       shared::rsimKTableSize(info.storage) * 4);
    float lo = INFINITY, hi = 0.0f;
    for (float x : v)
        if (x > 0.0f) lo = std::min(lo, x), hi = std::max(hi, x);
    // lutrange: each code decodes to the mean of the values sharing it.
    std::map<std::uint32_t, std::pair<float, float>> codeRange; // code -> (min, max) of its values
    std::size_t fineValues = 0; // values in the fine top part of an 8-bit logarithmic table
    double sumSquared = 0.0;
    for (std::size_t e = 0; e < v.size(); ++e) {
        const float d = decodeElement(c, info.storage, e);
        CAPTURE(e, v[e], d);
        sumSquared += double(d - v[e]) * double(d - v[e]);
        if (v[e] == 0.0f) {
            REQUIRE(d == 0.0f); // exact zero, always
            continue;
        }
        REQUIRE(d > 0.0f); // a non-zero value never decodes to zero
        switch (info.storage) {
        case shared::RSIM_K_FP32: REQUIRE(d == v[e]); break;
        case shared::RSIM_K_FP16:
            // Round to nearest: half an ulp of fp16 (2^-11 relative) above the subnormal range;
            // absolute 2^-25 below it; values above 65504 become inf and are never this large.
            REQUIRE(std::abs(d - v[e]) <= std::max(v[e] * 0x1p-11f, 0x1p-25f));
            break;
        default: {
            if (info.logTable) {
                // The table covers the values, at least kLogSpan, and d is the nearest entry in
                // ln K (boundaries at geometric midpoints; plus fp32 rounding of the table). In
                // the top kLogFineSpan of an 8-bit table the steps are kLogFineSpan /
                // (kLogFineCodes - 1): d is off by at most half of that in ln K.
                const std::size_t L = shared::rsimKTableSize(info.storage);
                REQUIRE(c.table[1] <= lo);
                REQUIRE(c.table[L - 1] >= hi);
                const double span = std::log(double(c.table[L - 1]) / double(c.table[1]));
                REQUIRE(span >= kLogSpan * (1.0 - 1e-6));
                const std::uint32_t code = shared::rsimKCode(
                    info.storage, c.words[shared::rsimKWord(info.storage, std::uint32_t(e))], std::uint32_t(e));
                const double lv = std::log(double(v[e])), off = std::abs(lv - std::log(double(d)));
                if (code > 1) REQUIRE(off <= std::abs(lv - std::log(double(c.table[code - 1]))) + 1e-6);
                if (code + 1 < L) REQUIRE(off <= std::abs(lv - std::log(double(c.table[code + 1]))) + 1e-6);
                if (L == 256 && lv >= std::log(double(c.table[L - 1])) - kLogFineSpan) {
                    ++fineValues;
                    REQUIRE(off <= kLogFineSpan / (2.0 * double(kLogFineCodes - 1)) * 1.0001 + 1e-6);
                }
            } else {
                const std::uint32_t code = shared::rsimKCode(
                    info.storage, c.words[shared::rsimKWord(info.storage, std::uint32_t(e))], std::uint32_t(e));
                auto [it, fresh] = codeRange.try_emplace(code, v[e], v[e]);
                it->second.first = std::min(it->second.first, v[e]);
                it->second.second = std::max(it->second.second, v[e]);
            }
        }
        }
    }
    // lutrange: a decoded value lies within the values its code stands for.
    for (std::size_t e = 0; e < v.size(); ++e) {
        if (info.logTable || info.storage <= shared::RSIM_K_FP16 || v[e] == 0.0f) continue;
        const std::uint32_t code = shared::rsimKCode(
            info.storage, c.words[shared::rsimKWord(info.storage, std::uint32_t(e))], std::uint32_t(e));
        const auto [mn, mx] = codeRange.at(code);
        const float d = c.table[code];
        REQUIRE((d >= mn * (1.0f - 1e-6f) && d <= mx * (1.0f + 1e-6f)));
    }
    CHECK(std::abs(c.sumSquaredError - sumSquared) <= 1e-9 * std::max(1.0, sumSquared));
    if (info.logTable && info.storage == shared::RSIM_K_LUT8) CHECK(fineValues > v.size() / 2);
}

TEST_CASE("a logarithmic table stays put when a chunk's extreme values change a little", "[compression]") {
    // A grazing ray that one backend's traversal counts and the other's does not turns the
    // smallest K of a chunk to zero (or doubles it), and fp32 rounding moves the largest by an
    // ulp or so: neither may move the table, or every value of the chunk decodes differently.
    const std::vector<float> v = logNormal(4000, 21);
    float lo = INFINITY, hi = 0.0f;
    std::size_t smallest = 0, largest = 0;
    for (std::size_t e = 0; e < v.size(); ++e)
        if (v[e] > 0.0f) {
            if (v[e] < lo) lo = v[e], smallest = e;
            if (v[e] > hi) hi = v[e], largest = e;
        }
    REQUIRE(std::log(double(hi) / double(lo)) < kLogSpan); // the span below the top covers it
    for (const KFormat format : {KFormat::Lut8Log, KFormat::Lut4Log}) {
        CAPTURE(kFormatInfo(format).name);
        const EncodedChunk base = encodeChunk(v.data(), v.size(), format);
        std::vector<float> w = v;
        w[smallest] = 0.0f;
        CHECK(encodeChunk(w.data(), w.size(), format).table == base.table);
        w[smallest] = 2.0f * v[smallest];
        CHECK(encodeChunk(w.data(), w.size(), format).table == base.table);
        w = v;
        w[largest] = std::nextafter(w[largest], 0.0f);
        // (unless ln of the largest sits on a multiple of 1/8, which this data's does not)
        REQUIRE(std::abs(std::log(double(hi)) * kLogTopGrid - std::round(std::log(double(hi)) * kLogTopGrid)) > 1e-3);
        CHECK(encodeChunk(w.data(), w.size(), format).table == base.table);
    }
}

TEST_CASE("a chunk's row sums are the sums of its decoded rows", "[compression]") {
    // 1,500 sources (blocks of 512 columns, the last one partial), chunks of 400 rows, lut8-log
    // and fp32; areas up to 1 m^2 and values up to e^7, so that some form factors are clamped.
    const std::uint32_t n = 1500;
    std::mt19937 rng(3);
    std::uniform_real_distribution<float> areaOf(1e-3f, 1.0f);
    std::vector<float> area(n);
    for (float& a : area) a = areaOf(rng);
    const std::vector<float> v = logNormal(std::size_t(n) * n, 9);
    for (const KFormat format : {KFormat::Lut8Log, KFormat::Fp32}) {
        CAPTURE(kFormatInfo(format).name);
        const KChunking ch = KChunking::forBudget(n, format, 400ull * n * shared::rsimKBits(kFormatInfo(format).storage) / 8);
        REQUIRE(ch.chunks() == 4);
        HostK K(ch);
        for (std::uint32_t i = 0; i < n; ++i)
            for (std::uint32_t j = 0; j < n; ++j) K.store(i, j, i == j ? 0.0f : v[std::size_t(i) * n + j]);
        for (std::uint32_t c = 0; c < ch.chunks(); ++c) K.encodeChunkAs(c, format);
        K.finishEncoding(format);
        std::vector<double> rowSum(n, 0.0), expected(n, 0.0);
        std::uint64_t clamped = 0, expectedClamped = 0;
        for (std::uint32_t c = 0; c < ch.chunks(); ++c) clamped += addChunkRowSums(ch, c, K.chunk(c), area, rowSum);
        for (std::uint32_t i = 0; i < n; ++i)
            for (std::uint32_t j = 0; j < n; ++j) {
                const float k = K.get(i, j);
                expectedClamped += k * area[j] > 1.0f;
                expected[i] += double(shared::rsimFormFactor(k, area[j]));
            }
        CHECK(clamped == expectedClamped);
        CHECK(expectedClamped > 0);
        for (std::uint32_t i = 0; i < n; ++i) {
            CAPTURE(i);
            REQUIRE(std::abs(rowSum[i] - expected[i]) <= 1e-12 * expected[i]);
        }
    }
}

TEST_CASE("the GPU's row sums are the host's, row by row", "[compression][vulkan]") {
    if (vulkanPathsAvailable().empty()) SKIP("no Vulkan device with ray tracing");
    // 1,200 triangles in three plates of different sizes (areas 5e-5 to 5e-3 m^2), K log-normal
    // up to e^7 so that some form factors are clamped, chunks of 300 rows: the device sums rows
    // in blocks of 512 columns (the last one partial) and then adds the blocks.
    SceneBuilder b;
    const auto m = b.material("m", 0.5f);
    b.rectangle({0, 0, 0}, {0.2, 0, 0}, {0, 0.1, 0}, 20, 10, m);
    b.rectangle({0, 0, 1}, {2.0, 0, 0}, {0, 1.0, 0}, 20, 10, m);
    b.rectangle({0, 0, 2}, {0.6, 0, 0}, {0, 0.5, 0}, 20, 10, m);
    const PreparedScene s = b.prepare();
    const std::uint32_t n = std::uint32_t(s.size());
    REQUIRE(n == 1200);
    const std::vector<float> v = logNormal(std::size_t(n) * n, 11);
    vk::Instance instance(true);
    vk::Device device = makeFirstDevice(instance);
    const GpuGeometry geometry(device, s, {}, {}, {});
    for (const KFormat format : {KFormat::Fp32, KFormat::Lut8Log}) {
        CAPTURE(kFormatInfo(format).name);
        const KChunking ch{n, 300, format};
        HostK K(ch);
        for (std::uint32_t i = 0; i < n; ++i)
            for (std::uint32_t j = 0; j < n; ++j) K.store(i, j, i == j ? 0.0f : v[std::size_t(i) * n + j]);
        for (std::uint32_t c = 0; c < ch.chunks(); ++c) K.encodeChunkAs(c, format);
        K.finishEncoding(format);
        const DeviceK onDevice = uploadChunks(device, K, {0, 1, 2, 3}, false, 1);
        const DeviceRowSums gpu = formFactorRowSumsDevice(device, geometry, onDevice);
        std::uint64_t clamped = 0;
        REQUIRE(gpu.sums.size() == n);
        for (std::uint32_t i = 0; i < n; ++i) {
            double expected = 0.0;
            for (std::uint32_t j = 0; j < n; ++j) {
                const float k = K.get(i, j);
                clamped += k * s.area[j] > 1.0f;
                expected += double(shared::rsimFormFactor(k, s.area[j]));
            }
            CAPTURE(i, expected);
            // float sums of at most 512 terms, then of three blocks
            REQUIRE(std::abs(double(gpu.sums[i]) - expected) <= 5e-5 * expected);
        }
        CHECK(clamped > 0);
        CHECK(gpu.clamped == clamped);
    }
    CHECK(instance.validationErrors() == 0);
}

TEST_CASE("the GPU encodes every format exactly as the host", "[compression][vulkan]") {
    if (vulkanPathsAvailable().empty()) SKIP("no Vulkan device with ray tracing");
    const KFormat format = GENERATE(from_range(allFormats()));
    CAPTURE(kFormatInfo(format).name);
    vk::Instance instance(true);
    vk::Device device = makeFirstDevice(instance);
    const std::uint32_t n = 157, rowsPerChunk = 40; // 4 chunks, the last one shorter
    const KChunking chunking{n, rowsPerChunk, KFormat::Fp32};
    const bool fp16 = format == KFormat::Fp16;
    DeviceK K = allocateDeviceK(device, chunking);
    HostK host(chunking);
    std::vector<std::vector<float>> chunks;
    for (std::uint32_t c = 0; c < chunking.chunks(); ++c) {
        chunks.push_back(logNormal(chunking.elements(c), 100 + c));
        std::copy(chunks.back().begin(), chunks.back().end(), host.values(c));
        vk::uploadBytes(device, K.buffers[c], chunks.back().data(), chunks.back().size() * 4);
    }
    if (fp16) { // the shader converts fp16 in-band; here the host packs it the same way
        HostK half = host;
        half.compress(KFormat::Fp16);
        K = uploadChunks(device, half, K.chunkIds, false, 1);
    }
    // The logarithmic formats are encoded on the device, the others on the host: either way the
    // codes and the reported errors are the host encoder's.
    // The logarithmic ones a group of chunks per submission: all four at once, or two groups of two.
    const bool groupsOfTwo = GENERATE(false, true);
    CAPTURE(groupsOfTwo);
    const KErrors reported = fp16                                            ? KErrors{}
                             : groupsOfTwo && kFormatInfo(format).logTable ? encodeLogKVulkan(device, K, format,
                                                                                               2 * chunking.chunkBytes(0))
                                                                           : compressDeviceK(device, K, format);
    const HostK gpu = downloadDeviceK(device, K);
    REQUIRE(gpu.format() == format);
    KErrors expected;
    for (std::uint32_t c = 0; c < chunking.chunks(); ++c) {
        const EncodedChunk e = encodeChunk(chunks[c].data(), chunks[c].size(), format);
        expected.sumSquared += e.sumSquaredError;
        expected.maxAbs = std::max(expected.maxAbs, e.maxAbsError);
        CHECK(gpu.chunk(c).words == e.words);
        CHECK(gpu.chunk(c).table == e.table);
    }
    if (!fp16) {
        CHECK(std::abs(reported.sumSquared - expected.sumSquared) <= 1e-4 * expected.sumSquared);
        CHECK(std::abs(reported.maxAbs - expected.maxAbs) <= 1e-6 * expected.maxAbs);
    }
    CHECK(instance.validationErrors() == 0);
}

TEST_CASE("K bytes are N^2 times the format's size plus the tables", "[compression]") {
    const std::uint32_t n = 1001;
    for (const auto& f : kFormats()) {
        CAPTURE(f.name);
        const KChunking ch = KChunking::forBudget(n, f.format, 1 << 18);
        CHECK(ch.bytes() == (std::uint64_t(n) * n * shared::rsimKBits(f.storage) + 7) / 8 +
                                std::uint64_t(ch.chunks()) * shared::rsimKTableSize(f.storage) * 4);
    }
    // K in chunks decodes to what was stored, in every format; element (i, j) of chunk c sits at
    // j * rows_c + (i - c R).
    HostK K(KChunking{37, 10, KFormat::Fp32});
    const std::vector<float> v = logNormal(37 * 37, 9);
    for (std::uint32_t i = 0; i < 37; ++i)
        for (std::uint32_t j = 0; j < 37; ++j) K.store(i, j, v[i * 37 + j]);
    CHECK(K.decodeAll() == v);
    CHECK(K.values(1)[5 * 10 + 3] == v[13 * 37 + 5]);
    CHECK(K.chunking().index(36, 2) == 2 * 7 + 6); // the last chunk has 7 rows
    K.compress(KFormat::Lut8Range);
    std::vector<float> decoded = K.decodeAll();
    for (std::size_t e = 0; e < v.size(); ++e) CHECK((v[e] == 0.0f) == (decoded[e] == 0.0f));
}

TEST_CASE("a simulation with lut8-log stays within the accuracy bar", "[compression][invariants]") {
    const std::string backend = GENERATE(from_range(backendsUnderTest()));
    CAPTURE(backend);
    SceneBuilder b;
    auto wall = b.material("wall", 0.75f);
    auto box = b.material("box", 0.4f);
    b.roomShell({0, 0, 0}, {4.0, 3.0, 2.5}, 4, wall);
    b.box({2.5, 1.0, 0.0}, {3.2, 1.8, 0.9}, 2, box);
    const PreparedScene s = b.prepare();
    SceneDesc d = basicScene({0.3, 1.5, 1.4}, {4.0, 1.4, 0.9});
    d.sim.timesteps = 500;
    SimConfig c = makeSimConfig(d);
    c.k.format = KFormat::Fp32;
    const SimulationResult ref = simulate(backend, s, c);
    c.k.format = KFormat::Lut8Log;
    c.k.chunkBytes = 1 << 14; // several chunks, each with its own table
    const SimulationResult lut = simulate(backend, s, c);
    std::size_t compared = 0, within = 0;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (std::isnan(ref.distance[i])) continue;
        ++compared;
        within += !std::isnan(lut.distance[i]) && std::abs(lut.distance[i] - ref.distance[i]) <= 0.01;
    }
    REQUIRE(compared > 50);
    // The bar of docs/model-choices.md: 95% of the triangles within 1 cm of the fp32 run.
    CHECK(double(within) >= 0.95 * double(compared));
}
