// SPDX-License-Identifier: MIT
// Materials as the transports read them (core/material.h).
#include "core/material.h"

namespace rsim {

const char* materialTypeName(MaterialType t) {
    switch (t) {
    case MaterialType::Plastic: return "plastic";
    case MaterialType::Conductor: return "conductor";
    case MaterialType::Dielectric: return "dielectric";
    default: return "diffuse";
    }
}

shared::MaterialBsdf bsdfOf(const MaterialModel& m) {
    const std::uint32_t type = m.type == MaterialType::Plastic      ? shared::RSIM_MAT_PLASTIC
                               : m.type == MaterialType::Conductor  ? shared::RSIM_MAT_CONDUCTOR
                               : m.type == MaterialType::Dielectric ? shared::RSIM_MAT_DIELECTRIC
                                                                    : shared::RSIM_MAT_DIFFUSE;
    // Two-sidedness is the triangles' (their twins), not the BSDF's: the path tracer always
    // shades the face the path arrives on.
    return shared::rsimMakeMaterialBsdf(type, float(m.reflectance), float(m.ior), float(m.roughness),
                                        float(m.specular), false);
}

std::vector<shared::MaterialBsdf> bsdfsOf(const std::vector<MaterialModel>& models) {
    std::vector<shared::MaterialBsdf> out;
    for (const MaterialModel& m : models) out.push_back(bsdfOf(m));
    return out;
}

double radiosityAlbedo(const MaterialModel& m) {
    // A diffuse material's own reflectance, untouched: scenes without the new keys run as before.
    if (m.type == MaterialType::Diffuse) return m.reflectance;
    return double(shared::rsimAlbedoNormalIncidence(bsdfOf(m)));
}

} // namespace rsim
