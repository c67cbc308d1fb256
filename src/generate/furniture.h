// SPDX-License-Identifier: MIT
// Indoor furniture for the room scenes, built from outward boxes, prisms and a few two-sided
// sheets. Each piece is modelled in its own frame: footprint centred on the origin, standing on
// z = 0, front towards -y (back towards +y, where a wall would be). MeshBuilder::place() puts
// it in the room.
#pragma once
#include "generate/mesh_builder.h"
#include "generate/rng.h"

namespace rsim {

// Materials the furniture and the room shell use (near-infrared diffuse reflectances).
void defineRoomMaterials(MeshBuilder& b);

void table(MeshBuilder& b, double w, double d, double h);
void chair(MeshBuilder& b);
void cabinet(MeshBuilder& b, double w, double d, double h, int doors);
void bookshelf(MeshBuilder& b, double w, double d, double h, int shelves, double fill,
               SceneRng& rng);
void sofa(MeshBuilder& b, double w, double d);
void desk(MeshBuilder& b, double w, double d); // table with monitor and keyboard
// Potted plant; it reaches 0.4 * scale metres around its origin.
void plant(MeshBuilder& b, SceneRng& rng, double scale = 1.0);
void rug(MeshBuilder& b, double w, double d);
void radiator(MeshBuilder& b, double w, double h);
void whiteboard(MeshBuilder& b, double w, double h, double z0);
void pendantLamp(MeshBuilder& b, double ceiling);
// Pleated curtain hanging from z0 + h down to z0, a two-sided sheet in the x-z plane.
void curtain(MeshBuilder& b, double w, double h, double z0, double cell);
// Free-standing office screen, a two-sided sheet in the x-z plane.
void partition(MeshBuilder& b, double w, double z0, double z1, double cell);

} // namespace rsim
