// SPDX-License-Identifier: MIT
// Loads every [[mesh]] of a scene with assimp, applies its transform and resolves materials.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <glm/mat4x4.hpp>
#include <glm/vec3.hpp>

#include "core/material.h"
#include "scene/scene_desc.h"

namespace rsim {

struct ResolvedMaterial {
    std::string name;
    float reflectance = 0.5f; // what the radiosity pipeline takes as rho (radiosityAlbedo)
    bool twoSided = false;
    MaterialModel model;      // the BSDF (MODEL.md §10.1)

    // A material of any type: the radiosity pipeline's reflectance its albedo at normal
    // incidence, and a dielectric sheet two-sided whatever `twoSided` says (MODEL.md §10.1).
    static ResolvedMaterial of(std::string name, const MaterialModel& m, bool twoSided) {
        return {std::move(name), float(radiosityAlbedo(m)), twoSided || m.type == MaterialType::Dielectric, m};
    }
    // A Lambertian material of reflectance rho.
    static ResolvedMaterial diffuse(std::string name, float rho, bool twoSided) {
        MaterialModel m;
        m.reflectance = double(rho);
        return {std::move(name), rho, twoSided, m};
    }
};

// Triangles in load order (world space, double precision), before subdivision and twins.
struct LoadedGeometry {
    std::vector<glm::dvec3> v0, v1, v2;
    std::vector<std::uint32_t> material;   // index into materials
    std::vector<std::uint32_t> sourceMesh; // index into meshNames
    std::vector<ResolvedMaterial> materials;
    std::vector<std::string> meshNames;
    std::uint64_t loaded = 0;
    std::uint64_t droppedDegenerate = 0;
    std::uint64_t droppedNonFinite = 0;
    std::uint64_t droppedDuplicate = 0; // scene/duplicate_faces.h
};

// Reads the meshes, several files at once, each in its own process (scene/mesh_import.h).
// `forked`, when given, runs once every reader process has started, while they read: from then
// on no process is forked, so the caller may start threads (a Vulkan instance) meanwhile.
LoadedGeometry loadMeshes(const SceneDesc& scene, const std::function<void()>& forked = {});

// worldFromMesh for a [[mesh]]: scale, then rotate about x, y, z (degrees), then translate.
glm::dmat4 worldFromMesh(const MeshDesc& mesh);

} // namespace rsim
