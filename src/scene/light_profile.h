// SPDX-License-Identifier: MIT
// A light's angular profile from a CSV table (issue 60; MODEL.md §9, [[light]] profile): relative
// intensity against the angle to the light's axis (rows angle_deg,intensity), or against the
// horizontal and vertical angles (a first row of horizontal angles after a corner cell, then
// rows of a vertical angle and its values). Resampled linearly on an even grid (181 angles, or
// 91 x 91) for rsim/shared/physics.h's rsimProfileFactor; `where` names the scene key in messages.
#pragma once
#include <filesystem>
#include <memory>
#include <string>

#include "core/sim_config.h"

namespace rsim {

std::shared_ptr<LightProfile> readRadialProfile(const std::filesystem::path& file, const std::string& where);
std::shared_ptr<LightProfile> readGridProfile(const std::filesystem::path& file, const std::string& where);
// Checks the values and sets the profile's integral over the sphere (its light's power divides by it).
void finishProfile(LightProfile& profile, const std::string& what);

} // namespace rsim
