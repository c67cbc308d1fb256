// SPDX-License-Identifier: MIT
#include "pipeline/job_agreement.h"

#include <fstream>
#include <iterator>

#include <fmt/format.h>
#include <xxhash.h>

#include "util/error.h"

namespace rsim {
namespace {

std::string hashOfFile(const std::filesystem::path& file) {
    std::ifstream in(file, std::ios::binary);
    if (!in) throw InputError(file.string() + ": cannot be read");
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    return fmt::format("{:016x}", XXH3_64bits(bytes.data(), bytes.size()));
}

} // namespace

void checkRanksAgree(const Ranks& ranks, const std::string& what) {
    const std::vector<std::string> all = ranks.allgather(what);
    for (std::size_t r = 1; r < all.size(); ++r)
        if (all[r] != all[0])
            throw InputError(fmt::format("the ranks of this job run different simulations: rank 0 has {}, rank {} has "
                                         "{}. Start every rank with the same command, scene file, meshes and options",
                                         all[0], r, all[r]));
}

std::string jobFingerprint(const RunRequest& req, const SceneDesc& scene) {
    // What decides the simulation; not what may differ between machines (devices, backend,
    // memory caps and pose groups, caches, logging, the tuning.* keys): the later checks see
    // those that matter. K's chunk size (tuning.chunk_mb) is in `req`, as applied.
    std::string settings;
    for (const SceneOverride& o : req.overrides)
        if (!o.key.starts_with("tuning."))
            settings += fmt::format("{}{}={}", settings.empty() ? "" : " ", o.key, o.value);
    // Files by content: ranks on other machines may see them under other paths.
    std::string out = fmt::format("rsim {}, a scene file of bytes {}, settings [{}], K {} in chunks of {} MiB, "
                                  "--mpi-split {}",
                                  RSIM_VERSION, hashOfFile(scene.file), settings,
                                  req.kFormat.empty() ? "default" : req.kFormat, req.chunkMb,
                                  req.mpiSplit.empty() ? "default" : req.mpiSplit);
    out += req.posesFile ? fmt::format(", a poses file of bytes {}", hashOfFile(*req.posesFile)) : ", no poses file";
    return out;
}

std::string triangleFingerprint(const PreparedScene& s) {
    XXH3_state_t* st = XXH3_createState();
    XXH3_64bits_reset(st);
    for (const auto* v : {&s.v0, &s.v1, &s.v2}) XXH3_64bits_update(st, v->data(), v->size() * sizeof(glm::vec3));
    XXH3_64bits_update(st, s.reflectance.data(), s.reflectance.size() * sizeof(float));
    XXH3_64bits_update(st, s.id.data(), s.id.size() * sizeof(std::uint32_t));
    const std::uint64_t h = XXH3_64bits_digest(st);
    XXH3_freeState(st);
    return fmt::format("{} triangles (vertices, reflectances and ids {:016x})", s.size(), h);
}

} // namespace rsim
