// SPDX-License-Identifier: MIT
// Camera poses of a batch (MODEL.md §9, "Poses"): read from a CSV file (--poses) or the scene
// file's [[pose]] tables, and applied to the scene's camera rig, the sensor and the light moved
// as one rigid body.
#pragma once
#include <filesystem>
#include <vector>

#include "scene/scene_desc.h"

namespace rsim {

// Reads `name,x,y,z,look_x,look_y,look_z[,up_x,up_y,up_z]` (a header line, then one pose per
// line; blank lines and lines starting with # are skipped). Throws InputError naming the file,
// line and column of the first bad field.
std::vector<PoseDesc> readPosesCsv(const std::filesystem::path& file);

// Throws InputError unless `poses` is non-empty and every name is unique and usable as a
// directory name ([A-Za-z0-9._-], not "." or ".."), and every pose can aim the sensor.
void checkPoses(const std::vector<PoseDesc>& poses, const SceneDesc& scene);

// The scene with its camera rig moved to `pose`: the sensor at pose.position looking at
// pose.lookAt with up pose.up (the scene's sensor.up when absent); the light keeps its offset
// and direction relative to the sensor's frame (right, up, forward).
SceneDesc applyPose(const SceneDesc& scene, const PoseDesc& pose);

// Poses in CSV, as readPosesCsv reads them (full precision).
std::string posesCsv(const std::vector<PoseDesc>& poses);

} // namespace rsim
