// SPDX-License-Identifier: MIT
// `glossy-room`: the tiny room's shell with the surfaces that give indoor ToF its worst
// multipath (MODEL.md §10): a glossy floor, a steel cabinet, a glossy whiteboard and a window
// pane. Only the `paths` transport models them (MODEL.md §10.2); the radiosity pipeline takes
// each as Lambertian, so the two transports' range errors differ where the specular paths are.
#include "generate/furniture.h"
#include "generate/generators.h"
#include "generate/room_shell.h"

namespace rsim {
using glm::dvec3;

namespace {

// Near-infrared (850 nm) values. A polished floor and an enamelled whiteboard are dielectric
// coatings (ior 1.5) over a diffuse base: `plastic`, nearly mirror-like at grazing angles.
// Roughness 0.15-0.2 (GGX alpha 0.02-0.04) is glossy yet keeps the lobes wide enough that next-
// event estimation through them does not leave fireflies at a few hundred paths per pixel.
// Brushed steel reflects about 60% at normal incidence. Window glass is a thin sheet: it
// reflects 2F/(1+F) (8% head-on, more at grazing) and lets the rest out of the room.
void defineGlossyRoomMaterials(MeshBuilder& b) {
    b.defineMaterial("wall", 0.75); // white emulsion paint: matte
    b.defineMaterial("ceiling", 0.8);
    MaterialModel floor;
    floor.type = MaterialType::Plastic;
    floor.reflectance = 0.3;
    floor.ior = 1.5;
    floor.roughness = 0.2;
    b.defineMaterial("floor", floor);
    MaterialModel glass;
    glass.type = MaterialType::Dielectric;
    glass.ior = 1.5;
    // A sheet has two fronts (MODEL.md §10.1), so the radiosity pipeline twins it: say so here,
    // so that the header's triangle count is the simulation's.
    b.defineMaterial("window_glass", glass, /*twoSided=*/true);
    b.defineMaterial("window_frame", 0.7);
    b.defineMaterial("wood", 0.45);
    MaterialModel steel;
    steel.type = MaterialType::Conductor;
    steel.specular = 0.6;
    steel.roughness = 0.2;
    b.defineMaterial("steel", steel);
    MaterialModel board;
    board.type = MaterialType::Plastic;
    board.reflectance = 0.75;
    board.ior = 1.5;
    board.roughness = 0.15;
    b.defineMaterial("whiteboard", board);
}

// A steel locker: a box with two door fronts proud of it, all of one brushed metal.
void steelCabinet(MeshBuilder& b, double w, double d, double h) {
    b.use("steel");
    b.box({-w / 2, -d / 2, 0.0}, {w / 2, d / 2, h}, kNoBottom);
    const double gap = 0.005, dw = (w - 3 * gap) / 2;
    for (int i = 0; i < 2; ++i) {
        const double x0 = -w / 2 + gap + i * (dw + gap);
        b.box({x0, -d / 2 - 0.015, 0.05}, {x0 + dw, -d / 2, h - 0.02}, kAllFaces & ~kFaceYPos);
    }
}

} // namespace

ScenePlan generateGlossyRoom(MeshBuilder& out, std::uint32_t seed) {
    SceneRng rng(sceneSeed(seed, 7));
    Room r{4.0, 3.0, 2.5, {}};
    // The window in the right-hand wall (y = 0), seen at a grazing angle: there the pane
    // mirrors the lit far wall and cabinet best (Fresnel), while its transmitted light leaves
    // the room. Wall 3 runs from x = L (u = 0) towards the camera.
    r.openings[3] = {window(0.3, 1.2, 0.8, 1.2)};
    defineGlossyRoomMaterials(out);
    const Tessellation cells{0.5, 0.5};
    buildShell(out, r, cells);
    {
        auto p = out.place({1.9 + rng.uniform(-0.1, 0.1), 0.75 + rng.uniform(-0.05, 0.05), 0.0},
                           rng.uniform(-8.0, 8.0));
        table(out, 0.9, 0.6, 0.75);
    }
    {
        auto p = againstWall(out, r, 2, rng.uniform(2.0, 2.2), 0.235);
        steelCabinet(out, 1.0, 0.45, 1.8);
    }
    {
        // On the left-hand wall (y = W), whose far half the camera sees at about 60 degrees.
        auto p = againstWall(out, r, 1, 3.1, 0.01);
        whiteboard(out, 1.4, 1.0, 0.9);
    }
    ScenePlan plan = roomPlan(r, "room with a glossy floor, a steel cabinet, a glossy whiteboard, "
                                 "a window and a table (materials for the paths transport)");
    // The camera 1 m up (a robot's or a table-top device's) and tilted down: it sees the floor at
    // grazing angles, where Fresnel makes it mirror the far wall and the cabinet.
    plan.light.z = plan.sensor.z = 1.0;
    plan.lookAt = {r.L, r.W / 2, 0.4};
    plan.width = 160;
    plan.height = 120;
    // As the tiny room: a pulse of a real width, so that later light drags the pulsed range.
    plan.pulseFwhmNs = 1.0;
    plan.cells = cells;
    return plan;
}

} // namespace rsim
