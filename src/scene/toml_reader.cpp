// SPDX-License-Identifier: MIT
#include "scene/toml_reader.h"

#include <algorithm>

namespace rsim::toml_reader {

OverrideOrigins applyOverrides(toml::table& root, const std::vector<SceneOverride>& overrides) {
    OverrideOrigins origins;
    for (const auto& o : overrides) {
        auto dot = o.key.find('.');
        if (dot == std::string::npos || o.key.find('.', dot + 1) != std::string::npos)
            throw InputError("--set " + o.key + "=" + o.value +
                             ": expected TABLE.KEY=VALUE, e.g. simulation.samples=32");
        std::string tableName = o.key.substr(0, dot), key = o.key.substr(dot + 1);
        if (tableName == "mesh" || tableName == "material")
            throw InputError("--set " + o.key + ": [[" + tableName +
                             "]] entries cannot be overridden from the command line");
        if (std::find(kTopLevel.begin(), kTopLevel.end(), tableName) == kTopLevel.end()) {
            std::string hint = didYouMean(tableName, kTopLevel);
            throw InputError("--set " + o.key + ": unknown table \"" + tableName + "\"" +
                             (hint.empty() ? "" : " (did you mean \"" + hint + "\"?)"));
        }
        toml::table parsed;
        try {
            parsed = toml::parse("v = " + o.value, "--set " + o.key);
        } catch (const toml::parse_error& e) {
            // Accept bare words for string values: --set sensor.mode=amcw
            try {
                parsed = toml::parse("v = \"" + o.value + "\"", "--set " + o.key);
            } catch (const toml::parse_error&) {
                throw InputError("--set " + o.key + "=" + o.value + ": not a TOML value (" +
                                 std::string(e.description()) + ")");
            }
        }
        toml::node* section = root.get(tableName);
        if (!section) {
            root.insert_or_assign(tableName, toml::table{});
            section = root.get(tableName);
        }
        if (!section->is_table())
            throw InputError("--set " + o.key + ": \"" + tableName + "\" is not a table");
        parsed.get("v")->visit([&](auto&& v) { section->as_table()->insert_or_assign(key, v); });
        origins[o.key] = o.origin.empty() ? "--set " + o.key + "=" + o.value : o.origin;
    }
    return origins;
}

} // namespace rsim::toml_reader
