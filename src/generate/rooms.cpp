// SPDX-License-Identifier: MIT
// The four room scenes: the shell of room_shell.h with door and window recesses, and furniture.
#include <algorithm>
#include <array>
#include <sstream>

#include <glm/geometric.hpp>

#include "generate/furniture.h"
#include "generate/generators.h"
#include "generate/room_shell.h"

namespace rsim {
using glm::dvec3;

void buildShell(MeshBuilder& b, const Room& r, const Tessellation& t) {
    const double cell = t.cell;
    b.use("floor");
    b.rect({0, 0, 0}, {r.L, 0, 0}, {0, r.W, 0}, cell);
    b.use("ceiling");
    b.rect({0, 0, r.H}, {0, r.W, 0}, {r.L, 0, 0}, t.fillCell);
    b.use("wall");
    for (int w = 0; w < 4; ++w)
        b.wall(r.wallOrigin(w), Room::wallU(w), {0, 0, 1}, r.wallLength(w), r.H, cell,
               r.openings[std::size_t(w)]);
}

MeshBuilder::Placement againstWall(MeshBuilder& b, const Room& r, int wall, double u, double off,
                                   double z) {
    const dvec3 n = Room::inward(wall);
    return b.place(r.wallOrigin(wall) + u * Room::wallU(wall) + off * n + dvec3(0, 0, z),
                   yawFacing(n.x, n.y));
}

namespace {

Opening door(double u0, double width) {
    return {u0, u0 + width, 0.0, 2.05, 0.12, "door", "door_frame"};
}

} // namespace

Opening window(double u0, double width, double v0, double height) {
    return {u0, u0 + width, v0, v0 + height, 0.2, "window_glass", "window_frame"};
}

ScenePlan roomPlan(const Room& r, const std::string& contents) {
    ScenePlan plan;
    std::ostringstream os;
    os << r.L << " x " << r.W << " x " << r.H << " m " << contents;
    plan.contents = os.str();
    plan.meshFile = "room.obj";
    plan.fillSurface = "ceiling";
    // A ToF camera: illuminator and sensor 4 cm apart, 25 cm from the wall behind them.
    plan.light = {0.25, r.W / 2 - 0.02, 1.5};
    plan.sensor = {0.25, r.W / 2 + 0.02, 1.5};
    plan.lookAt = {r.L, r.W / 2, 1.0};
    return plan;
}

namespace {

// A chair pulled up to a table at (x, y) of the table's frame, facing (fx, fy).
void chairAt(MeshBuilder& b, SceneRng& rng, double x, double y, double fx, double fy) {
    const double pull = rng.uniform(0.0, 0.12);
    auto p = b.place({x - fx * pull + rng.uniform(-0.04, 0.04), y - fy * pull, 0.0},
                     yawFacing(fx, fy) + rng.uniform(-12.0, 12.0));
    chair(b);
}

// Under a window and beside it: radiator and, for homes, curtains.
void dressWindow(MeshBuilder& b, const Room& r, int wall, const Opening& w, bool curtains,
                 double cell) {
    const double mid = 0.5 * (w.u0 + w.u1), width = w.u1 - w.u0;
    {
        auto p = againstWall(b, r, wall, mid, 0.06);
        radiator(b, std::min(width - 0.2, 1.2), std::min(0.6, w.v0 - 0.3));
    }
    if (!curtains) return;
    for (double side : {-1.0, 1.0}) {
        auto p = againstWall(b, r, wall, mid + side * (width / 2 + 0.33), 0.12);
        curtain(b, 0.6, std::min(w.v1 + 0.3, r.H - 0.05) - 0.2, 0.2, cell);
    }
}

} // namespace

ScenePlan generateTinyRoom(MeshBuilder& out, std::uint32_t seed) {
    SceneRng rng(sceneSeed(seed, 1));
    const Room r{4.0, 3.0, 2.5, {}};
    defineRoomMaterials(out);
    const Tessellation cells{0.5, 0.5};
    buildShell(out, r, cells);
    {
        auto p = out.place({2.3 + rng.uniform(-0.2, 0.2), 1.5 + rng.uniform(-0.15, 0.15), 0.0},
                           rng.uniform(-8.0, 8.0));
        table(out, 1.2, 0.8, 0.75);
    }
    {
        auto p = againstWall(out, r, 2, rng.uniform(1.9, 2.3), 0.235);
        cabinet(out, 1.0, 0.45, 1.8, 2);
    }
    ScenePlan plan = roomPlan(r, "room with a table and a cabinet");
    plan.width = 160;
    plan.height = 120;
    // The bundled default scene: a laser pulse of a real width, so that its depth images show
    // the room's multipath (a delta pulse's peak hardly moves with the later light).
    plan.pulseFwhmNs = 1.0;
    plan.cells = cells;
    return plan;
}

ScenePlan generateSmallRoom(MeshBuilder& out, std::uint32_t seed, std::uint64_t target) {
    return buildToTarget(out, target, 0.05, 1.0, [seed](MeshBuilder& b, const Tessellation& t) {
        const double cell = t.cell;
        SceneRng rng(sceneSeed(seed, 2));
        Room r{4.0, 3.0, 2.5, {}};
        const Opening win = window(0.9, 1.2, 0.9, 1.2);
        r.openings[3] = {door(0.5, 0.9)};
        r.openings[2] = {win};
        defineRoomMaterials(b);
        buildShell(b, r, t);
        dressWindow(b, r, 2, win, true, cell);

        const dvec3 tableAt(2.0 + rng.uniform(-0.1, 0.1), 1.35 + rng.uniform(-0.1, 0.1), 0.0);
        {
            auto p = b.place(tableAt);
            rug(b, 2.0, 1.5);
        }
        {
            auto p = b.place(tableAt, rng.uniform(-5.0, 5.0));
            table(b, 1.2, 0.8, 0.75);
            for (double x : {-0.3, 0.3}) {
                chairAt(b, rng, x, -0.6, 0, 1);
                chairAt(b, rng, x, 0.6, 0, -1);
            }
        }
        {
            auto p = b.place(tableAt);
            pendantLamp(b, r.H);
        }
        {
            auto p = againstWall(b, r, 1, 3.3, 0.16);
            bookshelf(b, 0.8, 0.3, 2.0, 5, 0.6, rng);
        }
        {
            auto p = againstWall(b, r, 1, 1.2, 0.235);
            cabinet(b, 1.2, 0.45, 0.8, 2);
        }
        {
            auto p = againstWall(b, r, 1, 1.5 + rng.uniform(-0.3, 0.3), 0.23, 0.8);
            plant(b, rng, 0.6);
        }
        {
            auto p = b.place({3.6, 0.4, 0.0});
            plant(b, rng);
        }
        return roomPlan(r, "dining room: table with four chairs, bookshelf, sideboard, "
                           "plants, door and curtained window");
    });
}

ScenePlan generateMediumRoom(MeshBuilder& out, std::uint32_t seed, std::uint64_t target) {
    return buildToTarget(out, target, 0.05, 1.0, [seed](MeshBuilder& b, const Tessellation& t) {
        const double cell = t.cell;
        SceneRng rng(sceneSeed(seed, 3));
        Room r{6.0, 5.0, 3.0, {}};
        const std::vector<Opening> windows2 = {window(0.8, 1.4, 0.9, 1.4),
                                               window(2.8, 1.4, 0.9, 1.4)};
        const Opening window1 = window(3.6, 1.4, 0.9, 1.4);
        r.openings[0] = {door(0.5, 0.9)};
        r.openings[1] = {window1};
        r.openings[2] = windows2;
        defineRoomMaterials(b);
        buildShell(b, r, t);
        dressWindow(b, r, 1, window1, true, cell);
        for (const auto& w : windows2)
            dressWindow(b, r, 2, w, true, cell);

        // Dining corner.
        const dvec3 dining(4.3 + rng.uniform(-0.1, 0.1), 3.5 + rng.uniform(-0.1, 0.1), 0.0);
        {
            auto p = b.place(dining, rng.uniform(-4.0, 4.0));
            table(b, 1.6, 0.9, 0.75);
            for (double x : {-0.45, 0.45}) {
                chairAt(b, rng, x, -0.62, 0, 1);
                chairAt(b, rng, x, 0.62, 0, -1);
            }
            chairAt(b, rng, -1.05, 0.0, 1, 0);
            chairAt(b, rng, 1.05, 0.0, -1, 0);
        }
        {
            auto p = b.place(dining);
            pendantLamp(b, r.H);
        }
        // Living corner.
        const dvec3 living(3.2, 1.55, 0.0);
        {
            auto p = b.place(living);
            rug(b, 2.4, 1.6);
            table(b, 1.1, 0.6, 0.42);
            pendantLamp(b, r.H);
        }
        {
            auto p = againstWall(b, r, 3, r.L - living.x, 0.46);
            sofa(b, 2.2, 0.9);
        }
        {
            auto p = b.place({5.15, 1.5, 0.0}, yawFacing(-1, 0) + rng.uniform(-15.0, 15.0));
            sofa(b, 0.95, 0.85);
        }
        // Storage along the walls.
        for (double u : {0.8, 1.7}) {
            auto p = againstWall(b, r, 1, u, 0.16);
            bookshelf(b, 0.85, 0.3, 2.1, 5, 0.7, rng);
        }
        {
            auto p = againstWall(b, r, 1, 2.85, 0.235);
            cabinet(b, 1.2, 0.45, 0.85, 2);
        }
        {
            auto p = againstWall(b, r, 3, r.L - 0.85, 0.31);
            cabinet(b, 1.0, 0.6, 2.0, 2);
        }
        for (const dvec3& at : {dvec3(5.55, 4.55, 0.0), dvec3(1.72, 0.42, 0.0)}) {
            auto p = b.place(at);
            plant(b, rng);
        }
        return roomPlan(r, "living and dining room: table with six chairs, sofa, armchair, "
                           "coffee table, bookshelves, cabinets, plants, door and three "
                           "curtained windows");
    });
}

ScenePlan generateLargeRoom(MeshBuilder& out, std::uint32_t seed, std::uint64_t target) {
    return buildToTarget(out, target, 0.05, 1.0, [seed](MeshBuilder& b, const Tessellation& t) {
        const double cell = t.cell;
        SceneRng rng(sceneSeed(seed, 4));
        Room r{12.0, 10.0, 4.0, {}};
        std::vector<Opening> windows1, windows2;
        for (double c : {1.5, 3.9, 6.1, 8.5})
            windows2.push_back(window(c - 0.8, 1.6, 1.0, 1.8));
        for (double c : {6.4, 8.6, 10.8})
            windows1.push_back(window(c - 0.8, 1.6, 1.0, 1.8));
        r.openings[0] = {door(8.2, 0.9)};
        r.openings[1] = windows1;
        r.openings[2] = windows2;
        r.openings[3] = {door(1.4, 1.6)};
        defineRoomMaterials(b);
        buildShell(b, r, t);
        for (const auto& w : windows1)
            dressWindow(b, r, 1, w, false, cell);
        for (const auto& w : windows2)
            dressWindow(b, r, 2, w, false, cell);

        b.use("column");
        for (double y : {3.3, 6.7})
            b.box({7.2, y - 0.2, 0.0}, {7.6, y + 0.2, r.H}, kSidesOnly, 0.5);

        // Two clusters of six desks, back to back with a screen between the rows.
        for (double cy : {2.6, 7.4}) {
            auto cluster = b.place({4.6 + rng.uniform(-0.1, 0.1), cy, 0.0});
            partition(b, 4.2, 0.74, 1.3, cell);
            for (double x : {-1.4, 0.0, 1.4})
                for (double side : {-1.0, 1.0}) {
                    {
                        auto p = b.place({x, side * 0.37, 0.0}, side < 0 ? 0.0 : 180.0);
                        desk(b, 1.4, 0.7);
                    }
                    if (rng.chance(0.9)) chairAt(b, rng, x, side * 1.0, 0, -side);
                }
        }
        // Meeting table along y with eight chairs.
        {
            auto p = b.place({9.8, 5.0, 0.0}, 90.0);
            table(b, 3.0, 1.2, 0.75);
            for (double x : {-1.0, 0.0, 1.0}) {
                chairAt(b, rng, x, -0.82, 0, 1);
                chairAt(b, rng, x, 0.82, 0, -1);
            }
            chairAt(b, rng, -1.85, 0.0, 1, 0);
            chairAt(b, rng, 1.85, 0.0, -1, 0);
        }
        {
            auto p = againstWall(b, r, 3, 6.0, 0.01);
            whiteboard(b, 2.0, 1.2, 0.9);
        }
        // Lounge corner.
        {
            auto p = againstWall(b, r, 3, r.L - 1.8, 0.46);
            sofa(b, 2.0, 0.9);
        }
        {
            auto p = b.place({1.8, 1.35, 0.0});
            rug(b, 2.2, 1.4);
            table(b, 1.0, 0.5, 0.42);
        }
        for (double u : {0.9, 1.8, 2.7, 3.6}) {
            auto p = againstWall(b, r, 1, u, 0.16);
            bookshelf(b, 0.85, 0.3, 2.1, 5, 0.5, rng);
        }
        {
            auto p = againstWall(b, r, 1, 4.65, 0.235);
            cabinet(b, 1.2, 0.45, 1.2, 2);
        }
        for (const dvec3& at : {dvec3(11.55, 0.45, 0), dvec3(11.55, 9.55, 0), dvec3(0.45, 0.45, 0),
                                dvec3(7.4, 5.0, 0)}) {
            auto p = b.place(at);
            plant(b, rng);
        }
        // Ceiling panel lights on short cables.
        for (double x : {2.0, 5.0, 8.0, 11.0})
            for (double y : {2.0, 5.0, 8.0}) {
                const double z = r.H - 0.5;
                b.use("lamp");
                b.box({x - 0.6, y - 0.15, z}, {x + 0.6, y + 0.15, z + 0.04});
                b.use("metal");
                for (double dx : {-0.5, 0.5})
                    b.box({x + dx - 0.005, y - 0.005, z + 0.04}, {x + dx + 0.005, y + 0.005, r.H},
                          kSidesOnly);
            }
        return roomPlan(r, "open-plan office: twelve desks with monitors and chairs, screens, "
                           "meeting table with eight chairs, lounge, bookshelves, whiteboard, "
                           "columns, ceiling lights, two doors and seven windows");
    });
}

} // namespace rsim
