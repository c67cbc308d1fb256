// SPDX-License-Identifier: MIT
#include "scene/duplicate_faces.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <unordered_set>

namespace rsim {
namespace {

using Key = std::array<std::int64_t, 9>;

struct KeyHash {
    std::size_t operator()(const Key& k) const {
        std::uint64_t h = 1469598103934665603ull;
        for (std::int64_t v : k) h = (h ^ std::uint64_t(v)) * 1099511628211ull;
        return std::size_t(h);
    }
};

} // namespace

std::uint64_t dropDuplicateFaces(LoadedGeometry& g) {
    const std::size_t n = g.v0.size();
    if (n < 2) return 0;
    glm::dvec3 lo(1e300), hi(-1e300);
    for (std::size_t i = 0; i < n; ++i)
        for (const glm::dvec3& v : {g.v0[i], g.v1[i], g.v2[i]}) {
            lo = glm::min(lo, v);
            hi = glm::max(hi, v);
        }
    const double grid = kDuplicateGridRel * std::max(glm::length(hi - lo), 1e-300);
    auto q = [&](const glm::dvec3& v) {
        return std::array<std::int64_t, 3>{std::llround((v.x - lo.x) / grid), std::llround((v.y - lo.y) / grid),
                                           std::llround((v.z - lo.z) / grid)};
    };
    std::unordered_set<Key, KeyHash> seen;
    seen.reserve(n);
    std::size_t out = 0;
    for (std::size_t i = 0; i < n; ++i) {
        std::array<std::array<std::int64_t, 3>, 3> p = {q(g.v0[i]), q(g.v1[i]), q(g.v2[i])};
        // The cyclic rotation that starts at the smallest vertex: the same face, however listed.
        const std::size_t first = std::size_t(std::min_element(p.begin(), p.end()) - p.begin());
        std::rotate(p.begin(), p.begin() + std::ptrdiff_t(first), p.end());
        Key key;
        for (std::size_t k = 0; k < 9; ++k) key[k] = p[k / 3][k % 3];
        if (!seen.insert(key).second) continue;
        g.v0[out] = g.v0[i];
        g.v1[out] = g.v1[i];
        g.v2[out] = g.v2[i];
        g.material[out] = g.material[i];
        g.sourceMesh[out] = g.sourceMesh[i];
        ++out;
    }
    const std::uint64_t dropped = n - out;
    for (auto* v : {&g.v0, &g.v1, &g.v2}) v->resize(out);
    g.material.resize(out);
    g.sourceMesh.resize(out);
    return dropped;
}

} // namespace rsim
