// SPDX-License-Identifier: MIT
// Measured before it is built: how many of K's rays would a pair's last blocker answer? A pair's
// rays (both sides, MODEL.md section 2) run between the same two triangles, so a triangle that
// blocked one of them is likely to block the next; testing that one triangle first (an exact
// segment-triangle test) costs a few hundred lane-cycles where a traversal of the scene's BVH
// costs some twenty thousand on a GPU without ray-tracing cores. For sampled facing pairs, the
// pair's segments are traced in order with Embree (the closest hit stands in for the GPU's first
// hit), and a cache of the last 1, 2 or 4 blockers (reset where the GPU starts a new invocation:
// a near pair's parts) is tested before each trace. Prints the share of rays each cache answers,
// Embree's time per ray for the rays a cache would answer, the other blocked rays and the open
// ones, and the rays the blocker rounds (shaders/visibility.glsl) would trace over the first S/2
// samples per side, with and without the blockers' edge neighbours (geometry/edge_neighbours.h).
// Not part of the build; with build/ built (its LINK_LIBRARIES are the libraries rsim links):
//
//   libs=$(sed -n 's/^  LINK_LIBRARIES = //p' build/build.ninja | head -1 | sed 's#src/lib#build/src/lib#')
//   g++ -std=c++20 -O2 -DGLM_ENABLE_EXPERIMENTAL -DGLM_FORCE_XYZW_ONLY -DFMT_SHARED -DSPDLOG_COMPILED_LIB
//       -DSPDLOG_FMT_EXTERNAL -DSPDLOG_SHARED_LIB -DVK_NO_PROTOTYPES -DTOML_HEADER_ONLY=0 -DTOML_SHARED_LIB=1
//       -Isrc -Iinclude -Ibuild/generated -isystem /usr/include/hdf5/serial scripts/occluder_cache_study.cpp
//       -o /tmp/occluder_cache_study $libs -lminizip          (one command)
//   /tmp/occluder_cache_study scenes/generated/industry/scene.toml [MAX_EDGE_M=scene's] [S=16] [PAIRS=20000]
#include <chrono>
#include <cstdio>
#include <map>
#include <array>
#include <cstdlib>
#include <random>
#include <vector>

#include "accel/embree_scene.h"
#include "core/sim_config.h"
#include "geometry/prepare.h"
#include "rsim/shared/form_factor.h"
#include "rsim/shared/tile_shaft.h"
#include "scene/mesh_loader.h"
#include "scene/scene_desc.h"

using namespace rsim;

