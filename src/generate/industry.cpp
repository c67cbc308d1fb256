// SPDX-License-Identifier: MIT
// `industry`: a 30 x 20 x 8 m warehouse hall (x along the length). Six rows of pallet racks
// run along x with a wide main aisle down the middle, where a forklift works; dock doors in
// the far wall, a window band high up, roof beams and hanging lights. The camera stands by
// the near wall looking down the main aisle.
#include <algorithm>
#include <array>

#include "generate/generators.h"
#include "generate/rng.h"

namespace rsim {
using glm::dvec3;

namespace {

constexpr double kL = 30.0, kW = 20.0, kH = 8.0;

void defineHallMaterials(MeshBuilder& b) {
    b.defineMaterial("hall_floor", 0.3); // concrete
    b.defineMaterial("hall_wall", 0.55); // sandwich panels
    b.defineMaterial("roof", 0.5);
    b.defineMaterial("steel", 0.45); // frames, beams, reveals
    b.defineMaterial("shutter", 0.5);
    b.defineMaterial("door", 0.45);
    b.defineMaterial("window_glass", 0.08);
    b.defineMaterial("rack_upright", 0.5);
    b.defineMaterial("rack_beam", 0.5);
    b.defineMaterial("pallet", 0.45); // wood
    b.defineMaterial("cardboard", 0.6);
    b.defineMaterial("stretch_wrap", 0.55);
    b.defineMaterial("floor_marking", 0.55);
    b.defineMaterial("forklift_paint", 0.45);
    b.defineMaterial("tyre", 0.05);
    b.defineMaterial("lamp", 0.7);
    b.defineMaterial("sign", 0.6, /*twoSided=*/true); // hanging aisle signs
}

// A pallet at the origin (0.8 x 1.2 m, long side along y), with a random load. On a rack's
// beams (raised) its underside is seen from the aisle.
void pallet(MeshBuilder& b, SceneRng& rng, double maxLoad, bool raised) {
    b.use("pallet");
    b.box({-0.4, -0.6, 0.11}, {0.4, 0.6, 0.145});
    for (double x : {-0.35, 0.0, 0.35})
        b.box({x - 0.05, -0.6, 0.0}, {x + 0.05, 0.6, 0.11}, kSidesOnly | (raised ? kFaceZNeg : 0u));
    const double z = 0.145;
    const double r = rng.unit();
    if (r < 0.15) return; // empty
    if (r < 0.6) {
        b.use(rng.chance(0.5) ? "cardboard" : "stretch_wrap");
        b.box({-0.39, -0.58, z}, {0.39, 0.58, z + rng.uniform(0.5, maxLoad)}, kNoBottom);
        return;
    }
    // Cartons in two columns by two rows, one or two layers.
    b.use("cardboard");
    const int layers = r < 0.85 ? 1 : 2;
    const double h = std::min(rng.uniform(0.28, 0.45), maxLoad / layers);
    for (int l = 0; l < layers; ++l)
        for (double x : {-0.2, 0.2})
            for (double y : {-0.3, 0.3})
                if (l == 0 || rng.chance(0.8))
                    b.box({x - 0.19, y - 0.285, z + l * h}, {x + 0.19, y + 0.285, z + (l + 1) * h},
                          kNoBottom);
}

// One rack row in its own frame: x from 0 along the row, the rack 1.1 m deep in y from 0,
// front (aisle side) at y = 0.
void rackRow(MeshBuilder& b, SceneRng& rng, int bays) {
    const double bay = 2.7, depth = 1.1, height = 6.0, u = 0.09;
    const std::array<double, 3> levels = {1.5, 3.0, 4.5};
    b.use("rack_upright");
    for (int f = 0; f <= bays; ++f)
        for (double y : {0.0, depth - u}) {
            const double x = f * bay;
            b.box({x - u / 2, y, 0.0}, {x + u / 2, y + u, height}, kNoBottom, 2.0);
        }
    for (int f = 0; f <= bays; ++f)
        for (double z : {0.3, 3.2}) // frame ties between front and back uprights
            b.box({f * bay - 0.02, u, z}, {f * bay + 0.02, depth - u, z + 0.05},
                  kAllFaces & ~(kFaceYNeg | kFaceYPos));
    b.use("rack_beam");
    for (int k = 0; k < bays; ++k)
        for (double z : levels)
            for (double y : {0.0, depth - 0.05})
                b.box({k * bay + u / 2, y, z - 0.12}, {(k + 1) * bay - u / 2, y + 0.05, z});
    for (int k = 0; k < bays; ++k)
        for (int level = 0; level <= int(levels.size()); ++level) {
            const double z = level == 0 ? 0.0 : levels[std::size_t(level - 1)];
            for (int p = 0; p < 3; ++p) {
                if (!rng.chance(0.75)) continue;
                auto at = b.place({k * bay + 0.45 + p * 0.9, depth / 2, z});
                pallet(b, rng, 1.1, level > 0);
            }
        }
}

// Counterbalance forklift in its own frame, forks towards +x.
void forklift(MeshBuilder& b, SceneRng& rng) {
    b.use("forklift_paint");
    b.box({-1.1, -0.55, 0.2}, {0.9, 0.55, 0.9}, kNoBottom);  // chassis
    b.box({-1.3, -0.55, 0.3}, {-1.1, 0.55, 1.3}, kNoBottom); // counterweight
    b.box({-0.7, -0.3, 0.9}, {-0.2, 0.3, 1.0}, kNoBottom);   // seat
    b.box({-0.3, -0.3, 1.0}, {-0.2, 0.3, 1.5}, kNoBottom);   // backrest
    b.use("steel");
    for (double x : {-0.9, 0.6})
        for (double y : {-0.5, 0.5})
            b.box({x - 0.03, y - 0.03, 0.9}, {x + 0.03, y + 0.03, 2.1}, kSidesOnly);
    b.box({-0.95, -0.55, 2.1}, {0.65, 0.55, 2.15}); // overhead guard
    for (double y : {-0.4, 0.4})
        b.box({0.95, y - 0.05, 0.1}, {1.05, y + 0.05, 2.5}, kNoBottom); // mast
    const double lift = rng.uniform(0.1, 1.2);
    b.box({1.05, -0.45, lift}, {1.1, 0.45, lift + 0.5}); // carriage
    for (double y : {-0.3, 0.3})
        b.box({1.1, y - 0.06, lift}, {2.2, y + 0.06, lift + 0.05}); // forks
    b.use("tyre");
    for (double side : {-1.0, 1.0}) {
        b.cylinder({0.55, side * 0.45, 0.3}, {0, side * 0.2, 0}, 0.3, 12);
        b.cylinder({-0.85, side * 0.45, 0.25}, {0, side * 0.2, 0}, 0.25, 12);
    }
}

// The frame of a rack row from x0 to x1 whose front (the frame's y = 0) is at y and faces the
// aisle on the +y side (facesUp) or the -y side.
MeshBuilder::Placement rackFrame(MeshBuilder& b, double x0, double x1, double y, bool facesUp) {
    if (facesUp) return b.place({x1, y, 0.0}, 180.0);
    return b.place({x0, y, 0.0}, 0.0);
}

} // namespace

ScenePlan generateIndustry(MeshBuilder& out, std::uint32_t seed, std::uint64_t target) {
    return buildToTarget(out, target, 0.1, 2.0, [seed](MeshBuilder& b, const Tessellation& t) {
        SceneRng rng(sceneSeed(seed, 6));
        const double cell = t.cell;
        defineHallMaterials(b);

        // Shell, facing inwards; walls go round as in the rooms: x = 0, y = W, x = L, y = 0.
        b.use("hall_floor");
        b.rect({0, 0, 0}, {kL, 0, 0}, {0, kW, 0}, cell);
        b.use("roof");
        b.rect({0, 0, kH}, {0, kW, 0}, {kL, 0, 0}, t.fillCell);
        auto windows = [](double length) {
            std::vector<Opening> w;
            for (double c = 3.0; c < length - 2.0; c += 6.0)
                w.push_back({c - 2.0, c + 2.0, 5.5, 7.0, 0.25, "window_glass", "steel"});
            return w;
        };
        b.use("hall_wall");
        b.wall({0, 0, 0}, {0, 1, 0}, {0, 0, 1}, kW, kH, cell,
               {{2.5, 3.5, 0.0, 2.1, 0.15, "door", "steel"}});
        b.wall({0, kW, 0}, {1, 0, 0}, {0, 0, 1}, kL, kH, cell, windows(kL));
        b.wall({kL, kW, 0}, {0, -1, 0}, {0, 0, 1}, kW, kH, cell,
               {{4.5, 8.0, 0.0, 4.5, 0.3, "shutter", "steel"},
                {12.0, 15.5, 0.0, 4.5, 0.3, "shutter", "steel"}});
        b.wall({kL, 0, 0}, {-1, 0, 0}, {0, 0, 1}, kL, kH, cell, windows(kL));

        // Pilasters between the windows and roof beams spanning the hall.
        b.use("steel");
        for (double x = 6.0; x < kL - 1.0; x += 6.0) {
            b.box({x - 0.2, 0.0, 0.0}, {x + 0.2, 0.3, kH}, kFaceXNeg | kFaceXPos | kFaceYPos, 1.0);
            b.box({x - 0.2, kW - 0.3, 0.0}, {x + 0.2, kW, kH}, kFaceXNeg | kFaceXPos | kFaceYNeg,
                  1.0);
            b.box({x - 0.15, 0.3, kH - 0.6}, {x + 0.15, kW - 0.3, kH}, kAllFaces & ~kFaceZPos, 1.0);
        }

        // Rack rows: single rows along the long walls, two back-to-back pairs in between.
        const int bays = 7;
        const double x0 = 4.0;
        struct Row {
            double y;     // front edge
            bool facesUp; // front towards +y
        };
        for (const Row& row : {Row{1.5, true}, Row{4.2, false}, Row{6.6, true}, Row{13.4, false},
                               Row{15.8, true}, Row{18.5, false}}) {
            auto p = rackFrame(b, x0, x0 + bays * 2.7, row.y, row.facesUp);
            rackRow(b, rng, bays);
        }

        // Main aisle: lane markings, a forklift and pallets staged by the dock doors.
        b.use("floor_marking");
        for (double y : {6.8, 13.1})
            b.rect({2.0, y, 0.005}, {kL - 4.0, 0, 0}, {0, 0.1, 0}, 1.0);
        {
            auto p = b.place({rng.uniform(12.0, 18.0), rng.uniform(9.0, 11.0), 0.0},
                             rng.uniform(-20.0, 20.0));
            forklift(b, rng);
        }
        for (int i = 0; i < 6; ++i) {
            auto p =
                b.place({26.0 + 1.3 * (i % 2), 7.5 + 1.4 * (i / 2) + rng.uniform(0.0, 0.1), 0.0},
                        rng.uniform(-5.0, 5.0) + 90.0);
            pallet(b, rng, 1.4, false);
        }

        // Lights hanging between the beams, signs over the aisles.
        for (double x = 3.0; x < kL; x += 6.0)
            for (double y : {3.0, 10.0, 17.0}) {
                b.use("lamp");
                b.box({x - 0.6, y - 0.2, 6.8}, {x + 0.6, y + 0.2, 6.9});
                b.use("steel");
                b.box({x - 0.01, y - 0.01, 6.9}, {x + 0.01, y + 0.01, kH}, kSidesOnly);
            }
        b.use("sign");
        for (double y : {2.85, 10.0, 17.15})
            b.rect({x0 - 0.4, y - 0.6, 6.2}, {0, 1.2, 0}, {0, 0, 0.4});

        ScenePlan plan;
        plan.contents = "30 x 20 x 8 m warehouse hall: six rows of pallet racks with loaded "
                        "pallets, a forklift, staged pallets, dock doors, window bands, "
                        "pilasters, roof beams, hanging lights and aisle signs";
        plan.meshFile = "hall.obj";
        plan.fillSurface = "roof";
        plan.light = {0.3, kW / 2 - 0.02, 1.5};
        plan.sensor = {0.3, kW / 2 + 0.02, 1.5};
        plan.lookAt = {kL, kW / 2, 1.5};
        // c dt T = 75 m, twice the hall's diagonal (36.9 m).
        plan.dtNs = 0.25;
        return plan;
    });
}

} // namespace rsim
