// SPDX-License-Identifier: MIT
// The SPIR-V of every shader, compiled by the build and embedded in the binary.
#pragma once
#include "vulkan/pipeline.h"

namespace rsim::vk::shaders {

ShaderCode visibility(RayPath path);
ShaderCode visibilityClearPairs(RayPath path); // with the shaft query (RSIM_CLEAR_PAIRS)
ShaderCode visibilityListed(); // the pairs tested against their tiles' occluder lists
ShaderCode direct(RayPath path);
ShaderCode primary(RayPath path);
// The paths transport's camera paths (MODEL.md §10.2).
ShaderCode paths(RayPath path);
ShaderCode rtMiss();
ShaderCode rtClosestHit();
ShaderCode radiosityFar();
ShaderCode radiosityFarLanes();
ShaderCode radiosityNear();
ShaderCode phasorsGather(); // the phasors transport (MODEL.md §11)
ShaderCode phasorsTiled();  // its gather for a pose group
ShaderCode historyFromLanes();
ShaderCode nearPairs();
ShaderCode facingPairs();
ShaderCode nearLaunch();
ShaderCode activePairs();
ShaderCode tileShafts();
ShaderCode distances();
ShaderCode pixels();
ShaderCode sensorSignals();
ShaderCode formFactorSums();
ShaderCode kEncode();
ShaderCode kCompact(); // K stored as segments from a dense chunk
ShaderCode formulaProbe(); // tests only

} // namespace rsim::vk::shaders
