// SPDX-License-Identifier: MIT
// `rsim generate`: dispatch to the scene kinds and write scene.toml next to the mesh.
#include "generate/generate.h"

#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "generate/generators.h"
#include "scene/scene_desc.h"
#include "util/did_you_mean.h"
#include "util/error.h"
#include "util/owned_files.h"

namespace rsim {
namespace fs = std::filesystem;

namespace {

struct Kind {
    GeneratorInfo info;
    ScenePlan (*generate)(MeshBuilder&, std::uint32_t seed, std::uint64_t target);
};

const std::vector<Kind>& kinds() {
    static const std::vector<Kind> k = {
        {{"tiny-room", "4 x 3 x 2.5 m room with a table and a cabinet (~570 triangles)", 0},
         [](MeshBuilder& b, std::uint32_t seed, std::uint64_t) {
             return generateTinyRoom(b, seed);
         }},
        {{"small-room", "4 x 3 x 2.5 m dining room: table, chairs, shelves, door, window", 4963},
         generateSmallRoom},
        {{"medium-room", "6 x 5 x 3 m living and dining room", 11509}, generateMediumRoom},
        {{"large-room", "12 x 10 x 4 m open-plan office with desks and a meeting table", 34801},
         generateLargeRoom},
        {{"traffic", "40 m street canyon: road, facades, cars, street lights (open sky)", 39665},
         generateTraffic},
        {{"industry", "30 x 20 x 8 m warehouse hall: pallet racks, pallets, forklift", 52885},
         generateIndustry},
        {{"glossy-room", "4 x 3 x 2.5 m room: glossy floor, steel cabinet, whiteboard, window "
                         "(for paths)", 0},
         [](MeshBuilder& b, std::uint32_t seed, std::uint64_t) {
             return generateGlossyRoom(b, seed);
         }},
    };
    return k;
}

// TOML floats: short, always with a decimal point, never "-0.0".
std::string num(double v) {
    char buf[48];
    std::snprintf(buf, sizeof buf, "%.4f", v);
    std::string s = buf;
    while (s.size() > 1 && s.back() == '0' && s[s.size() - 2] != '.')
        s.pop_back();
    if (s == "-0.0") s = "0.0";
    return s;
}

std::string vec(const glm::dvec3& v) {
    // Appends rather than "[" + ...: GCC 12 warns falsely (-Wrestrict) on const char* + string&&.
    std::string s = "[";
    s.append(num(v.x)).append(", ").append(num(v.y)).append(", ").append(num(v.z)).append("]");
    return s;
}

std::string withThousands(std::uint64_t n) {
    const std::string digits = std::to_string(n);
    std::string s;
    for (std::size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0) s += ',';
        s += digits[i];
    }
    return s;
}

// `text` as comment lines of at most 100 columns.
std::string commentLines(const std::string& text) {
    std::string out, line(1, '#');
    std::istringstream words(text);
    for (std::string w; words >> w;) {
        if (line.size() + 1 + w.size() > 100) {
            out.append(line).push_back('\n');
            line.assign(1, '#');
        }
        line.append(" ").append(w);
    }
    out.append(line).push_back('\n');
    return out;
}

// One [[material]] table with the keys of its type (MODEL.md §10.1). A diffuse one is written
// as before the types existed, so that those scenes keep their bytes.
std::string materialToml(const SceneMaterial& m) {
    std::ostringstream os;
    os << "\n[[material]]\n"
       << "name = \"" << m.name << "\"\n";
    const MaterialModel& b = m.model;
    if (b.type != MaterialType::Diffuse) os << "type = \"" << materialTypeName(b.type) << "\"\n";
    if (b.type == MaterialType::Diffuse || b.type == MaterialType::Plastic)
        os << "reflectance = " << num(b.reflectance) << "\n";
    if (b.type == MaterialType::Conductor) os << "specular = " << num(b.specular) << "\n";
    if (b.type == MaterialType::Plastic || b.type == MaterialType::Dielectric)
        os << "ior = " << num(b.ior) << "\n";
    if (b.type == MaterialType::Plastic || b.type == MaterialType::Conductor)
        os << "roughness = " << num(b.roughness) << "\n";
    os << "two_sided = " << (m.twoSided ? "true" : "false") << "\n";
    return os.str();
}

// The header's line on materials: the scenes with only Lambertian ones keep theirs.
std::string materialsComment(const std::vector<SceneMaterial>& used) {
    for (const auto& m : used)
        if (approximatedByRadiosity(m.model))
            return "# Materials come from the OBJ's usemtl names (near-infrared reflectances). The glossy,\n"
                   "# metal and glass ones are modelled by simulation.transport = \"paths\";\n"
                   "# the radiosity pipeline takes each as Lambertian (MODEL.md section 10.1).\n";
    return "# Materials come from the OBJ's usemtl names (near-infrared diffuse reflectances).\n";
}

std::string sceneToml(const std::string& kind, std::uint32_t seed, const ScenePlan& plan,
                      const MeshBuilder& mesh) {
    std::uint64_t twins = 0;
    for (const auto& m : mesh.usedMaterials())
        if (m.twoSided) twins += mesh.trianglesOf(m.name);
    const double reach = 0.299792458 * plan.dtNs * plan.timesteps;
    char cellText[96], reachText[32];
    if (std::abs(plan.cells.fillCell - plan.cells.cell) < 5e-4)
        std::snprintf(cellText, sizeof cellText, "%.3f m", plan.cells.cell);
    else
        std::snprintf(cellText, sizeof cellText, "%.3f m (the %s: %.3f m)", plan.cells.cell,
                      plan.fillSurface.c_str(), plan.cells.fillCell);
    std::snprintf(reachText, sizeof reachText, "%.1f", reach);

    std::ostringstream os;
    os << "# Generated by `rsim generate " << kind << " --seed " << seed << "`.\n"
       << commentLines(plan.contents + ".") << "# " << plan.meshFile << ": "
       << withThousands(mesh.triangles()) << " triangles";
    if (twins) os << " + " << withThousands(twins) << " two-sided twins";
    os << " = N " << withThousands(mesh.simTriangles()) << ".\n"
       << "# Large surfaces are gridded in cells of at most " << cellText << ".\n"
       << "# Light and sensor 4 cm apart, like a ToF camera; the " << plan.timesteps
       << " timesteps cover " << reachText << " m of path length.\n"
       << materialsComment(mesh.usedMaterials())
       << "\n[simulation]\n"
       << "dt_ns = " << num(plan.dtNs) << "\n"
       << "timesteps = " << plan.timesteps << "\n"
       << "samples = 16\n"
       << "direct_samples = 16\n"
       << "seed = " << seed << "\n"
       << "indirect = true\n"
       << "max_edge_m = 0.0\n"
       << "\n[light]\n"
       << "position = " << vec(plan.light) << "\n"
       << "direction = " << vec(plan.lookAt - plan.light) << "\n"
       << "half_angle_deg = " << num(plan.halfAngleDeg) << "\n"
       << "power_w = 1.0\n"
       << (plan.pulseFwhmNs > 0.0
               ? "# A laser pulse of a real width: light that arrives a little later by other paths drags the\n"
                 "# pulsed estimate (MODEL.md section 6), so the depth images show the scene's multipath.\n"
                 "pulse = \"gaussian\"\npulse_fwhm_ns = " + num(plan.pulseFwhmNs) + "\n"
               : std::string("pulse = \"delta\"\npulse_fwhm_ns = 0.5      # used when pulse = \"gaussian\"\n"))
       << "\n[sensor]\n"
       << "position = " << vec(plan.sensor) << "\n"
       << "look_at = " << vec(plan.lookAt) << "\n"
       << "up = [0.0, 0.0, 1.0]\n"
       << "fov_deg = [70.0, 55.0]\n"
       << "resolution = [" << plan.width << ", " << plan.height << "]\n"
       << "mode = \"pulsed\"\n"
       << "modulation_mhz = [20.0]\n";
    for (const auto& m : mesh.usedMaterials())
        os << materialToml(m);
    os << "\n[[mesh]]\n"
       << "path = \"" << plan.meshFile << "\"\n"
       << "\n[output]\n"
       << "dir = \"results\"\n"
       << "timeseries = true\n"
       << "kij = false\n"
       << "images = true\n";
    return os.str();
}

} // namespace

