// SPDX-License-Identifier: MIT
// The CPU phasor solve's listed pairs (transport/cpu_phasors.cpp): the first iteration lists each
// row tile's non-zero pairs with their factors where they fit a byte budget, the later ones read
// the lists. Listed, decoded every iteration, or some tiles each way: the same sums, bit for bit.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include <catch2/catch_test_macros.hpp>

#include "geometry/prepare.h"
#include "k/host_k.h"
#include "scene/mesh_loader.h"
#include "support/test_scenes.h"
#include "transport/phasor_system.h"

using namespace rsim;

TEST_CASE("phasors: the CPU solve's listed pairs give the same sums as K decoded every iteration",
          "[phasors][cpu]") {
    const std::string tinyRoom = std::string(RSIM_SOURCE_DIR) + "/scenes/tiny-room/scene.toml";
    const SceneDesc d = loadSceneFile(tinyRoom, {{"sensor.mode", "\"amcw\""}, {"simulation.transport", "\"phasors\""}, {"output.timeseries", "false"}});
    const PreparedScene s = prepareScene(loadMeshes(d), d.sim.max_edge_m);
    const SimConfig config = makeSimConfig(d);
    const SimulationResult r = test::simulate("cpu", s, config, true, false);
    const std::uint32_t n = std::uint32_t(s.size());
    REQUIRE(n > 4 * 64); // several row tiles of 64
    REQUIRE(r.K.size() == std::size_t(n) * n);
    const HostK K = HostK::fromDense(n, r.K);
    // The steady state, 20 MHz and 300 MHz (radians per step).
    const std::vector<float> omegas{0.0f, float(2.0 * M_PI * 20e-3 * config.dtNs), float(2.0 * M_PI * 300e-3 * config.dtNs)};
    PhasorSystem sys;
    sys.config = &config;
    sys.n = n;
    sys.columns = {1, omegas};
    sys.sources = phasorSources(s, {&r.direct}, omegas, false);
    sys.reflectance = s.reflectance;
    sys.tolerance = 1e-7;
    sys.invCdtSq = config.invCdtSq;
    std::size_t nonZero = 0;
    for (float k : r.K) nonZero += k != 0.0f;
    // The lists' bytes (their vectors' capacity counts: up to twice their size).
    const std::uint64_t allBytes = nonZero * (4 + 8 * omegas.size());

    // "pairs of X of T row tiles listed ...": X and T.
    auto tilesListed = [](const std::string& summary) {
        unsigned x = 0, t = 0;
        REQUIRE(std::sscanf(summary.c_str(), "pairs of %u of %u row tiles", &x, &t) == 2);
        return std::pair{x, t};
    };
    sys.pairListBytes = 0;
    const PhasorSolution decoded = solvePhasorsCpu(s, &K, sys);
    CHECK(tilesListed(decoded.summary).first == 0);
    REQUIRE(decoded.converged);
    REQUIRE(decoded.sweeps > 5);
    for (std::uint64_t budget : {2 * allBytes, allBytes / 2}) {
        CAPTURE(budget, allBytes);
        sys.pairListBytes = budget;
        const PhasorSolution listed = solvePhasorsCpu(s, &K, sys);
        const auto [x, t] = tilesListed(listed.summary);
        CAPTURE(listed.summary);
        if (budget > allBytes) CHECK(x == t);
        else CHECK((x > 0 && x < t));
        CHECK(listed.iterations == decoded.iterations);
        REQUIRE(listed.values.size() == decoded.values.size());
        CHECK(std::memcmp(listed.values.data(), decoded.values.data(), decoded.values.size() * sizeof(glm::vec2)) == 0);
    }
}
