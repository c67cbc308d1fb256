// SPDX-License-Identifier: MIT
// Issue 18's next step, measured before it is built: how long would the occluder candidate
// lists of *tiles* of pairs be? For sampled tiles (a block of B rows x a block of B columns of
// the triangles in Morton order), the union of the exact candidate sets of the tile's facing
// pairs (ShaftBvh's test of each pair's shaft): the shortest list a query per tile could give,
// which a tile's rays would then test instead of a BVH. Prints the share of facing pairs (and
// of tiles) whose tile list is at most 0, 8, ... 1024 triangles. Not part of the build; with
// build/ built (its LINK_LIBRARIES are the libraries rsim links):
//
//   libs=$(sed -n 's/^  LINK_LIBRARIES = //p' build/build.ninja | head -1 | sed 's#src/lib#build/src/lib#')
//   g++ -std=c++20 -O2 -DGLM_ENABLE_EXPERIMENTAL -DGLM_FORCE_XYZW_ONLY -DFMT_SHARED -DSPDLOG_COMPILED_LIB
//       -DSPDLOG_FMT_EXTERNAL -DSPDLOG_SHARED_LIB -DVK_NO_PROTOTYPES -DTOML_HEADER_ONLY=0 -DTOML_SHARED_LIB=1
//       -Isrc -Iinclude -Ibuild/generated -isystem /usr/include/hdf5/serial scripts/shaft_tile_study.cpp
//       -o /tmp/shaft_tile_study $libs -lminizip          (one command)
//   /tmp/shaft_tile_study scenes/generated/medium-room/scene.toml 8 1000
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <set>
#include <vector>

#include "accel/shaft_bvh.h"
#include "accel/tile_lists.h"
#include "geometry/prepare.h"
#include "rsim/shared/form_factor.h"
#include "scene/mesh_loader.h"
#include "scene/scene_desc.h"

using namespace rsim;

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: shaft_tile_study SCENE.toml [BLOCK=32] [TILES=200]\n");
        return 2;
    }
    const std::uint32_t B = argc > 2 ? std::uint32_t(std::atoi(argv[2])) : 32;
    const std::uint32_t tiles = argc > 3 ? std::uint32_t(std::atoi(argv[3])) : 200;
    const SceneDesc scene = loadSceneFile(argv[1], {});
    const PreparedScene s = prepareScene(loadMeshes(scene), scene.sim.max_edge_m);
    const ShaftBvh bvh = ShaftBvh::build(s);
    const float eps = shaftEps(s);
    const std::uint32_t n = std::uint32_t(s.size()), blocks = (n + B - 1) / B;
    std::mt19937 rng(1);
    std::uniform_int_distribution<std::uint32_t> pick(0, blocks - 1);
    struct Tile {
        std::uint64_t pairs;
        std::size_t list;
        double ownMean;
        std::size_t shaftList; // what the tile's shaft query returns (tile_lists.h)
    };
    std::vector<Tile> sampled;
    std::uint64_t pairsAll = 0;
    for (std::uint32_t t = 0; t < tiles; ++t) {
        const std::uint32_t I = pick(rng), J = pick(rng);
        std::set<std::uint32_t> list;
        std::uint64_t pairs = 0, own = 0;
        for (std::uint32_t i = I * B; i < std::min(n, (I + 1) * B); ++i)
            for (std::uint32_t j = J * B; j < std::min(n, (J + 1) * B); ++j) {
                if (i == j || !shared::rsimCanFace(s.tri(i), s.normal[i], s.tri(j), s.normal[j])) continue;
                const shared::Shaft sh = shared::rsimShaftBuild(s.tri(i), s.normal[i], s.tri(j), s.normal[j], eps);
                bvh.forEachCandidate(s, sh, i, j, eps, [&](std::uint32_t c) {
                    list.insert(c);
                    ++own;
                    return true;
                });
                ++pairs;
            }
        if (!pairs) continue;
        const std::uint32_t r0 = I * B, r1 = std::min(n, r0 + B), c0 = J * B, c1 = std::min(n, c0 + B);
        sampled.push_back({pairs, list.size(), double(own) / double(pairs),
                           tileCandidates(s, bvh, r0, r1, c0, c1, eps).size()});
        pairsAll += pairs;
    }
    std::printf("%s: N = %u, blocks of %u, %zu of %u sampled tiles with facing pairs, %llu pairs\n", argv[1], n, B,
                sampled.size(), tiles, static_cast<unsigned long long>(pairsAll));
    for (std::size_t limit : {0, 8, 16, 32, 64, 128, 256, 512, 1024}) {
        std::uint64_t pairs = 0, count = 0, shaftPairs = 0;
        for (const Tile& t : sampled) {
            if (t.list <= limit) {
                pairs += t.pairs;
                ++count;
            }
            if (t.shaftList <= limit) shaftPairs += t.pairs;
        }
        std::printf("  tile list <= %4zu: %5.1f%% of pairs, %5.1f%% of tiles; tile shaft's list: %5.1f%% of pairs\n",
                    limit, 100.0 * double(pairs) / double(pairsAll), 100.0 * double(count) / double(sampled.size()),
                    100.0 * double(shaftPairs) / double(pairsAll));
    }
    double own = 0.0, list = 0.0, shaftList = 0.0;
    for (const Tile& t : sampled) {
        own += t.ownMean * double(t.pairs);
        list += double(t.list) * double(t.pairs);
        shaftList += double(t.shaftList) * double(t.pairs);
    }
    std::printf("  mean over pairs: the pair's own list %.1f, its tile's union %.1f, its tile shaft's list %.1f\n",
                own / double(pairsAll), list / double(pairsAll), shaftList / double(pairsAll));
    return 0;
}
