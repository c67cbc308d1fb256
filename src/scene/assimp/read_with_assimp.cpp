// SPDX-License-Identifier: MIT
// The assimp module (util/modules.h): a mesh file read by assimp, flattened to triangles. Only
// the mesh readers' child processes (scene/mesh_import.h) open it: rsim itself never loads
// assimp.
#include <new>
#include <string>
#include <vector>

#include <assimp/DefaultLogger.hpp>
#include <assimp/Importer.hpp>
#include <assimp/LogStream.hpp>
#include <assimp/postprocess.h>
#include <assimp/scene.h>

#include "scene/mesh_import.h"
#include "util/error.h"

namespace rsim {
namespace {

// assimp's warnings during one import. Some importers drop damaged data with a warning only (the
// glTF reader: "Some faces had out-of-range indices. Those faces were dropped."), where the OBJ
// and PLY readers fail: those warnings are errors here, so that every format reports the same
// damage the same way.
class ImportWarnings final : public Assimp::LogStream {
public:
    ImportWarnings() {
        if (!Assimp::DefaultLogger::isNullLogger()) return;
        Assimp::DefaultLogger::create("", Assimp::Logger::NORMAL, 0);
        Assimp::DefaultLogger::get()->attachStream(this, Assimp::Logger::Warn | Assimp::Logger::Err);
        attached_ = true;
    }
    ~ImportWarnings() override {
        if (!attached_) return;
        Assimp::DefaultLogger::get()->detachStream(this, Assimp::Logger::Warn | Assimp::Logger::Err);
        Assimp::DefaultLogger::kill();
    }
    ImportWarnings(const ImportWarnings&) = delete;
    ImportWarnings& operator=(const ImportWarnings&) = delete;
    void write(const char* message) override { messages_.emplace_back(message); }
    // The first warning that says data was lost, without assimp's "Warn,  T0: " prefix; "" if none.
    std::string dataLost() const {
        for (const std::string& m : messages_)
            if (m.find("out-of-range") != std::string::npos || m.find("out of range") != std::string::npos ||
                m.find("were dropped") != std::string::npos) {
                const std::size_t colon = m.find(": ");
                std::string text = colon == std::string::npos ? m : m.substr(colon + 2);
                while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
                return text;
            }
        return {};
    }

private:
    std::vector<std::string> messages_;
    bool attached_ = false;
};

ImportedTriangles readWithAssimp(const std::filesystem::path& file, const std::string& where) {
    ImportWarnings warnings;
    Assimp::Importer importer;
    importer.SetPropertyInteger(AI_CONFIG_PP_SBP_REMOVE, aiPrimitiveType_POINT | aiPrimitiveType_LINE);
    const aiScene* ai = nullptr;
    try {
        // ValidateDataStructure first: it rejects out-of-range indices before the other steps
        // would read through them.
        ai = importer.ReadFile(file.string(), aiProcess_ValidateDataStructure | aiProcess_Triangulate |
                                                  aiProcess_PreTransformVertices | aiProcess_SortByPType);
    } catch (const std::bad_alloc&) {
        throw; // the memory cap (importMemoryBytes): reported as such by importTriangles
    } catch (const std::exception& e) {
        throw InputError(where + ": cannot read mesh file " + file.string() + ": " + e.what());
    }
    // assimp turns an allocation failure into an error string: it is the memory cap's.
    if (!ai && std::string(importer.GetErrorString()) == std::bad_alloc().what()) throw std::bad_alloc();
    if (!ai || (ai->mFlags & AI_SCENE_FLAGS_INCOMPLETE) || !ai->mRootNode)
        throw InputError(where + ": cannot read mesh file " + file.string() + ": " +
                         (importer.GetErrorString()[0] ? importer.GetErrorString() : "not a mesh assimp can read"));
    if (const std::string lost = warnings.dataLost(); !lost.empty())
        throw InputError(where + ": corrupt mesh file " + file.string() + ": " + lost);
    ImportedTriangles t;
    t.meshCount = ai->mNumMeshes;
    for (unsigned mi = 0; mi < ai->mNumMeshes; ++mi) {
        const aiMesh* m = ai->mMeshes[mi];
        if (!m || !(m->mPrimitiveTypes & aiPrimitiveType_TRIANGLE)) continue;
        const auto part = std::uint32_t(t.partName.size());
        t.partName.emplace_back(m->mName.C_Str());
        t.partMaterial.emplace_back(m->mMaterialIndex < ai->mNumMaterials && ai->mMaterials[m->mMaterialIndex]
                                        ? ai->mMaterials[m->mMaterialIndex]->GetName().C_Str()
                                        : "");
        for (unsigned f = 0; f < m->mNumFaces; ++f) {
            const aiFace& face = m->mFaces[f];
            if (face.mNumIndices != 3) continue;
            for (int k = 0; k < 3; ++k) {
                const unsigned idx = face.mIndices[k];
                if (idx >= m->mNumVertices)
                    throw InputError(where + ": corrupt mesh file " + file.string() + ": face " + std::to_string(f) +
                                     " refers to vertex " + std::to_string(idx) + " of " +
                                     std::to_string(m->mNumVertices));
                const aiVector3D& p = m->mVertices[idx];
                t.xyz.insert(t.xyz.end(), {p.x, p.y, p.z});
            }
            t.face.push_back(f);
            t.part.push_back(part);
        }
    }
    return t;
}

const MeshReaderCalls kCalls{&readWithAssimp};
const bool kProvided = (modules::provide("assimp", &kCalls), true);

} // namespace
} // namespace rsim
