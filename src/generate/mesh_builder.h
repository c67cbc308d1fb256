// SPDX-License-Identifier: MIT
// Triangle soup with named materials for the scene generators, written as a Wavefront OBJ.
// Every helper emits counter-clockwise triangles seen from the front (the side that reflects,
// MODEL.md §1), so a generator only has to say which way a surface faces.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include <glm/mat3x3.hpp>
#include <glm/vec3.hpp>

#include "core/material.h"

namespace rsim {

// A named material of the scene file (MODEL.md §10.1): Lambertian unless `model` says otherwise.
struct SceneMaterial {
    std::string name;
    MaterialModel model;
    bool twoSided = false;
};

// Faces of an axis-aligned box, named by their outward normal.
enum BoxFace : unsigned {
    kFaceXNeg = 1u,
    kFaceXPos = 2u,
    kFaceYNeg = 4u,
    kFaceYPos = 8u,
    kFaceZNeg = 16u,
    kFaceZPos = 32u,
    kAllFaces = 63u,
    kNoBottom = 63u & ~16u, // standing on something: the bottom is never seen
    kSidesOnly = 15u,
};

// A rectangular hole in a wall() with a recess behind it (door, window). Coordinates are along
// the wall's u and v axes; the recess is `depth` deep behind the wall's front side.
struct Opening {
    double u0 = 0, u1 = 0, v0 = 0, v1 = 0;
    double depth = 0.2;
    std::string back;  // material of the recess's back (door leaf, glass)
    std::string sides; // material of the reveals (frame)
};

class MeshBuilder {
  public:
    // countOnly: keep the counts, not the triangles, so that tessellations can be tried cheaply.
    explicit MeshBuilder(bool countOnly = false) : countOnly_(countOnly) {}

    void defineMaterial(const std::string& name, double reflectance, bool twoSided = false);
    // A material of any type (plastic, conductor, dielectric sheet: MODEL.md §10.1).
    void defineMaterial(const std::string& name, const MaterialModel& model, bool twoSided = false);
    void use(const std::string& name);
    const std::string& current() const;

    // A rigid placement (translation, then a turn about +z) for everything emitted while the
    // returned guard lives; placements nest. Rigid, so the winding keeps its meaning.
    class Placement {
      public:
        Placement(const Placement&) = delete;
        Placement& operator=(const Placement&) = delete;
        ~Placement() {
            owner_.rot_ = rot_;
            owner_.offset_ = offset_;
        }

      private:
        friend class MeshBuilder;
        Placement(MeshBuilder& owner, const glm::dmat3& rot, const glm::dvec3& offset)
            : owner_(owner), rot_(owner.rot_), offset_(owner.offset_) {
            owner.rot_ = rot;
            owner.offset_ = offset;
        }
        MeshBuilder& owner_;
        glm::dmat3 rot_;
        glm::dvec3 offset_;
    };
    [[nodiscard]] Placement place(const glm::dvec3& origin, double yawDeg = 0.0);

    void triangle(const glm::dvec3& a, const glm::dvec3& b, const glm::dvec3& c);
    void quad(const glm::dvec3& a, const glm::dvec3& b, const glm::dvec3& c, const glm::dvec3& d);
    // The parallelogram o + s*u + t*v, s, t in [0, 1], in nu x nv cells; front = u x v.
    void grid(const glm::dvec3& o, const glm::dvec3& u, const glm::dvec3& v, int nu, int nv);
    // Same, with cells no larger than `cell` along u and v (cell <= 0: a single quad).
    void rect(const glm::dvec3& o, const glm::dvec3& u, const glm::dvec3& v, double cell = 0.0);
    // Axis-aligned box [lo, hi] with outward faces; `cell` > 0 tessellates its faces.
    void box(const glm::dvec3& lo, const glm::dvec3& hi, unsigned faces = kAllFaces,
             double cell = 0.0);
    // Prism around the segment base .. base + axis, outward; `rings` cuts it along the axis.
    void cylinder(const glm::dvec3& base, const glm::dvec3& axis, double radius, int segments,
                  int rings = 1, bool caps = true);
    // UV sphere, outward.
    void sphere(const glm::dvec3& centre, double radius, int slices, int stacks);
    // Plane wall: origin o, unit axes uDir (along) and vDir (up), front = uDir x vDir, with
    // rectangular recessed openings. Cells are cut at the openings' edges and no larger than
    // `cell`. The wall itself takes the current material.
    void wall(const glm::dvec3& o, const glm::dvec3& uDir, const glm::dvec3& vDir, double lenU,
              double lenV, double cell, const std::vector<Opening>& openings);

    std::uint64_t triangles() const { return total_; }
    // N of the simulation: a two-sided material's triangles get a twin each.
    std::uint64_t simTriangles() const;
    // Materials with at least one triangle, in definition order.
    std::vector<SceneMaterial> usedMaterials() const;
    std::uint64_t trianglesOf(const std::string& material) const;

    // OBJ text: shared vertices at 0.1 mm, one `usemtl` group per material. Deterministic.
    std::string objText(const std::string& headerComment) const;

  private:
    using Tri = std::array<glm::dvec3, 3>;
    bool countOnly_;
    std::vector<SceneMaterial> materials_;
    std::vector<std::uint64_t> counts_;
    std::vector<std::vector<Tri>> faces_; // per material
    int current_ = -1;
    std::uint64_t total_ = 0;
    glm::dmat3 rot_{1.0};
    glm::dvec3 offset_{0.0};
};

} // namespace rsim
