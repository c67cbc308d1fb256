// SPDX-License-Identifier: MIT
#include "visibility/scene_shafts.h"

#include <spdlog/spdlog.h>

#include "accel/tile_lists.h"
#include "geometry/edge_neighbours.h"
#include "util/timer.h"

namespace rsim {

std::shared_ptr<const SceneShafts> buildSceneShafts(const PreparedScene& s, std::uint32_t sampleLimit) {
    Stopwatch sw;
    auto out = std::make_shared<SceneShafts>();
    out->bvh = ShaftBvh::build(s);
    out->edges = edgeNeighbours(s);
    if (sampleLimit > 0) {
        out->sampleLimit = sampleLimit;
        out->listedShare = listedPairShare(s, out->bvh, sampleLimit, kTileSample);
    }
    out->triangles = s.v0.data();
    out->n = s.size();
    spdlog::debug("rsim's BVH ({} nodes), the edge neighbours{} in {:.4f} s", out->bvh.nodes.size(),
                  sampleLimit > 0 ? " and the tiles' sample" : "", sw.seconds());
    return out;
}

} // namespace rsim
