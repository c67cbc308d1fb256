// SPDX-License-Identifier: MIT
// Duplicated faces: a triangle given twice (a mesh exported twice, overlapping parts) emits and
// receives its light twice, which nearly doubles the sensor signal without any error. Faces
// with the same vertices in the same cyclic order, after rounding each coordinate to a grid of
// kDuplicateGridRel times the scene's bounding-box diagonal, are dropped but the first. The
// same vertices in the reverse order are kept: they are a two-sided surface modelled as two
// faces.
#pragma once
#include <cstdint>

#include "scene/mesh_loader.h"

namespace rsim {

inline constexpr double kDuplicateGridRel = 1e-6;

// Drops the duplicated faces of g in place; returns how many.
std::uint64_t dropDuplicateFaces(LoadedGeometry& g);

} // namespace rsim