namespace {
// A cache of the last `size` distinct blockers, newest first.
struct Cache {
    int size;
    int entries[4] = {-1, -1, -1, -1};
    void reset() { entries[0] = entries[1] = entries[2] = entries[3] = -1; }
    bool answers(const PreparedScene& s, const shared::RaySegment& seg) const {
        for (int k = 0; k < size; ++k)
            if (entries[k] >= 0) {
                const shared::Tri t = s.tri(std::size_t(entries[k]));
                if (shared::rsimSegmentHits(seg, t.v0, t.v1, t.v2)) return true;
            }
        return false;
    }
    void add(int t) {
        for (int k = size - 1; k > 0; --k) entries[k] = entries[k - 1];
        entries[0] = t;
    }
};
} // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: occluder_cache_study SCENE.toml [MAX_EDGE_M] [S=16] [PAIRS=20000]\n");
        return 2;
    }
    const SceneDesc scene = loadSceneFile(argv[1], {});
    const double maxEdge = argc > 2 && std::atof(argv[2]) > 0 ? std::atof(argv[2]) : scene.sim.max_edge_m;
    const std::uint32_t S = argc > 3 ? std::uint32_t(std::atoi(argv[3])) : 16;
    const std::uint64_t wanted = argc > 4 ? std::uint64_t(std::atoll(argv[4])) : 20000;
    const PreparedScene s = prepareScene(loadMeshes(scene), maxEdge);
    const EmbreeScene rays(s);
    // Edge neighbours: triangles that share an edge's two vertices exactly.
    std::vector<std::array<int, 3>> neighbours(s.size(), {-1, -1, -1});
    {
        std::map<std::array<float, 6>, std::vector<std::pair<int, int>>> edges;
        for (std::size_t t = 0; t < s.size(); ++t) {
            const shared::Tri tr = s.tri(t);
            const glm::vec3 v[3] = {tr.v0, tr.v1, tr.v2};
            for (int e = 0; e < 3; ++e) {
                glm::vec3 a = v[e], b = v[(e + 1) % 3];
                if (std::make_tuple(b.x, b.y, b.z) < std::make_tuple(a.x, a.y, a.z)) std::swap(a, b);
                edges[{a.x, a.y, a.z, b.x, b.y, b.z}].push_back({int(t), e});
            }
        }
        for (const auto& [key, list] : edges)
            if (list.size() == 2) {
                neighbours[std::size_t(list[0].first)][std::size_t(list[0].second)] = list[1].first;
                neighbours[std::size_t(list[1].first)][std::size_t(list[1].second)] = list[0].first;
            }
    }
    KSettings ks;
    ks.samples = S;
    const shared::KSampling k = kSampling(ks, s.rayEps);
    const std::uint32_t n = std::uint32_t(s.size());
    std::mt19937_64 rng(1);
    std::uniform_int_distribution<std::uint32_t> pick(0, n - 1);
    const int sizes[] = {1, 2, 4};
    std::vector<shared::RaySegment> groups[3]; // answered by the 4-cache, blocked otherwise, open
    std::uint64_t roundsTraced = 0, roundsNbTraced = 0;
    std::uint64_t pairs = 0, nearPairs = 0, zeroPairs = 0, cast = 0, blocked = 0, answered[3] = {0, 0, 0};
    while (pairs < wanted) {
        const std::uint32_t i = pick(rng), j = pick(rng);
        if (i == j || !shared::rsimCanFace(s.tri(i), s.normal[i], s.tri(j), s.normal[j])) continue;
        const std::uint32_t a = std::min(i, j), b = std::max(i, j);
        const shared::Tri ta = s.tri(a), tb = s.tri(b);
        const std::uint32_t perSide = shared::rsimKSamplesPerSide(k, ta, tb);
        const std::uint32_t base = shared::rsimKBaseSamplesPerSide(S);
        const bool share = shared::rsimShareVertex(ta, tb);
        // The GPU's invocations: the first `base` samples of both sides, then 16 parts.
        std::vector<std::pair<std::uint32_t, std::uint32_t>> runs{{0, base}};
        for (std::uint32_t p = 0; perSide > base && p < 16; ++p)
            runs.push_back({base + (perSide - base) * p / 16, base + (perSide - base) * (p + 1) / 16});
        Cache caches[3] = {{1}, {2}, {4}};
        bool anyOpen = false;
        for (const auto& [s0, s1] : runs) {
            for (Cache& c : caches) c.reset();
            for (int side = 0; side < 2; ++side) {
                const std::uint32_t e = side == 0 ? a : b, o = side == 0 ? b : a;
                const glm::vec4 offset = shared::rsimKSideOffset(s.id[e], s.id[o], k.seed);
                const glm::uvec2 stride = shared::rsimKSideStride(k, perSide, s.id[e], s.id[o]);
                for (std::uint32_t m = s0; m < s1; ++m) {
                    const shared::RaySegment seg = shared::rsimKSideSample(
                        s.tri(e), s.normal[e], s.tri(o), s.normal[o], s.area[o], share, m, stride, offset, k.eps);
                    if (seg.weight <= 0.0f) continue;
                    ++cast;
                    const EmbreeScene::Hit hit = rays.intersect(seg.origin, seg.dir, seg.tmin, seg.tmax);
                    if (hit.triangle >= 0) ++blocked;
                    else anyOpen = true;
                    groups[caches[2].answers(s, seg) ? 0 : hit.triangle >= 0 ? 1 : 2].push_back(seg);
                    for (int c = 0; c < 3; ++c) {
                        if (caches[c].answers(s, seg)) {
                            ++answered[c];
                        } else if (hit.triangle >= 0) {
                            caches[c].add(hit.triangle);
                        }
                    }
                }
            }
        }
        // Rounds (the GPU's blocker rounds) over the first `base` samples per side: trace the first
        // pending ray; test the others against its blocker (and, in the second policy, the
        // blocker's edge neighbours).
        for (int policy = 0; policy < 2; ++policy) {
            std::vector<shared::RaySegment> segs;
            for (int side = 0; side < 2; ++side) {
                const std::uint32_t e = side == 0 ? a : b, o = side == 0 ? b : a;
                const glm::vec4 offset = shared::rsimKSideOffset(s.id[e], s.id[o], k.seed);
                const glm::uvec2 stride = shared::rsimKSideStride(k, perSide, s.id[e], s.id[o]);
                for (std::uint32_t m = 0; m < base; ++m) {
                    const shared::RaySegment seg = shared::rsimKSideSample(
                        s.tri(e), s.normal[e], s.tri(o), s.normal[o], s.area[o], share, m, stride, offset, k.eps);
                    if (seg.weight > 0.0f) segs.push_back(seg);
                }
            }
            std::vector<bool> pending(segs.size(), true);
            for (std::size_t r = 0; r < segs.size(); ++r) {
                if (!pending[r]) continue;
                pending[r] = false;
                (policy == 0 ? roundsTraced : roundsNbTraced) += 1;
                const EmbreeScene::Hit hit = rays.intersect(segs[r].origin, segs[r].dir, segs[r].tmin, segs[r].tmax);
                if (hit.triangle < 0) continue;
                std::vector<int> tests{hit.triangle};
                if (policy == 1)
                    for (int nb : neighbours[std::size_t(hit.triangle)])
                        if (nb >= 0) tests.push_back(nb);
                for (std::size_t q = r + 1; q < segs.size(); ++q)
                    if (pending[q])
                        for (int t : tests) {
                            const shared::Tri tr = s.tri(std::size_t(t));
                            if (shared::rsimSegmentHits(segs[q], tr.v0, tr.v1, tr.v2)) {
                                pending[q] = false;
                                break;
                            }
                        }
            }
        }
        ++pairs;
        if (perSide > base) ++nearPairs;
        if (!anyOpen) ++zeroPairs;
    }
    std::printf("%s: N = %u, S = %u, %llu facing pairs sampled (%llu near), %.1f%% with every ray blocked\n",
                argv[1], n, S, (unsigned long long)pairs, (unsigned long long)nearPairs,
                100.0 * double(zeroPairs) / double(pairs));
    std::printf("rays %llu, blocked %.1f%%\n", (unsigned long long)cast, 100.0 * double(blocked) / double(cast));
    for (int c = 0; c < 3; ++c)
        std::printf("cache of %d blocker(s): answers %.1f%% of the rays (%.1f%% of the blocked)\n", sizes[c],
                    100.0 * double(answered[c]) / double(cast), 100.0 * double(answered[c]) / double(blocked));
    const char* names[3] = {"answered by 4 blockers", "blocked, not answered", "open"};
    for (int g = 0; g < 3; ++g) {
        const auto t0 = std::chrono::steady_clock::now();
        std::uint64_t hits = 0;
        for (int r = 0; r < 5; ++r)
            for (const shared::RaySegment& seg : groups[g]) hits += rays.occluded(seg.origin, seg.dir, seg.tmin, seg.tmax);
        const double ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count() /
                          (5.0 * double(groups[g].size()));
        std::printf("Embree occluded1, %s: %zu rays, %.0f ns a ray\n", names[g], groups[g].size(), ns);
    }
    std::printf("rounds: %llu rays traced; with the blockers' edge neighbours: %llu (%.1f%% fewer)\n",
                (unsigned long long)roundsTraced, (unsigned long long)roundsNbTraced,
                100.0 * (1.0 - double(roundsNbTraced) / double(roundsTraced)));
    return 0;
}
