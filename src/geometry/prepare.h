// SPDX-License-Identifier: MIT
#pragma once
#include "core/prepared_scene.h"
#include "scene/mesh_loader.h"

namespace rsim {

// Subdivides (longest-edge bisection until no edge exceeds maxEdgeM, if > 0), adds the reversed
// twins of two-sided materials, assigns stable ids and sorts along a Morton curve (MODEL §1).
// Throws InputError when nothing usable is left or subdivision would exceed maxTriangles.
PreparedScene prepareScene(const LoadedGeometry& geometry, double maxEdgeM,
                           std::size_t maxTriangles = 4'000'000);

// 63-bit Morton code of a point in the unit cube (21 bits per axis).
std::uint64_t mortonCode(double x, double y, double z);

} // namespace rsim
