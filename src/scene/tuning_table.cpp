// SPDX-License-Identifier: MIT
#include "scene/tuning_table.h"

namespace rsim {

TuningDesc readTuningTable(const toml::table& table, const std::string& fileName,
                           const toml_reader::OverrideOrigins* origins) {
    toml_reader::TableReader r(table, "[tuning]", fileName, origins, "tuning");
    TuningDesc t;
    auto integer = [&](const char* key, std::int64_t lo, std::int64_t hi) -> std::optional<std::uint32_t> {
        if (!r.find(key)) return std::nullopt; // find: a known key, for finish()'s did-you-mean
        return r.integer(key, 0, lo, hi);
    };
    auto flag = [&](const char* key) -> std::optional<bool> {
        if (!r.find(key)) return std::nullopt;
        return r.boolean(key, false);
    };
    auto choice = [&](const char* key, const std::vector<std::string>& allowed) -> std::optional<std::string> {
        if (!r.find(key)) return std::nullopt;
        return r.choice(key, allowed.front(), allowed);
    };
    t.passBlocks = integer("pass_blocks", 0, 4);
    t.radiositySplit = integer("radiosity_split", 0, 32);
    t.radiosityUnroll = integer("radiosity_unroll", 0, 16);
    t.radiosityPoses = integer("radiosity_poses", 0, 4);
    if (t.radiosityPoses && *t.radiosityPoses == 3)
        r.fail(r.at("radiosity_poses"), "radiosity_poses", "expected 0, 1, 2 or 4, got 3");
    t.radiosityLanes = choice("radiosity_lanes", {"auto", "off"});
    t.radiosityLaneReceivers = integer("radiosity_lane_receivers", 0, 32);
    t.radiosityStaged = flag("radiosity_staged");
    if (r.find("chunk_mb")) t.chunkMb = r.number("chunk_mb", 16.0, 0.001, 1048576.0);
    t.kijErrors = flag("kij_errors");
    t.hostRays = choice("host_rays", {"auto", "always", "never"});
    t.cpuIsa = choice("cpu_isa", {"auto", "baseline", "x86-64-v3", "x86-64-v4"});
    t.writers = integer("writers", 1, 256);
    t.poseGroup = integer("pose_group", 1, 1 << 20);
    t.validation = flag("validation");
    t.earlyExit = flag("early_exit");
    r.finish();
    return t;
}

} // namespace rsim
