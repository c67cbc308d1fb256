// SPDX-License-Identifier: MIT
// Direct terms on the CPU with Embree shadow rays, and the delays of every backend (direct/cpu_direct.h).
#include "direct/cpu_direct.h"

#include <glm/geometric.hpp>

#include "util/parallel.h"

namespace rsim {

void computeDelays(const PreparedScene& s, const SimConfig& c, DirectTerms& out) {
    const std::size_t n = s.size();
    out.tLight.resize(n);
    out.tSensor.resize(n);
    const glm::dvec3 pL(c.light.position), pS(c.sensor.position);
    for (std::size_t i = 0; i < n; ++i) {
        const glm::dvec3 ci(s.centroid[i]);
        out.tLight[i] = float(c.steps(glm::length(pL - ci)));
        out.tSensor[i] = float(c.steps(glm::length(ci - pS)));
    }
}

DirectTerms computeDirectCpu(const PreparedScene& s, const SimConfig& c, const EmbreeScene& rays) {
    const std::size_t n = s.size();
    DirectTerms out;
    out.irradiance.assign(n, 0.0f);
    out.importance.assign(n, 0.0f);
    computeDelays(s, c, out);
    std::vector<std::uint64_t> shadowRays(threadCount(), 0);
    parallelFor(n, 256, [&](std::size_t begin, std::size_t end, unsigned w) {
        std::uint64_t cast = 0;
        for (std::size_t i = begin; i < end; ++i) {
            const shared::Tri t = s.tri(i);
            float irr = 0.0f, imp = 0.0f;
            for (std::uint32_t k = 0; k < c.directSamples; ++k)
                for (bool towardsSensor : {false, true}) {
                    const shared::RaySegment seg = shared::rsimDirectSample(t, s.normal[i], s.id[i], k, towardsSensor,
                                                                            c.light, c.sensor, c.seed, s.rayEps);
                    if (!(seg.weight > 0.0f)) continue; // also NaN
                    ++cast;
                    if (!rays.occluded(seg.origin, seg.dir, seg.tmin, seg.tmax)) (towardsSensor ? imp : irr) += seg.weight;
                }
            out.irradiance[i] = irr / float(c.directSamples);
            out.importance[i] = imp / float(c.directSamples);
        }
        shadowRays[w] += cast;
    });
    for (auto r : shadowRays) out.shadowRays += r;
    return out;
}

} // namespace rsim
