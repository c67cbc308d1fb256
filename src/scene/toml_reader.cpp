// SPDX-License-Identifier: MIT
#include "scene/toml_reader.h"
#include "scene/toml_text.h"

#include <algorithm>

namespace rsim::toml_reader {

OverrideOrigins applyOverrides(toml::table& root, const std::vector<SceneOverride>& overrides) {
    OverrideOrigins origins;
    for (const auto& o : overrides) {
        auto dot = o.key.find('.');
        // material.NAME.KEY names the [[material]] called NAME.
        const bool material = o.key.rfind("material.", 0) == 0 && o.key.find('.', dot + 1) != std::string::npos;
        if (dot == std::string::npos || (!material && o.key.find('.', dot + 1) != std::string::npos))
            throw InputError("--set " + o.key + "=" + o.value +
                             ": expected TABLE.KEY=VALUE, e.g. simulation.samples=32, or material.NAME.KEY=VALUE");
        std::string tableName = o.key.substr(0, dot), key = o.key.substr(dot + 1);
        if (tableName == "mesh" || tableName == "pose" || (tableName == "material" && !material))
            throw InputError("--set " + o.key + ": [[" + tableName +
                             "]] entries cannot be overridden from the command line" +
                             (tableName == "material" ? "; name one: material.NAME.reflectance=0.3" : ""));
        if (std::find(kTopLevel.begin(), kTopLevel.end(), tableName) == kTopLevel.end()) {
            std::string hint = didYouMean(tableName, kTopLevel);
            throw InputError("--set " + o.key + ": unknown table \"" + tableName + "\"" +
                             (hint.empty() ? "" : " (did you mean \"" + hint + "\"?)"));
        }
        checkTomlNesting(o.value, "--set " + o.key);
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
        if (material) {
            const std::string name = key.substr(0, key.rfind('.')), field = key.substr(key.rfind('.') + 1);
            if (field == "name")
                throw InputError("--set " + o.key + ": a material's name cannot be overridden");
            toml::table* target = nullptr;
            std::vector<std::string> names;
            if (toml::array* all = root["material"].as_array())
                for (auto& e : *all)
                    if (toml::table* t = e.as_table())
                        if (auto n = (*t)["name"].value<std::string>()) {
                            names.push_back(*n);
                            if (*n == name) target = t;
                        }
            if (!target) {
                const std::string hint = didYouMean(name, names);
                std::string list;
                for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
                throw InputError("--set " + o.key + ": no [[material]] is named \"" + name + "\"" +
                                 (hint.empty() ? "" : " (did you mean \"" + hint + "\"?)") +
                                 (list.empty() ? "" : "; the scene's materials: " + list));
            }
            parsed.get("v")->visit([&](auto&& v) { target->insert_or_assign(field, v); });
            origins[o.key] = o.origin.empty() ? "--set " + o.key + "=" + o.value : o.origin;
            continue;
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
