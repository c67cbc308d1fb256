// SPDX-License-Identifier: MIT
#include "vulkan/shaders.h"

#include "shaders/direct_bvh.spv.h"
#include "shaders/direct_rgen.spv.h"
#include "shaders/direct_rq.spv.h"
#include "shaders/distances.spv.h"
#include "shaders/formfactor_sums.spv.h"
#include "shaders/kcompact.spv.h"
#include "shaders/kencode.spv.h"
#include "shaders/formula_probe.spv.h"
#include "shaders/facing_pairs.spv.h"
#include "shaders/near_launch.spv.h"
#include "shaders/phasors_gather.spv.h"
#include "shaders/phasors_tiled.spv.h"
#include "shaders/active_pairs.spv.h"
#include "shaders/pixels.spv.h"
#include "shaders/sensor_signals.spv.h"
#include "shaders/primary_bvh.spv.h"
#include "shaders/primary_rgen.spv.h"
#include "shaders/primary_rq.spv.h"
#include "shaders/paths_bvh.spv.h"
#include "shaders/paths_rgen.spv.h"
#include "shaders/paths_rq.spv.h"
#include "shaders/near_pairs.spv.h"
#include "shaders/history_from_lanes.spv.h"
#include "shaders/radiosity_far.spv.h"
#include "shaders/radiosity_far_lanes.spv.h"
#include "shaders/radiosity_near.spv.h"
#include "shaders/rt_closest_hit.spv.h"
#include "shaders/rt_miss.spv.h"
#include "shaders/visibility_bvh.spv.h"
#include "shaders/visibility_rgen.spv.h"
#include "shaders/visibility_rq.spv.h"
#include "shaders/visibility_clear_bvh.spv.h"
#include "shaders/visibility_clear_rgen.spv.h"
#include "shaders/visibility_clear_rq.spv.h"
#include "shaders/visibility_listed.spv.h"
#include "shaders/tile_shafts.spv.h"

namespace rsim::vk::shaders {
namespace {
template <std::size_t N> ShaderCode code(const std::uint32_t (&words)[N]) {
    return ShaderCode{words, N * sizeof(std::uint32_t)};
}
} // namespace

// A ray pass's build for the path.
#define RSIM_RAY_PASS(name, p)                                                                                 \
    ((p) == RayPath::RayQuery ? code(rsim_spv_##name##_rq)                                                     \
     : (p) == RayPath::Bvh    ? code(rsim_spv_##name##_bvh)                                                    \
                              : code(rsim_spv_##name##_rgen))

ShaderCode visibilityClearPairs(RayPath p) { return RSIM_RAY_PASS(visibility_clear, p); }
ShaderCode visibilityListed() { return code(rsim_spv_visibility_listed); }
ShaderCode visibility(RayPath p) { return RSIM_RAY_PASS(visibility, p); }
ShaderCode direct(RayPath p) { return RSIM_RAY_PASS(direct, p); }
ShaderCode primary(RayPath p) { return RSIM_RAY_PASS(primary, p); }
ShaderCode paths(RayPath p) { return RSIM_RAY_PASS(paths, p); }
#undef RSIM_RAY_PASS
ShaderCode rtMiss() { return code(rsim_spv_rt_miss); }
ShaderCode rtClosestHit() { return code(rsim_spv_rt_closest_hit); }
ShaderCode radiosityFar() { return code(rsim_spv_radiosity_far); }
ShaderCode radiosityFarLanes() { return code(rsim_spv_radiosity_far_lanes); }
ShaderCode radiosityNear() { return code(rsim_spv_radiosity_near); }
ShaderCode phasorsGather() { return code(rsim_spv_phasors_gather); }
ShaderCode phasorsTiled() { return code(rsim_spv_phasors_tiled); }
ShaderCode historyFromLanes() { return code(rsim_spv_history_from_lanes); }
ShaderCode nearPairs() { return code(rsim_spv_near_pairs); }
ShaderCode facingPairs() { return code(rsim_spv_facing_pairs); }
ShaderCode nearLaunch() { return code(rsim_spv_near_launch); }
ShaderCode activePairs() { return code(rsim_spv_active_pairs); }
ShaderCode tileShafts() { return code(rsim_spv_tile_shafts); }
ShaderCode distances() { return code(rsim_spv_distances); }
ShaderCode pixels() { return code(rsim_spv_pixels); }
ShaderCode sensorSignals() { return code(rsim_spv_sensor_signals); }
ShaderCode formFactorSums() { return code(rsim_spv_formfactor_sums); }
ShaderCode kEncode() { return code(rsim_spv_kencode); }
ShaderCode kCompact() { return code(rsim_spv_kcompact); }
ShaderCode formulaProbe() { return code(rsim_spv_formula_probe); }

} // namespace rsim::vk::shaders
