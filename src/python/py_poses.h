// SPDX-License-Identifier: MIT
// The poses `import rsim`'s run() takes, read from Python objects with ValueErrors that name what
// is wrong.
#pragma once
#include <vector>

#include <pybind11/pybind11.h>

#include "scene/poses.h"
#include "scene/scene_desc.h"

namespace rsim::python {

namespace py = pybind11;

// Poses from Python: None (the scene's own camera), an array (or nested lists) [P, 6] or
// [P, 9] of position, look-at point (and up), or a list of dicts {name, position, look_at[, up]}.
// InputError (ValueError in Python) naming the pose and what is wrong; checkPoses() applied.
std::vector<PoseDesc> posesFrom(const py::object& poses, const SceneDesc& scene);

} // namespace rsim::python
