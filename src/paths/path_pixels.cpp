// SPDX-License-Identifier: MIT
// A path-traced pixel's outputs (paths/path_pixels.h).
#include "paths/path_pixels.h"

#include <algorithm>

#include <glm/geometric.hpp>

#include "rsim/shared/physics.h"
#include "rsim/shared/primary_hit.h"

namespace rsim {

PathPixels::PathPixels(const PreparedScene& s, const SimConfig& c) : s_(s), c_(c), out_(c, 0) {}

std::int64_t PathPixels::facing(std::uint32_t i, const glm::vec3& dir) const {
    if (shared::rsimSeesTwin(s_.normal[i], dir, s_.twin[i])) i = s_.twin[i];
    return glm::dot(s_.normal[i], dir) < 0.0f ? std::int64_t(i) : -1;
}

void PathPixels::finish(std::size_t p, std::int64_t hitTriangle, float hitT, const float* total,
                        const float* direct, std::vector<float>& noisy) {
    const std::uint32_t px = std::uint32_t(p % c_.width), py = std::uint32_t(p / c_.width);
    const glm::vec3 centre = shared::rsimPixelDirection(c_.sensor, px, py, c_.width, c_.height);
    float reflectanceSeen = 0.0f;
    if (hitTriangle >= 0) {
        const std::int64_t seen = facing(std::uint32_t(hitTriangle), centre);
        out_.hit(p, std::uint32_t(seen >= 0 ? seen : hitTriangle), hitT);
        if (seen >= 0) reflectanceSeen = s_.reflectance[std::size_t(seen)];
    }
    // A pixel none of whose paths found light, whose centre sees nothing, is left as the
    // radiosity pipeline leaves a pixel that sees nothing.
    if (hitTriangle < 0 && std::all_of(total, total + c_.timesteps, [](float v) { return v == 0.0f; })) return;
    out_.directFrom(p, centre, direct);
    out_.from(p, centre, total, reflectanceSeen, noisy);
}

} // namespace rsim
