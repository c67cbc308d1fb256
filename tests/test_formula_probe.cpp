// SPDX-License-Identifier: MIT
// The shared formulas' GLSL build against their C++ build, bit for bit: the formula probe
// (include/rsim/shared/formula_probe.h) on a table of inputs, on every usable Vulkan device.
#include <cstring>
#include <random>

#include <catch2/catch_test_macros.hpp>
#include <glm/geometric.hpp>

#include "rsim/shared/formula_probe.h"
#include "support/test_scenes.h"
#include "vulkan/buffer.h"
#include "vulkan/instance.h"
#include "vulkan/pass.h"
#include "vulkan/shaders.h"

using namespace rsim;

namespace {

std::vector<shared::FormulaProbeRecord> probeInputs() {
    std::mt19937 rng(21);
    std::uniform_real_distribution<float> coord(-3.0f, 3.0f), unit(0.0f, 1.0f), time(0.0f, 300.0f);
    std::uniform_int_distribution<std::uint32_t> bits;
    std::vector<shared::FormulaProbeRecord> out;
    for (int k = 0; k < 4096; ++k) {
        shared::FormulaProbeRecord r{};
        r.a = glm::vec4(coord(rng), coord(rng), coord(rng), unit(rng) * 50.0f);
        r.b = glm::vec4(coord(rng), coord(rng), coord(rng), unit(rng) * 3.0f);
        r.c = glm::vec4(coord(rng), coord(rng), coord(rng), 1.0f / (0.03f * 0.03f) * unit(rng));
        r.d = glm::vec4(coord(rng), coord(rng), coord(rng), time(rng));
        // The second triangle: small (near pairs need centroids within an edge), or large.
        const float size = k % 2 ? 0.3f : 3.0f;
        r.e = r.d + size * glm::vec4(coord(rng), coord(rng), coord(rng), 0.0f);
        r.f = r.d + size * glm::vec4(coord(rng), coord(rng), coord(rng), 0.0f);
        // Boundary cases: shared vertices, coplanar triangles, exact delays.
        if (k % 7 == 0) r.d = glm::vec4(r.a.x, r.a.y, r.a.z, std::floor(r.d.w));
        if (k % 11 == 0) r.b.z = r.c.z = r.d.z = r.e.z = r.f.z = r.a.z;
        const glm::vec3 a(r.a), b(r.b), c(r.c), d(r.d), e(r.e), f(r.f);
        r.na = glm::vec4(glm::normalize(glm::cross(b - a, c - a)), 0.0f);
        r.nb = glm::vec4(glm::normalize(glm::cross(e - d, f - d)), 0.0f);
        r.u = glm::uvec4(bits(rng), bits(rng), bits(rng), bits(rng));
        // The fp16 element: no infinity or NaN (a NaN's payload is not part of the format).
        r.u.y &= ~0x40004000u;
        out.push_back(r);
    }
    return out;
}

bool sameBits(const void* a, const void* b, std::size_t n) {
    return std::memcmp(a, b, n) == 0;
}

} // namespace

TEST_CASE("the shared formulas give the same bits in GLSL and in C++", "[shared][vulkan]") {
    if (test::vulkanPathsAvailable().empty()) SKIP("no Vulkan device with ray tracing");
    const std::vector<shared::FormulaProbeRecord> inputs = probeInputs();
    std::vector<shared::FormulaProbeOutput> expected;
    for (const auto& r : inputs)
        expected.push_back(shared::rsimFormulaProbe(r));
    // The inputs reach every branch: both answers of every decision occur.
    std::size_t yes[4] = {0, 0, 0, 0};
    for (const auto& o : expected)
        for (int f = 0; f < 4; ++f)
            yes[f] += o.flags[f];
    for (int f = 0; f < 4; ++f) {
        CAPTURE(f);
        CHECK(yes[f] > 0);
        CHECK(yes[f] < expected.size());
    }

    vk::Instance instance(true);
    for (const auto& info : instance.devices()) {
        if (!info.usable) continue;
        CAPTURE(info.name);
        vk::Device device(instance, info,
                          info.rayQuery ? vk::RayPath::RayQuery : vk::RayPath::Pipeline, "probe");
        const vk::Buffer in = vk::makeStorage(device, inputs, "probe inputs");
        const vk::Buffer out(device, inputs.size() * sizeof(shared::FormulaProbeOutput),
                             vk::kStorageUsage, vk::MemoryKind::Device, "probe outputs");
        vk::Pass<shared::FormulaProbePush> probe(device, vk::shaders::formulaProbe(), {},
                                                 "formula probe");
        shared::FormulaProbePush push{in.address(), out.address(), std::uint32_t(inputs.size()), 0};
        device.submitAndWait([&](VkCommandBuffer cmd) {
            probe.bind(cmd);
            probe.dispatch(cmd, push,
                           (push.count + shared::RSIM_WG_LINEAR - 1) / shared::RSIM_WG_LINEAR);
        });
        const auto got = vk::download<shared::FormulaProbeOutput>(device, out, inputs.size());
        std::size_t differ = 0;
        for (std::size_t k = 0; k < inputs.size(); ++k)
            if (!sameBits(&got[k], &expected[k], sizeof(shared::FormulaProbeOutput))) {
                if (differ++ < 3) {
                    // Which of the output's 24 words differs (o0.x .. o4.w, then the flags).
                    const auto* g = reinterpret_cast<const std::uint32_t*>(&got[k]);
                    const auto* x = reinterpret_cast<const std::uint32_t*>(&expected[k]);
                    int word = 0;
                    while (word < 24 && g[word] == x[word])
                        ++word;
                    float gv = 0.0f, xv = 0.0f;
                    std::memcpy(&gv, &g[word % 24], 4);
                    std::memcpy(&xv, &x[word % 24], 4);
                    CAPTURE(k, word, gv, xv);
                    CHECK(false);
                }
            }
        CHECK(differ == 0);
    }
    CHECK(instance.validationErrors() == 0);
}
