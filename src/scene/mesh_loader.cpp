// SPDX-License-Identifier: MIT
// The [[mesh]] files read (in reader processes, scene/mesh_import.h), moved into world space
// with their materials resolved, and checked for usable triangles.
#include "scene/mesh_loader.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <thread>

#include <glm/gtc/matrix_transform.hpp>
#include <spdlog/spdlog.h>

#include "scene/duplicate_faces.h"
#include "scene/mesh_import.h"
#include "util/modules.h"
#include "scene/mesh_precheck.h"
#include "util/error.h"

namespace rsim {
namespace fs = std::filesystem;

glm::dmat4 worldFromMesh(const MeshDesc& mesh) {
    glm::dmat4 m(1.0);
    m = glm::translate(m, mesh.translate);
    m = glm::rotate(m, glm::radians(mesh.rotate_deg.z), glm::dvec3(0, 0, 1));
    m = glm::rotate(m, glm::radians(mesh.rotate_deg.y), glm::dvec3(0, 1, 0));
    m = glm::rotate(m, glm::radians(mesh.rotate_deg.x), glm::dvec3(1, 0, 0));
    m = glm::scale(m, mesh.scale);
    return m;
}

namespace {

bool finite(const glm::dvec3& v) {
    return std::isfinite(v.x) && std::isfinite(v.y) && std::isfinite(v.z);
}

// Index of the material a triangle uses: the [[mesh]]'s own `material` if given, else the
// scene material named like the mesh file's material, else "default", else a built-in one.
class MaterialResolver {
public:
    explicit MaterialResolver(const SceneDesc& scene) {
        for (const auto& m : scene.materials)
            add(ResolvedMaterial::of(m.name, m.model, m.two_sided));
    }
    std::uint32_t resolve(const MeshDesc& mesh, const std::string& fileMaterial) {
        if (mesh.material) return byName_.at(*mesh.material);
        if (auto it = byName_.find(fileMaterial); it != byName_.end()) return it->second;
        if (auto it = byName_.find("default"); it != byName_.end()) return it->second;
        if (warned_.insert(fileMaterial).second)
            spdlog::warn("{}: material \"{}\" of the mesh file is not defined in the scene and the "
                         "scene has no \"default\" material; using reflectance 0.5, one-sided",
                         mesh.where, fileMaterial);
        auto it = byName_.find(kBuiltin);
        if (it != byName_.end()) return it->second;
        return add(ResolvedMaterial::diffuse(kBuiltin, 0.5f, false));
    }
    std::vector<ResolvedMaterial> materials;

private:
    static constexpr const char* kBuiltin = "(built-in default)";
    std::uint32_t add(ResolvedMaterial m) {
        std::uint32_t i = std::uint32_t(materials.size());
        byName_[m.name] = i;
        materials.push_back(std::move(m));
        return i;
    }
    std::map<std::string, std::uint32_t> byName_;
    std::set<std::string> warned_;
};

// Checks that a [[mesh]]'s file is there and looks like a mesh before assimp reads it.
void checkMeshFile(const MeshDesc& mesh) {
    std::error_code ec;
    if (!fs::exists(mesh.path, ec)) throw InputError(mesh.where + ": mesh file not found: " + mesh.path.string());
    if (fs::is_directory(mesh.path, ec))
        throw InputError(mesh.where + ": mesh path is a directory: " + mesh.path.string());
    if (!fs::is_regular_file(mesh.path, ec))
        throw InputError(mesh.where + ": mesh path is not a regular file (a FIFO, socket or device?): " +
                         mesh.path.string());
    if (!std::ifstream(mesh.path)) throw InputError(mesh.where + ": mesh file cannot be read: " + mesh.path.string());
    if (fs::file_size(mesh.path, ec) == 0) throw InputError(mesh.where + ": mesh file is empty: " + mesh.path.string());
    precheckMeshFile(mesh.path, mesh.where);
}

// Mesh files read at once, each by its own process: a few, so that many large files do not
// take the machine's memory together. (Not threadCount(), util/parallel.h: that starts the
// thread pool, and no thread may run before the forks.)
std::size_t concurrentReads() { return std::clamp<std::size_t>(std::thread::hardware_concurrency(), 1, 8); }

// The scene's mesh files being read, each by its own reader process, handed out in the scene's
// order. Every file's reader process is started before `forked` runs, the first few at once; the
// others as those finish, so `forked` waits for the last of them to start.
class MeshReads {
public:
    MeshReads(const std::vector<MeshDesc>& meshes, const std::function<void()>& forked)
        : meshes_(meshes), forked_(forked) {
        if (meshes_.empty() && forked_) forked_();
        startReads();
    }

