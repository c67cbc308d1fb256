// SPDX-License-Identifier: MIT
// What each scene kind hands to the writer in generate.cpp, and the tessellation fit they share.
#pragma once
#include <cstdint>
#include <functional>
#include <string>

#include <glm/vec3.hpp>

#include "generate/mesh_builder.h"

namespace rsim {

// Grid resolution of the large surfaces: cells of at most `cell` metres, except for one big
// surface (a ceiling, a road) cut at `fillCell`, whose finer steps let N land near the target.
struct Tessellation {
    double cell = 0.5;
    double fillCell = 0.5;
};

struct ScenePlan {
    std::string contents; // for the scene.toml header: what the scene holds
    std::string meshFile; // file name of the OBJ, next to scene.toml
    glm::dvec3 light{0.0}, sensor{0.0}, lookAt{1.0, 0.0, 0.0};
    double halfAngleDeg = 60.0; // covers the sensor's frustum (diagonal half-angle ~41 deg)
    double dtNs = 0.1;
    std::uint32_t timesteps = 1000;
    std::uint32_t width = 320, height = 240;
    // The light's pulse: 0 a delta pulse; else a Gaussian pulse of this width (FWHM, ns).
    double pulseFwhmNs = 0.0;
    Tessellation cells;      // for the header
    std::string fillSurface; // which surface Tessellation::fillCell cuts
};

// Builds the whole scene into a fresh builder (materials included).
using SceneBuild = std::function<ScenePlan(MeshBuilder&, const Tessellation&)>;

// Builds into `out` with the tessellation (cell in [cellLo, cellHi]) whose N (twins included)
// comes closest to `target`. Furniture does not depend on it, so only the large surfaces
// absorb the difference.
ScenePlan buildToTarget(MeshBuilder& out, std::uint64_t target, double cellLo, double cellHi,
                        const SceneBuild& build);

// Yaw (degrees) that turns a piece of furniture's front (local -y) towards (dx, dy).
double yawFacing(double dx, double dy);

ScenePlan generateTinyRoom(MeshBuilder& out, std::uint32_t seed);
ScenePlan generateSmallRoom(MeshBuilder& out, std::uint32_t seed, std::uint64_t target);
ScenePlan generateMediumRoom(MeshBuilder& out, std::uint32_t seed, std::uint64_t target);
ScenePlan generateLargeRoom(MeshBuilder& out, std::uint32_t seed, std::uint64_t target);
ScenePlan generateTraffic(MeshBuilder& out, std::uint32_t seed, std::uint64_t target);
ScenePlan generateIndustry(MeshBuilder& out, std::uint32_t seed, std::uint64_t target);
ScenePlan generateGlossyRoom(MeshBuilder& out, std::uint32_t seed);

} // namespace rsim
