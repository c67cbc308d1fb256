// SPDX-License-Identifier: MIT
// [[material]] tables of the scene file (MODEL.md §10.1): a name, a BSDF type and the keys that
// type takes. A key another type takes is an error that says which types take it, so that a
// roughness given to a diffuse material is not silently ignored.
#include <algorithm>
#include <string>

#include <toml++/toml.h>

#include "scene/scene_file_tables.h"
#include "scene/toml_reader.h"
#include "util/error.h"

namespace rsim {

using namespace toml_reader;

namespace {

MaterialType materialTypeFromName(const std::string& name) {
    if (name == "plastic") return MaterialType::Plastic;
    if (name == "conductor") return MaterialType::Conductor;
    if (name == "dielectric") return MaterialType::Dielectric;
    return MaterialType::Diffuse;
}

// The keys of one type (besides name, type and two_sided), for the error about a key of another.
struct TypeKeys {
    MaterialType type;
    std::vector<std::string> keys;
};
const std::vector<TypeKeys> kTypeKeys = {
    {MaterialType::Diffuse, {"reflectance"}},
    {MaterialType::Plastic, {"reflectance", "ior", "roughness"}},
    {MaterialType::Conductor, {"specular", "roughness"}},
    {MaterialType::Dielectric, {"ior", "thin"}},
};

// A key that another type takes but this one does not: which types take it.
void refuseOtherTypesKeys(TableReader& r, MaterialType type) {
    const std::vector<std::string>& own =
        std::find_if(kTypeKeys.begin(), kTypeKeys.end(), [&](const TypeKeys& k) { return k.type == type; })->keys;
    for (const std::string key : {"reflectance", "ior", "roughness", "specular", "thin"}) {
        if (!r.at(key) || std::find(own.begin(), own.end(), key) != own.end()) continue;
        std::string takers;
        for (const TypeKeys& k : kTypeKeys)
            if (std::find(k.keys.begin(), k.keys.end(), key) != k.keys.end())
                takers += std::string(takers.empty() ? "" : " and ") + materialTypeName(k.type);
        r.fail(r.at(key), key,
               std::string("a ") + materialTypeName(type) + " material has no " + key + " (" + takers +
                   " materials have); remove it or set the type");
    }
}

} // namespace

// [[material]]: named BSDFs, each name defined once.
void SceneTables::readMaterials(SceneDesc& scene) const {
    forEachArrayTable(root_, "material", fileName_, [&](TableReader& r, const toml::node& e) {
        MaterialDesc m;
        auto name = r.string("name");
        if (!name || name->empty()) r.fail(&e, "name", "every material needs a non-empty name");
        m.name = *name;
        m.model.type = materialTypeFromName(r.choice("type", "diffuse", {"diffuse", "plastic", "conductor", "dielectric"}));
        refuseOtherTypesKeys(r, m.model.type);
        m.model.reflectance = r.number("reflectance", m.model.reflectance, 0.0, 1.0);
        // Indices of refraction of solids and liquids: about 1.2 (aerogels aside) to 4 (germanium
        // in the infrared); 1 would be no interface at all.
        m.model.ior = r.number("ior", m.model.ior, 1.0, 4.0, true);
        m.model.roughness = r.number("roughness", m.model.roughness, 0.0, 1.0);
        if (m.model.type == MaterialType::Conductor) {
            if (!r.at("specular"))
                r.fail(&e, "specular",
                       "a conductor needs specular, its reflectance at normal incidence in [0, 1] (e.g. 0.9 "
                       "for polished aluminium at 850 nm)");
            m.model.specular = r.number("specular", m.model.specular, 0.0, 1.0);
        }
        if (m.model.type == MaterialType::Dielectric && !r.boolean("thin", true))
            r.fail(r.at("thin"), "thin", "thin = false (a thick dielectric with refraction) is not supported yet; "
                                         "a sheet is thin = true");
        m.two_sided = r.boolean("two_sided", m.two_sided);
        if (m.model.type == MaterialType::Dielectric && r.at("two_sided") && !m.two_sided)
            r.fail(r.at("two_sided"), "two_sided", "a dielectric sheet has two fronts (MODEL.md §10.1); drop two_sided = false");
        r.finish();
        for (const auto& other : scene.materials)
            if (other.name == m.name) r.fail(&e, "name", "material \"" + m.name + "\" is defined twice");
        scene.materials.push_back(m);
    }, &origins_);
}

} // namespace rsim