    // The next mesh's triangles; starts the next reader.
    ImportedTriangles next() {
        ImportedTriangles imported = reads_.front().finish();
        reads_.pop_front();
        startReads();
        return imported;
    }

private:
    void startReads() {
        while (started_ < meshes_.size() && reads_.size() < window_) {
            reads_.emplace_back(meshes_[started_].path, meshes_[started_].where);
            if (++started_ == meshes_.size() && forked_) forked_();
        }
    }

    const std::vector<MeshDesc>& meshes_;
    const std::function<void()>& forked_;
    const std::size_t window_ = concurrentReads();
    std::deque<PendingImport> reads_;
    std::size_t started_ = 0;
};

// Triangle t of `imported` moved into world space by `xf`, into v. False when a vertex is not
// finite and the [[mesh]] drops such triangles (skip_nonfinite); an InputError when it does not,
// or when a vertex lands beyond kMaxCoordinateM.
bool worldTriangle(const MeshDesc& mesh, const glm::dmat4& xf, const ImportedTriangles& imported, std::size_t t,
                   glm::dvec3 (&v)[3]) {
    const std::string& partName = imported.partName[imported.part[t]];
    const std::uint32_t f = imported.face[t];
    bool ok = true;
    for (int k = 0; k < 3; ++k) {
        const float* p = &imported.xyz[9 * t + 3 * std::size_t(k)];
        glm::dvec3 local(p[0], p[1], p[2]);
        if (!finite(local)) {
            if (!mesh.skip_nonfinite)
                throw InputError(
                    mesh.where + ": mesh file " + mesh.path.string() + " has a " +
                    "non-finite vertex (" + std::to_string(p[0]) + ", " +
                    std::to_string(p[1]) + ", " + std::to_string(p[2]) + ") in face " +
                    std::to_string(f) + " of sub-mesh \"" + partName +
                    "\"; fix the file, or set skip_nonfinite = true on this [[mesh]] "
                    "to drop such triangles");
            ok = false;
        }
        v[k] = glm::dvec3(xf * glm::dvec4(local, 1.0));
        // Triangles are stored in float: beyond ~3.4e38 a coordinate becomes inf.
        if (ok && !(finite(v[k]) && std::abs(v[k].x) <= kMaxCoordinateM &&
                    std::abs(v[k].y) <= kMaxCoordinateM &&
                    std::abs(v[k].z) <= kMaxCoordinateM)) {
            std::ostringstream os;
            os << mesh.where << ": mesh file " << mesh.path.string() << ": vertex "
               << k << " (0-2) of face " << f << " of sub-mesh \"" << partName
               << "\" lies at (" << v[k].x << ", " << v[k].y << ", " << v[k].z
               << ") after the mesh's translate/rotate_deg/scale; coordinates must "
               << "be within +-" << kMaxCoordinateM << " m. Check the file's units "
               << "and this [[mesh]]'s scale";
            throw InputError(os.str());
        }
    }
    return ok;
}

// Appends the triangles of [[mesh]] `meshIndex`, read as `imported`, to `out` in world space with
// their materials; drops the degenerate ones and (skip_nonfinite) those with a non-finite vertex,
// and logs how many.
void appendMeshTriangles(const MeshDesc& mesh, std::size_t meshIndex, const ImportedTriangles& imported,
                         MaterialResolver& materials, LoadedGeometry& out) {
    const glm::dmat4 xf = worldFromMesh(mesh);
    // A mirroring transform turns the winding around; swap two vertices to keep the front.
    const bool mirrored = mesh.scale.x * mesh.scale.y * mesh.scale.z < 0.0;
    std::uint64_t before = out.loaded, nonFinite = 0, degenerate = 0;
    std::vector<std::uint32_t> partMaterial;
    for (const std::string& fileMaterial : imported.partMaterial)
        partMaterial.push_back(materials.resolve(mesh, fileMaterial));
    for (std::size_t t = 0; t < imported.size(); ++t) {
        ++out.loaded;
        glm::dvec3 v[3];
        if (!worldTriangle(mesh, xf, imported, t, v)) {
            ++nonFinite;
            continue;
        }
        if (mirrored) std::swap(v[1], v[2]);
        double area = 0.5 * glm::length(glm::cross(v[1] - v[0], v[2] - v[0]));
        if (!(area >= 1e-12)) {
            ++degenerate;
            continue;
        }
        out.v0.push_back(v[0]);
        out.v1.push_back(v[1]);
        out.v2.push_back(v[2]);
        out.material.push_back(partMaterial[imported.part[t]]);
        out.sourceMesh.push_back(std::uint32_t(meshIndex));
    }
    std::uint64_t read = out.loaded - before;
    if (read == 0)
        throw InputError(mesh.where + ": mesh file " + mesh.path.string() +
                         " holds no triangles (assimp found " +
                         std::to_string(imported.meshCount) +
                         " mesh(es) without faces); is it corrupt or in another format?");
    if (degenerate)
        spdlog::info("{}: dropped {} degenerate triangle(s) (area < 1e-12 m^2)", mesh.where,
                     degenerate);
    if (nonFinite)
        spdlog::warn("{}: dropped {} triangle(s) with non-finite vertices (skip_nonfinite)",
                     mesh.where, nonFinite);
    spdlog::debug("{}: {} triangles", mesh.where, read);
    out.droppedDegenerate += degenerate;
    out.droppedNonFinite += nonFinite;
    out.meshNames.push_back(mesh.pathAsWritten);
}

// Refuses a scene left without triangles, or whose triangles reflect nothing.
void checkUsableTriangles(const SceneDesc& scene, const LoadedGeometry& out) {
    if (out.v0.empty())
        throw InputError(scene.file.string() + ": the scene has no usable triangles (" +
                         std::to_string(out.loaded) + " read, " +
                         std::to_string(out.droppedDegenerate) + " degenerate, " +
                         std::to_string(out.droppedNonFinite) + " non-finite)");
    // Nothing that reflects: the sensor would see no light at all (and the later checks would
    // blame the time window).
    if (std::none_of(out.material.begin(), out.material.end(),
                     [&](std::uint32_t m) { return out.materials[m].reflectance > 0.0f; })) {
        std::string names;
        for (const auto& m : out.materials) names += (names.empty() ? "" : ", ") + m.name;
        throw InputError(scene.file.string() + ": every triangle's material has reflectance 0 (" + names +
                         "): no light can return to the sensor; give a [[material]] a reflectance above 0");
    }
}

} // namespace

LoadedGeometry loadMeshes(const SceneDesc& scene, const std::function<void()>& forked) {
    for (const MeshDesc& mesh : scene.meshes) checkMeshFile(mesh);
    // The readers open the assimp module: a missing one is rsim's installation, not the scene.
    if (!scene.meshes.empty()) modules::checkPresent("assimp");
    MeshReads reads(scene.meshes, forked);

    LoadedGeometry out;
    MaterialResolver materials(scene);
    for (std::size_t meshIndex = 0; meshIndex < scene.meshes.size(); ++meshIndex)
        appendMeshTriangles(scene.meshes[meshIndex], meshIndex, reads.next(), materials, out);
    out.materials = std::move(materials.materials);
    out.droppedDuplicate = dropDuplicateFaces(out);
    if (out.droppedDuplicate)
        spdlog::warn("{}: dropped {} duplicated triangle(s): the same vertices (within {:g} of the scene's size) "
                     "and winding as another triangle, which would emit and receive its light twice",
                     scene.file.string(), out.droppedDuplicate, kDuplicateGridRel);
    checkUsableTriangles(scene, out);
    return out;
}

} // namespace rsim
