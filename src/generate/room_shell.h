// SPDX-License-Identifier: MIT
// The room scenes' shell (gridded walls, floor and ceiling facing inwards, with door and window
// recesses) and the helpers that place furniture against its walls. The camera stands by wall 0
// (x = 0) looking along +x. Shared by rooms.cpp and glossy_room.cpp.
#pragma once
#include <array>
#include <string>
#include <vector>

#include <glm/geometric.hpp>

#include "generate/generators.h"

namespace rsim {

// Walls are numbered 0: x = 0, 1: y = W, 2: x = L, 3: y = 0; each runs along u (seen from
// inside, left to right) and up along z.
struct Room {
    double L, W, H;
    std::array<std::vector<Opening>, 4> openings;

    glm::dvec3 wallOrigin(int wall) const {
        static const std::array<glm::dvec3, 4> o = {glm::dvec3(0, 0, 0), glm::dvec3(0, 1, 0),
                                                    glm::dvec3(1, 1, 0), glm::dvec3(1, 0, 0)};
        return o[std::size_t(wall)] * glm::dvec3(L, W, 0);
    }
    static glm::dvec3 wallU(int wall) {
        static const std::array<glm::dvec3, 4> u = {glm::dvec3(0, 1, 0), glm::dvec3(1, 0, 0),
                                                    glm::dvec3(0, -1, 0), glm::dvec3(-1, 0, 0)};
        return u[std::size_t(wall)];
    }
    static glm::dvec3 inward(int wall) { return glm::cross(wallU(wall), glm::dvec3(0, 0, 1)); }
    double wallLength(int wall) const { return wall % 2 == 0 ? W : L; }
};

// Floor, ceiling (cut at t.fillCell) and the four walls with their openings, in the materials
// "floor", "ceiling" and "wall".
void buildShell(MeshBuilder& b, const Room& r, const Tessellation& t);

// Furniture with its back to a wall: u along the wall, `off` from it to the piece's origin.
MeshBuilder::Placement againstWall(MeshBuilder& b, const Room& r, int wall, double u, double off,
                                   double z = 0.0);

// A window's recess: glass ("window_glass") at its back, framed reveals ("window_frame").
Opening window(double u0, double width, double v0, double height);

// The plan every room shares: room.obj, the ceiling as the fill surface, and a ToF camera
// (illuminator and sensor 4 cm apart) 25 cm in front of wall 0, looking at the far wall.
ScenePlan roomPlan(const Room& r, const std::string& contents);

} // namespace rsim
