// SPDX-License-Identifier: MIT
// The K cache (README.md, "K cache"): K after visibility, stored on disk under a key that hashes
// everything K depends on (the triangles after subdivision in Morton order, the ray offset, S,
// the seed, the estimator and its version, the near-pair factor, the format, the chunking, and
// the backend, ray path and devices that computed it, so that a cached K reproduces that
// configuration's run bit for bit). A later run with the same key reads K chunk by chunk instead of tracing rays.
// Every header field and chunk is checksummed: a damaged, truncated or mismatching file is
// reported and ignored, never used.
#pragma once
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "core/prepared_scene.h"
#include "core/results.h"
#include "core/run_metadata.h"
#include "core/sim_config.h"
#include "k/host_k.h"

namespace rsim {

// Raise when what the visibility pass computes or stores for the same inputs changes
// (form_factor.h, the sampling, the ray offsets, the encoders), so that older cache files stop
// matching. 2: near pairs at 32 S, far pairs spread over their row's points. 3: the
// logarithmic tables' range rounded outwards. 4: K's segments start and end
// on the pair's triangles, which the tracers skip by id. 5: they stop a pad of a few fp32 units
// from either plane instead, and the rays are opaque again (form_factor.h, rsimKRayPad). 6: the
// 8-bit logarithmic tables finer in their top 14 (k_encode.h, logTable). 7: a near pair's
// samples beyond the first S/2 per side summed in 16 parts on the GPU (gpu_layout.h,
// RSIM_NEAR_PARTS), which rounds its sums differently. 8: a pair's rays tested first against the
// triangles that blocked its earlier rays (visibility_pairs.glsl), whose test, not the tracer's,
// then gives the verdict of rays that graze them.
inline constexpr std::uint32_t kKEstimatorVersion = 8;

struct CachedK {
    HostK K;
    VisibilityStats stats;
    KStorageReport storage;
};

class KCache {
  public:
    // Files live in `dir` (created when the first K is stored); at most `maxBytes` in all, the
    // least recently used files going first.
    KCache(std::filesystem::path dir, std::uint64_t maxBytes);

    // The key of K for this scene and settings, computed by `computedBy` ("cpu/embree",
    // "vulkan/pipeline/<devices>", ...): 32 hex digits.
    static std::string key(const PreparedScene& scene, const KSettings& settings, const KChunking& chunking,
                           const std::string& computedBy);

    // "backend/path[/device...]" of the run `meta` describes: what computedBy names. The CPU's
    // K does not depend on its threads; a GPU's is tied to its devices and drivers.
    static std::string computedBy(const RunMetadata& meta);

    // Whether a file under `key` is there with a sound header for `chunking` and the size its
    // chunks need: what load() will most likely read. Reads the header only; says nothing.
    bool holds(const std::string& key, const KChunking& chunking) const;
    // K stored under `key`, or nothing (not there; or damaged, with a warning naming the file).
    std::optional<CachedK> load(const std::string& key, const KChunking& chunking) const;
    // Stores K (atomically: a reader never sees a partial file); failures are warnings.
    void store(const std::string& key, const HostK& K, const VisibilityStats& stats,
               const KStorageReport& storage) const;

    std::filesystem::path fileOf(const std::string& key) const { return dir_ / (key + ".kcache"); }
    const std::filesystem::path& dir() const { return dir_; }
    std::uint64_t maxBytes() const { return maxBytes_; }

    // $XDG_CACHE_HOME/rsim/k, else $HOME/.cache/rsim/k; empty when neither is set.
    static std::filesystem::path defaultDir();

    // Removes the least recently used files until the others (those no run holds) leave `bytes`
    // of the cache's size: room for a chunks file that grows to that (k/k_journal.h).
    void makeRoom(std::uint64_t bytes) const { evict(maxBytes_ > bytes ? maxBytes_ - bytes : 0); }

  private:
    void evict(std::uint64_t keepBytes) const;
    std::filesystem::path dir_;
    std::uint64_t maxBytes_;
};

} // namespace rsim
