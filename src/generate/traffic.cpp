// SPDX-License-Identifier: MIT
// `traffic`: a 40 m street canyon under open sky. Road along +x between y = -5 and 5, raised
// sidewalks to y = +-8, facades of several buildings on both sides; cars, a bus at its stop,
// street lights, trees and signs. The camera stands in the right lane at the street's start.
#include <algorithm>
#include <array>
#include <string>

#include "generate/generators.h"
#include "generate/rng.h"

namespace rsim {
using glm::dvec3;

namespace {

constexpr double kLength = 40.0;  // street length along x
constexpr double kRoad = 5.0;     // road half-width
constexpr double kSidewalk = 8.0; // facades stand at y = +-kSidewalk
constexpr double kCurb = 0.15;    // sidewalk height

void defineStreetMaterials(MeshBuilder& b) {
    b.defineMaterial("asphalt", 0.12);
    b.defineMaterial("road_marking", 0.55);
    b.defineMaterial("sidewalk", 0.3);
    b.defineMaterial("curb", 0.3);
    b.defineMaterial("facade_plaster", 0.65);
    b.defineMaterial("facade_grey", 0.5);
    b.defineMaterial("facade_brick", 0.4);
    b.defineMaterial("window_glass", 0.08);
    b.defineMaterial("window_frame", 0.5);
    b.defineMaterial("door", 0.35);
    b.defineMaterial("balcony", 0.3);
    b.defineMaterial("car_white", 0.5);
    b.defineMaterial("car_red", 0.45);
    b.defineMaterial("car_silver", 0.4);
    b.defineMaterial("car_dark", 0.3);
    b.defineMaterial("bus_paint", 0.45);
    b.defineMaterial("car_glass", 0.1);
    b.defineMaterial("plastic_dark", 0.1);
    b.defineMaterial("headlight", 0.6);
    b.defineMaterial("tyre", 0.05);
    b.defineMaterial("metal", 0.5);
    b.defineMaterial("lamp", 0.6);
    b.defineMaterial("bark", 0.3);
    b.defineMaterial("foliage", 0.5);
    b.defineMaterial("bench", 0.45);
    b.defineMaterial("ad_panel", 0.7);
    // Thin sheets seen from both sides.
    b.defineMaterial("shelter_glass", 0.1, true);
    b.defineMaterial("railing", 0.4, true);
    b.defineMaterial("sign", 0.6, true);
}

// One building's street front in the facade frame: wall at y = 0, front towards -y, u along
// +x from 0 to `width`, up from the sidewalk.
void facade(MeshBuilder& b, SceneRng& rng, double width, double cell) {
    static const std::array<const char*, 3> finishes = {"facade_plaster", "facade_grey",
                                                        "facade_brick"};
    const int floors = rng.integer(4, 6);
    const double ground = 4.0, storey = 3.0, height = ground + storey * (floors - 1);
    const bool balconies = rng.chance(0.5);
    std::vector<Opening> openings;
    std::vector<std::array<double, 3>> slabs; // u0, u1, z of each balcony
    // Ground floor: a door in the middle and a shop window on each side.
    const double mid = width * rng.uniform(0.4, 0.6);
    openings.push_back({mid - 0.6, mid + 0.6, 0.0, 2.4, 0.3, "door", "window_frame"});
    const double shop = std::min(4.0, mid - 1.6);
    if (shop > 1.0)
        openings.push_back(
            {mid - 1.1 - shop, mid - 1.1, 0.5, 3.0, 0.2, "window_glass", "window_frame"});
    const double shop2 = std::min(4.0, width - mid - 1.6);
    if (shop2 > 1.0)
        openings.push_back(
            {mid + 1.1, mid + 1.1 + shop2, 0.5, 3.0, 0.2, "window_glass", "window_frame"});
    const int columns = std::max(1, int((width - 1.0) / 2.5));
    const double pitch = width / columns;
    for (int f = 1; f < floors; ++f) {
        const double base = ground + storey * (f - 1);
        for (int k = 0; k < columns; ++k) {
            const double c = (k + 0.5) * pitch;
            if (balconies && k % 2 == 0) {
                openings.push_back({c - 0.5, c + 0.5, base + 0.05, base + 2.3, 0.2, "window_glass",
                                    "window_frame"});
                slabs.push_back({c - 0.9, c + 0.9, base});
            } else {
                openings.push_back({c - 0.6, c + 0.6, base + 0.9, base + 2.4, 0.2, "window_glass",
                                    "window_frame"});
            }
        }
    }
    b.use(finishes[std::size_t(rng.integer(0, 2))]);
    b.wall({0, 0, 0}, {1, 0, 0}, {0, 0, 1}, width, height, cell, openings);
    for (const auto& s : slabs) {
        const double u0 = s[0], u1 = s[1], z = s[2], depth = 1.2, rail = 1.0;
        b.use("balcony");
        b.box({u0, -depth, z - 0.15}, {u1, 0.0, z}, kAllFaces & ~kFaceYPos);
        b.use("railing");
        b.rect({u0, -depth, z}, {u1 - u0, 0, 0}, {0, 0, rail});
        b.rect({u0, 0, z}, {0, -depth, 0}, {0, 0, rail});
        b.rect({u1, -depth, z}, {0, depth, 0}, {0, 0, rail});
    }
}

// A car in its own frame: centred on the ground, front towards +x.
void car(MeshBuilder& b, const std::string& paint) {
    b.use(paint);
    b.box({-2.1, -0.88, 0.3}, {2.1, 0.88, 0.95}, kNoBottom);
    b.box({-1.05, -0.78, 0.95}, {0.95, 0.78, 1.45}, kFaceZPos);
    b.use("car_glass");
    b.box({-1.05, -0.78, 0.95}, {0.95, 0.78, 1.45}, kSidesOnly);
    b.use("plastic_dark");
    b.box({2.1, -0.88, 0.3}, {2.2, 0.88, 0.5}, kAllFaces & ~kFaceXNeg);
    b.box({-2.2, -0.88, 0.3}, {-2.1, 0.88, 0.5}, kAllFaces & ~kFaceXPos);
    b.use("headlight");
    for (double y : {-0.6, 0.6})
        b.box({2.1, y - 0.15, 0.65}, {2.13, y + 0.15, 0.8}, kAllFaces & ~kFaceXNeg);
    b.use("tyre");
    for (double x : {-1.35, 1.35})
        for (double side : {-1.0, 1.0})
            b.cylinder({x, side * 0.68, 0.32}, {0, side * 0.24, 0}, 0.32, 12);
}

// A city bus in its own frame, front towards +x.
void bus(MeshBuilder& b) {
    b.use("bus_paint");
    b.box({-6.0, -1.25, 0.35}, {6.0, 1.25, 3.0}, kNoBottom);
    b.use("car_glass");
    b.box({-5.5, -1.27, 1.2}, {6.02, 1.27, 2.6}, kFaceYNeg | kFaceYPos | kFaceXPos);
    b.use("tyre");
    for (double x : {-3.8, 3.6})
        for (double side : {-1.0, 1.0})
            b.cylinder({x, side * 1.0, 0.5}, {0, side * 0.28, 0}, 0.5, 14);
}

// Street furniture is built in the sidewalk frame: origin on the sidewalk, -y towards the road.
void streetLight(MeshBuilder& b) {
    b.use("metal");
    b.cylinder({0, 0, 0}, {0, 0, 6.0}, 0.08, 8, 6, false);
    b.box({-0.04, -1.6, 5.9}, {0.04, 0.04, 6.0});
    b.use("lamp");
    b.box({-0.15, -1.9, 5.85}, {0.15, -1.4, 5.97});
}

void tree(MeshBuilder& b, SceneRng& rng) {
    const double trunk = rng.uniform(2.6, 3.2), crown = rng.uniform(1.5, 1.9);
    b.use("bark");
    b.cylinder({0, 0, 0}, {0, 0, trunk}, 0.15, 8, 3, false);
    b.use("foliage");
    b.sphere({0, 0, trunk + 0.7 * crown}, crown, 10, 8);
}

void sign(MeshBuilder& b) {
    b.use("metal");
    b.cylinder({0, 0, 0}, {0, 0, 2.6}, 0.04, 6, 2, true);
    b.use("sign");
    b.rect({-0.3, -0.05, 2.0}, {0.6, 0, 0}, {0, 0, 0.6});
}

void bin(MeshBuilder& b) {
    b.use("metal");
    b.cylinder({0, 0, 0}, {0, 0, 0.9}, 0.25, 10);
}

// Bus shelter, open towards the road (-y).
void shelter(MeshBuilder& b, double cell) {
    const double w = 4.0, d = 1.5, h = 2.5;
    b.use("metal");
    for (double x : {-w / 2, w / 2})
        for (double y : {-d / 2, d / 2})
            b.box({x - 0.04, y - 0.04, 0.0}, {x + 0.04, y + 0.04, h}, kSidesOnly);
    b.box({-w / 2 - 0.1, -d / 2 - 0.2, h}, {w / 2 + 0.1, d / 2 + 0.1, h + 0.1});
    b.use("shelter_glass");
    b.rect({-w / 2, d / 2, 0.2}, {w, 0, 0}, {0, 0, h - 0.3}, cell);
    b.rect({-w / 2, -d / 2 + 0.2, 0.2}, {0, d - 0.2, 0}, {0, 0, h - 0.3}, cell);
    b.use("ad_panel");
    b.box({w / 2 - 0.05, -d / 2 + 0.2, 0.2}, {w / 2 + 0.05, d / 2 - 0.05, h - 0.2});
    b.use("bench");
    b.box({-1.4, d / 2 - 0.5, 0.42}, {1.0, d / 2 - 0.1, 0.47});
    b.use("metal");
    for (double x : {-1.3, 0.9})
        b.box({x - 0.03, d / 2 - 0.45, 0.0}, {x + 0.03, d / 2 - 0.15, 0.42}, kSidesOnly);
}

// The facade frame of a building starting `x` metres down the street on side +1 (y > 0) or -1.
MeshBuilder::Placement facadeFrame(MeshBuilder& b, double side, double x) {
    if (side > 0) return b.place({x, kSidewalk, kCurb}, 0.0);
    return b.place({kLength - x, -kSidewalk, kCurb}, 180.0);
}

// The sidewalk frame at x on side +1 (y > 0) or -1, `off` metres from the curb.
MeshBuilder::Placement onSidewalk(MeshBuilder& b, double side, double x, double off) {
    return b.place({x, side * (kRoad + off), kCurb}, side > 0 ? 0.0 : 180.0);
}

} // namespace

ScenePlan generateTraffic(MeshBuilder& out, std::uint32_t seed, std::uint64_t target) {
    return buildToTarget(out, target, 0.08, 2.0, [seed](MeshBuilder& b, const Tessellation& t) {
        SceneRng rng(sceneSeed(seed, 5));
        const double cell = t.cell;
        defineStreetMaterials(b);

        b.use("asphalt");
        b.rect({0, -kRoad, 0}, {kLength, 0, 0}, {0, 2 * kRoad, 0}, t.fillCell);
        for (double side : {-1.0, 1.0}) {
            const double y0 = side > 0 ? kRoad : -kSidewalk;
            b.use("sidewalk");
            b.rect({0, y0, kCurb}, {kLength, 0, 0}, {0, kSidewalk - kRoad, 0}, cell);
            b.use("curb"); // faces the road
            if (side > 0)
                b.rect({0, kRoad, 0}, {kLength, 0, 0}, {0, 0, kCurb}, cell);
            else
                b.rect({kLength, -kRoad, 0}, {-kLength, 0, 0}, {0, 0, kCurb}, cell);
        }

        // Markings float 5 mm above the asphalt; fixed 1 m cells, they are thin strips.
        b.use("road_marking");
        for (double x = 6.0; x + 3.0 < 29.0; x += 6.0)
            b.rect({x, -0.06, 0.005}, {3.0, 0, 0}, {0, 0.12, 0}, 1.0);
        for (double y = -kRoad + 0.5; y + 0.5 <= kRoad - 0.4; y += 1.0)
            b.rect({30.0, y, 0.005}, {3.0, 0, 0}, {0, 0.5, 0}, 1.0);
        for (double x = 35.0; x + 3.0 <= kLength; x += 6.0)
            b.rect({x, -0.06, 0.005}, {3.0, 0, 0}, {0, 0.12, 0}, 1.0);

        // Buildings of random widths along both sides.
        for (double side : {-1.0, 1.0}) {
            double x = 0.0;
            while (x < kLength - 0.01) {
                double w = rng.uniform(8.0, 14.0);
                if (kLength - (x + w) < 8.0) w = kLength - x;
                auto p = facadeFrame(b, side, x);
                facade(b, rng, w, cell);
                x += w;
            }
        }

        // Parked cars along both curbs, leaving room for the bus, the crosswalk and the camera.
        static const std::array<const char*, 4> paints = {"car_white", "car_red", "car_silver",
                                                          "car_dark"};
        for (double side : {-1.0, 1.0}) {
            for (double x = 3.0 + rng.uniform(0.0, 2.0); x + 4.4 < kLength;) {
                const bool busStop = side < 0 && x + 4.4 > 15.0 && x < 29.0;
                const bool crossing = x + 4.4 > 28.5 && x < 34.5;
                if (!busStop && !crossing && rng.chance(0.8)) {
                    auto p = b.place({x + 2.2, side * (kRoad - 1.0), 0.0},
                                     (side > 0 ? 180.0 : 0.0) + rng.uniform(-2.0, 2.0));
                    car(b, paints[std::size_t(rng.integer(0, 3))]);
                }
                x += 4.4 + rng.uniform(0.6, 2.5);
            }
        }
        // Traffic: right-hand, so +x in the y < 0 lane.
        for (double side : {-1.0, 1.0}) {
            const int n = rng.integer(1, 2);
            for (int i = 0; i < n; ++i) {
                const double x = side < 0 ? rng.uniform(10.0 + 17.0 * i, 20.0 + 17.0 * i)
                                          : rng.uniform(5.0 + 16.0 * i, 14.0 + 17.0 * i);
                auto p = b.place({x, side * rng.uniform(1.3, 1.8), 0.0},
                                 (side > 0 ? 180.0 : 0.0) + rng.uniform(-3.0, 3.0));
                car(b, paints[std::size_t(rng.integer(0, 3))]);
            }
        }
        {
            auto p = b.place({21.5, -(kRoad - 1.35), 0.0});
            bus(b);
        }
        {
            auto p = onSidewalk(b, -1.0, 22.0, 1.9);
            shelter(b, cell);
        }

        for (double x : {2.0, 14.0, 26.0, 38.0}) {
            auto p = onSidewalk(b, 1.0, x, 0.4);
            streetLight(b);
        }
        for (double x : {8.0, 32.0}) {
            auto p = onSidewalk(b, -1.0, x, 0.4);
            streetLight(b);
        }
        for (double x : {8.0, 20.0, 32.0}) {
            auto p = onSidewalk(b, 1.0, x + rng.uniform(-0.5, 0.5), 1.0);
            tree(b, rng);
        }
        for (double x : {2.5, 12.5, 37.5}) {
            auto p = onSidewalk(b, -1.0, x + rng.uniform(-0.5, 0.5), 1.0);
            tree(b, rng);
        }
        for (double side : {-1.0, 1.0}) {
            auto p = onSidewalk(b, side, 29.3, 0.3);
            sign(b);
        }
        {
            auto p = onSidewalk(b, 1.0, 11.0, 0.5);
            bin(b);
        }
        {
            auto p = onSidewalk(b, -1.0, 19.3, 0.5);
            bin(b);
        }

        ScenePlan plan;
        plan.contents = "40 m street canyon under open sky: 10 m road with markings and a "
                        "crosswalk, sidewalks, facades with recessed windows, shop fronts and "
                        "balconies, parked and moving cars, a bus at its shelter, street "
                        "lights, trees and signs";
        plan.meshFile = "street.obj";
        plan.fillSurface = "road";
        plan.light = {0.3, -1.52, 1.5};
        plan.sensor = {0.3, -1.48, 1.5};
        plan.lookAt = {kLength, -1.0, 1.2};
        // c dt T = 90 m, twice the canyon's diagonal (40 x 16 x ~16 m).
        plan.dtNs = 0.3;
        return plan;
    });
}

} // namespace rsim
