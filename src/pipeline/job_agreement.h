// SPDX-License-Identifier: MIT
// Under MPI every rank must run the same job: a rank started with other options, another scene
// file or other meshes would meet the others in different collectives (a hang) or add different
// sums (a wrong result). These checks are collectives themselves, each an InputError on every
// rank that names the first rank differing from rank 0.
#pragma once
#include <string>

#include "core/prepared_scene.h"
#include "pipeline/run_simulation.h"
#include "scene/scene_desc.h"
#include "util/ranks.h"

namespace rsim {

// Throws InputError when any rank's `what` (a description of its run) differs from rank 0's.
void checkRanksAgree(const Ranks& ranks, const std::string& what);

// The job as one rank sees it before loading anything heavy: rsim's version, hashes of the
// scene file's and the poses file's bytes, the settings given on the command line, K's format
// and chunks and the MPI split.
std::string jobFingerprint(const RunRequest& request, const SceneDesc& scene);

// The triangles after loading and preparation: their count and a hash of their vertices,
// reflectances and stable ids (the meshes each rank read).
std::string triangleFingerprint(const PreparedScene& scene);

} // namespace rsim
