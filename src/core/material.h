// SPDX-License-Identifier: MIT
// A surface's material as both transports read it (MODEL.md §10.1): its BSDF's type and
// parameters. The radiosity pipeline sees it as Lambertian with radiosityAlbedo() as rho; the
// `paths` transport evaluates and samples its BSDF (include/rsim/shared/bsdf.h).
#pragma once
#include <cstdint>
#include <vector>

#include "rsim/shared/bsdf.h"

namespace rsim {

enum class MaterialType { Diffuse, Plastic, Conductor, Dielectric };

struct MaterialModel {
    MaterialType type = MaterialType::Diffuse;
    double reflectance = 0.5; // rho: diffuse, plastic (its base)
    double ior = 1.5;         // eta: plastic, dielectric
    double roughness = 0.3;   // r (GGX alpha = r^2): plastic, conductor
    double specular = 0.0;    // F0: conductor
};

// "diffuse", "plastic", "conductor" or "dielectric", as the scene file writes it.
const char* materialTypeName(MaterialType t);

// The directional-hemispherical albedo at normal incidence that the radiosity pipeline takes as
// the material's Lambertian reflectance (MODEL.md §10.1): rho for `diffuse`; for the others the
// value of docs/model-choices.md ("Materials in the radiosity pipeline").
double radiosityAlbedo(const MaterialModel& m);

// The material as the shared BSDF code takes it (include/rsim/shared/bsdf.h).
shared::MaterialBsdf bsdfOf(const MaterialModel& m);
// The same for each of `models` (PreparedScene::materialModels), as the paths transport reads them.
std::vector<shared::MaterialBsdf> bsdfsOf(const std::vector<MaterialModel>& models);

// Whether the radiosity pipeline approximates the material (anything but `diffuse`).
inline bool approximatedByRadiosity(const MaterialModel& m) { return m.type != MaterialType::Diffuse; }

} // namespace rsim
