// SPDX-License-Identifier: MIT
// The loaded triangles prepared for the phases (MODEL §1): subdivided, twinned, stable ids in
// Morton order.
#include "geometry/prepare.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include <glm/geometric.hpp>
#include <spdlog/spdlog.h>

#include "util/error.h"

namespace rsim {

std::uint64_t mortonCode(double x, double y, double z) {
    auto spread = [](std::uint64_t v) { // 21 bits -> every third bit of 63
        v &= 0x1fffff;
        v = (v | v << 32) & 0x1f00000000ffffULL;
        v = (v | v << 16) & 0x1f0000ff0000ffULL;
        v = (v | v << 8) & 0x100f00f00f00f00fULL;
        v = (v | v << 4) & 0x10c30c30c30c30c3ULL;
        v = (v | v << 2) & 0x1249249249249249ULL;
        return v;
    };
    auto quantise = [](double t) {
        return std::uint64_t(std::clamp(t, 0.0, 1.0) * double((1u << 21) - 1) + 0.5);
    };
    return spread(quantise(x)) | spread(quantise(y)) << 1 | spread(quantise(z)) << 2;
}

namespace {

struct DTri {
    glm::dvec3 a, b, c;
};

// Longest-edge bisection until no edge is longer than maxEdge; children in depth-first order,
// winding preserved.
void subdivide(const DTri& t, double maxEdge2, std::vector<DTri>& out, std::size_t limit) {
    std::vector<DTri> stack{t};
    while (!stack.empty()) {
        DTri x = stack.back();
        stack.pop_back();
        double l01 = glm::dot(x.b - x.a, x.b - x.a);
        double l12 = glm::dot(x.c - x.b, x.c - x.b);
        double l20 = glm::dot(x.a - x.c, x.a - x.c);
        double longest = std::max({l01, l12, l20});
        if (maxEdge2 <= 0.0 || longest <= maxEdge2) {
            out.push_back(x);
            if (out.size() > limit) return;
            continue;
        }
        // Rotate so that a-b is the longest edge (keeps the winding).
        // Ties go to the first of (v1v2, v0v1, v2v0), as docs/model-choices.md says.
        if (longest == l12) x = DTri{x.b, x.c, x.a};
        else if (longest == l20 && longest != l01) x = DTri{x.c, x.a, x.b};
        glm::dvec3 m = 0.5 * (x.a + x.b);
        // Push the second child first so that the first is processed first (depth-first).
        stack.push_back(DTri{m, x.b, x.c});
        stack.push_back(DTri{x.a, m, x.c});
    }
}

// The triangles after subdivision and twins, in stable-id order, each with its material, its
// source mesh and its twin.
struct Subdivided {
    std::vector<DTri> tris;
    std::vector<std::uint32_t> triMaterial, triMesh;
    std::vector<std::int64_t> triTwin; // index into tris of the twin, -1 if none
};

// Every loaded triangle subdivided, followed by the reversed twins of its children where its
// material is two-sided (counted in `counts.twins`).
Subdivided subdivideAll(const LoadedGeometry& g, double maxEdgeM, std::size_t maxTriangles,
                        SceneCounts& counts) {
    Subdivided out;
    auto& [tris, triMaterial, triMesh, triTwin] = out;
    std::vector<DTri> children;
    const double maxEdge2 = maxEdgeM > 0.0 ? maxEdgeM * maxEdgeM : 0.0;
    for (std::size_t t = 0; t < g.v0.size(); ++t) {
        children.clear();
        subdivide(DTri{g.v0[t], g.v1[t], g.v2[t]}, maxEdge2, children, maxTriangles);
        const bool twin = g.materials[g.material[t]].twoSided;
        const std::size_t first = tris.size();
        for (int side = 0; side < (twin ? 2 : 1); ++side) {
            for (std::size_t k = 0; k < children.size(); ++k) {
                const DTri& c = children[k];
                tris.push_back(side == 0 ? c : DTri{c.a, c.c, c.b});
                triMaterial.push_back(g.material[t]);
                triMesh.push_back(g.sourceMesh[t]);
                triTwin.push_back(!twin ? -1
                                        : std::int64_t(first + (side == 0 ? children.size() + k : k)));
                if (side == 1) ++counts.twins;
            }
        }
        if (tris.size() > maxTriangles)
            throw InputError("the scene would have more than " + std::to_string(maxTriangles) +
                             " triangles after subdivision (max_edge_m = " +
                             std::to_string(maxEdgeM) +
                             "); K alone would not fit any machine. Use a larger max_edge_m.");
    }
    return out;
}

// A triangle with its per-triangle quantities.
struct Item {
    DTri t;
    glm::dvec3 n, c;
    double area;
    std::uint32_t material, mesh;
    std::int64_t twin; // index into items, -1 if none
};

// Per-triangle quantities, dropping triangles that subdivision made degenerate (counted in
// `counts.droppedDegenerate`).
std::vector<Item> usableItems(const Subdivided& sub, SceneCounts& counts) {
    const auto& [tris, triMaterial, triMesh, triTwin] = sub;
    std::vector<Item> items;
    items.reserve(tris.size());
    std::vector<std::int64_t> itemOf(tris.size(), -1);
    for (std::size_t k = 0; k < tris.size(); ++k) {
        const DTri& t = tris[k];
        glm::dvec3 cr = glm::cross(t.b - t.a, t.c - t.a);
        double area = 0.5 * glm::length(cr);
        if (!(area >= 1e-12)) {
            ++counts.droppedDegenerate;
            continue;
        }
        itemOf[k] = std::int64_t(items.size());
        items.push_back(Item{t, cr / (2.0 * area), (t.a + t.b + t.c) / 3.0, area, triMaterial[k],
                             triMesh[k], triTwin[k]});
    }
    for (Item& it : items) // tris indices -> items indices (a twin is dropped with its original)
        it.twin = it.twin < 0 ? -1 : itemOf[std::size_t(it.twin)];
    if (items.empty()) throw InputError("the scene has no usable triangles after subdivision");
    return items;
}

// Bounds and ray offset into `s`; returns the order of the items along a Morton curve through
// the cube that holds their centroids (ties in their order).
std::vector<std::uint32_t> boundsAndMortonOrder(const std::vector<Item>& items, PreparedScene& s) {
    const std::size_t n = items.size();
    // Bounds and ray offset.
    glm::dvec3 lo(INFINITY), hi(-INFINITY), clo(INFINITY), chi(-INFINITY);
    for (const Item& it : items) {
        for (const glm::dvec3& v : {it.t.a, it.t.b, it.t.c}) {
            lo = glm::min(lo, v);
            hi = glm::max(hi, v);
        }
        clo = glm::min(clo, it.c);
        chi = glm::max(chi, it.c);
    }
    s.boundsMin = glm::vec3(lo);
    s.boundsMax = glm::vec3(hi);
    s.diagonal = float(glm::length(hi - lo));
    s.rayEps = shared::RSIM_RAY_EPS_REL * s.diagonal;

    // Morton order of the centroids in the cube that holds them.
    const double extent = std::max({chi.x - clo.x, chi.y - clo.y, chi.z - clo.z, 1e-30});
    std::vector<std::uint64_t> code(n);
    for (std::size_t k = 0; k < n; ++k) {
        glm::dvec3 u = (items[k].c - clo) / extent;
        code[k] = mortonCode(u.x, u.y, u.z);
    }
    std::vector<std::uint32_t> perm(n);
    std::iota(perm.begin(), perm.end(), 0u);
    std::stable_sort(perm.begin(), perm.end(),
                     [&](std::uint32_t a, std::uint32_t b) { return code[a] < code[b]; });
    return perm;
}

// The items in the order `perm` (internal index i is item perm[i], stable id perm[i]) as the
// prepared scene's arrays, with the maps between ids and internal indices and the twins.
void storeInMortonOrder(const std::vector<Item>& items, const std::vector<std::uint32_t>& perm,
                        const LoadedGeometry& g, PreparedScene& s) {
    const std::size_t n = items.size();
    s.v0.resize(n);
    s.v1.resize(n);
    s.v2.resize(n);
    s.normal.resize(n);
    s.centroid.resize(n);
    s.area.resize(n);
    s.reflectance.resize(n);
    s.id.resize(n);
    s.internalOf.resize(n);
    s.sourceMeshOfId.resize(n);
    s.materialOfId.resize(n);
    for (const ResolvedMaterial& m : g.materials) {
        s.materialNames.push_back(m.name);
        s.materialModels.push_back(m.model);
    }
    s.twin.assign(n, PreparedScene::kNoTwin);
    for (std::size_t i = 0; i < n; ++i) {
        const Item& it = items[perm[i]];
        s.v0[i] = glm::vec3(it.t.a);
        s.v1[i] = glm::vec3(it.t.b);
        s.v2[i] = glm::vec3(it.t.c);
        s.normal[i] = glm::vec3(it.n);
        s.centroid[i] = glm::vec3(it.c);
        s.area[i] = float(it.area);
        s.reflectance[i] = g.materials[it.material].reflectance;
        s.id[i] = perm[i];
        s.internalOf[perm[i]] = std::uint32_t(i);
        s.sourceMeshOfId[perm[i]] = it.mesh;
        s.materialOfId[perm[i]] = it.material;
    }
    for (std::size_t i = 0; i < n; ++i) {
        const std::int64_t t = items[perm[i]].twin;
        if (t >= 0) s.twin[i] = s.internalOf[std::size_t(t)];
    }
}

} // namespace

PreparedScene prepareScene(const LoadedGeometry& g, double maxEdgeM, std::size_t maxTriangles) {
    PreparedScene s;
    s.counts.loaded = g.loaded;
    s.counts.droppedDegenerate = g.droppedDegenerate;
    s.counts.droppedNonFinite = g.droppedNonFinite;
    s.counts.droppedDuplicate = g.droppedDuplicate;
    s.meshNames = g.meshNames;

    // Final triangles in stable-id order.
    const Subdivided sub = subdivideAll(g, maxEdgeM, maxTriangles, s.counts);
    const std::vector<Item> items = usableItems(sub, s.counts);
    const std::size_t n = items.size();
    s.counts.afterSubdivision = n;
    const std::vector<std::uint32_t> perm = boundsAndMortonOrder(items, s);
    storeInMortonOrder(items, perm, g, s);
    spdlog::info("geometry: {} triangles loaded, {} dropped ({} degenerate, {} non-finite, {} duplicated), {} "
                 "twins, {} after subdivision",
                 s.counts.loaded, s.counts.droppedDegenerate + s.counts.droppedNonFinite + s.counts.droppedDuplicate,
                 s.counts.droppedDegenerate, s.counts.droppedNonFinite, s.counts.droppedDuplicate, s.counts.twins, n);
    return s;
}

} // namespace rsim