const std::vector<GeneratorInfo>& sceneGenerators() {
    static const std::vector<GeneratorInfo> infos = [] {
        std::vector<GeneratorInfo> v;
        for (const auto& k : kinds())
            v.push_back(k.info);
        return v;
    }();
    return infos;
}

GeneratedScene generateScene(const std::string& kind, const fs::path& dir, std::uint32_t seed, bool force) {
    const Kind* found = nullptr;
    std::vector<std::string> names;
    for (const auto& k : kinds()) {
        names.push_back(k.info.kind);
        if (k.info.kind == kind) found = &k;
    }
    if (!found) {
        std::string list;
        for (const auto& n : names)
            list += (list.empty() ? "" : ", ") + n;
        const std::string hint = didYouMean(kind, names);
        throw InputError("unknown scene kind \"" + kind + "\"" +
                         (hint.empty() ? "" : " (did you mean \"" + hint + "\"?)") +
                         "; known kinds: " + list);
    }

    MeshBuilder mesh;
    const ScenePlan plan = found->generate(mesh, seed, found->info.targetTriangles);

    // The user's own files are never replaced without --force; rsim's own generated ones are.
    for (const fs::path& f : {dir / plan.meshFile, dir / "scene.toml"})
        if (std::error_code ec; !force && fs::exists(fs::symlink_status(f, ec)))
            checkReplaceableFile(f, "# Generated by `rsim generate", "rsim generate", {},
                                 "Choose another --output, or pass --force to replace it");
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec || !fs::is_directory(dir))
        throw Error("cannot create the output folder " + dir.string() +
                    (ec ? ": " + ec.message() : ""));
    const std::string header =
        commentLines("Generated by `rsim generate " + kind + " --seed " + std::to_string(seed) +
                     "`: " + plan.contents + ". Materials are the usemtl groups; see scene.toml.");
    writeFileAtomically(dir / plan.meshFile, mesh.objText(header));
    GeneratedScene out;
    out.sceneFile = dir / "scene.toml";
    writeFileAtomically(out.sceneFile, sceneToml(kind, seed, plan, mesh));
    out.triangles = mesh.simTriangles();
    return out;
}

} // namespace rsim
