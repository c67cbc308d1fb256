// SPDX-License-Identifier: MIT
#include "support/vulkan_runs.h"

#include <algorithm>
#include <cmath>

#include <catch2/catch_test_macros.hpp>

#include "backends/backend_choice.h"
#include "support/test_scenes.h"

namespace rsim::test {

PreparedScene roomWithBox() {
    SceneBuilder b;
    auto wall = b.material("wall", 0.7f);
    auto box = b.material("box", 0.45f, true);
    b.roomShell({0, 0, 0}, {4.0, 3.0, 2.5}, 3, wall);
    b.box({2.2, 1.0, 0.0}, {3.0, 1.9, 1.0}, 2, box);
    return b.prepare();
}

Run runVulkan(const PreparedScene& s, const SimConfig& c, const std::string& devices, const std::string& stream,
              double maxDeviceMb, double maxHostMb, std::uint32_t passBlocks) {
    BackendChoice choice;
    choice.backend = "vulkan";
    choice.devices = devices;
    choice.stream = stream;
    choice.maxDeviceMb = maxDeviceMb;
    choice.maxHostMb = maxHostMb;
    choice.passBlocks = passBlocks;
    choice.validation = true;
    auto backend = makeVulkanBackend(choice);
    Run r;
    r.result = simulateOn(PhaseBackends::all(*backend), s, c, false, true, &r.meta);
    return r;
}

bool hasDetail(const Run& r, const std::string& key) {
    return std::any_of(r.meta.timingDetails.begin(), r.meta.timingDetails.end(),
                       [&](const auto& d) { return d.first == key; });
}

double detail(const Run& r, const std::string& key) {
    for (const auto& [name, seconds] : r.meta.timingDetails)
        if (name == key) return seconds;
    return -1.0;
}

void requireSame(const Run& ra, const Run& rb) {
    const SimulationResult &a = ra.result, &b = rb.result;
    REQUIRE(a.B.size() == b.B.size());
    double peak = 0.0, worst = 0.0;
    for (std::size_t k = 0; k < a.B.size(); ++k) {
        peak = std::max(peak, std::abs(double(a.B[k])));
        worst = std::max(worst, std::abs(double(a.B[k]) - double(b.B[k])));
    }
    CHECK(worst <= 1e-6 * peak);
    double peakZ = 0.0, worstZ = 0.0;
    for (std::size_t k = 0; k < a.Z.size(); ++k) {
        peakZ = std::max(peakZ, std::abs(double(a.Z[k])));
        worstZ = std::max(worstZ, std::abs(double(a.Z[k]) - double(b.Z[k])));
    }
    CHECK(worstZ <= 1e-6 * peakZ);
    for (std::size_t i = 0; i < a.distance.size(); ++i) {
        CAPTURE(i);
        REQUIRE(std::isnan(a.distance[i]) == std::isnan(b.distance[i]));
        if (!std::isnan(a.distance[i])) CHECK(std::abs(a.distance[i] - b.distance[i]) < 1e-6);
    }
}

} // namespace rsim::test
