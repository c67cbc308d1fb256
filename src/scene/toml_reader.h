// SPDX-License-Identifier: MIT
// Reading TOML tables for the scene file (scene_file.cpp): typed, range-checked values whose
// errors name the file, line and key (or the command-line option that set the value), and the
// command line's --set overrides applied to the parsed document.
#pragma once
#include <algorithm>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <glm/vec3.hpp>
#include <toml++/toml.h>

#include "scene/scene_desc.h"
#include "util/did_you_mean.h"
#include "util/error.h"

namespace rsim::toml_reader {

inline std::string typeName(const toml::node& n) {
    switch (n.type()) {
    case toml::node_type::table:
        return "a table";
    case toml::node_type::array:
        return "an array";
    case toml::node_type::string:
        return "a string";
    case toml::node_type::integer:
        return "an integer";
    case toml::node_type::floating_point:
        return "a number";
    case toml::node_type::boolean:
        return "a boolean";
    default:
        return "a date/time";
    }
}

inline std::string quoteValue(const toml::node& n) {
    std::ostringstream os;
    n.visit([&](auto&& v) { os << v; });
    std::string s = os.str();
    if (s.size() > 60) s = s.substr(0, 57) + "...";
    return s;
}

// "table.key" -> how the command line set it ("--set simulation.samples=0", "--dt-ns 0"), so
// that a message about an overridden value points there rather than at a scene-file line.
using OverrideOrigins = std::map<std::string, std::string>;

// Reads one TOML table, remembering which keys were used so that the rest can be reported.
class TableReader {
  public:
    TableReader(const toml::table& table, std::string context, std::string fileName,
                const OverrideOrigins* origins = nullptr, std::string tableName = {})
        : table_(table), context_(std::move(context)), file_(std::move(fileName)),
          origins_(origins), tableName_(std::move(tableName)) {}

    // The command-line option that set `key` of this table, or "".
    std::string overriddenBy(const std::string& key) const {
        if (!origins_ || key.empty()) return {};
        auto it = origins_->find(tableName_ + "." + key);
        return it == origins_->end() ? std::string() : it->second;
    }

    [[noreturn]] void fail(const toml::node* at, const std::string& key,
                           const std::string& message) const {
        std::ostringstream os;
        if (std::string by = overriddenBy(key); !by.empty()) {
            os << by << ": " << context_ << " " << key << ": " << message;
            throw InputError(os.str());
        }
        os << file_;
        if (at && at->source().begin.line)
            os << ":" << at->source().begin.line;
        else if (table_.source().begin.line)
            os << ":" << table_.source().begin.line;
        os << ": " << context_ << (key.empty() ? "" : " " + key) << ": " << message;
        throw InputError(os.str());
    }

    // Where a key of this table stands (for errors about values read already), or nullptr.
    const toml::node* at(const std::string& key) const { return table_.get(key); }
    const std::string& context() const { return context_; }

    const toml::node* find(const std::string& key) {
        known_.push_back(key);
        return table_.get(key);
    }

    double number(const std::string& key, double def, double lo, double hi, bool loOpen = false) {
        const toml::node* n = find(key);
        if (!n) return def;
        if (!n->is_number()) fail(n, key, "expected a number, got " + typeName(*n));
        double v = *n->value<double>();
        checkRange(n, key, v, lo, hi, loOpen);
        return v;
    }

    std::uint32_t integer(const std::string& key, std::uint32_t def, std::int64_t lo,
                          std::int64_t hi) {
        const toml::node* n = find(key);
        if (!n) return def;
        if (!n->is_integer())
            fail(n, key, "expected an integer, got " + typeName(*n) + " (" + quoteValue(*n) + ")");
        std::int64_t v = *n->value<std::int64_t>();
        if (v < lo || v > hi)
            fail(n, key,
                 "expected an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) +
                     "], got " + std::to_string(v));
        return std::uint32_t(v);
    }

    bool boolean(const std::string& key, bool def) {
        const toml::node* n = find(key);
        if (!n) return def;
        if (!n->is_boolean()) fail(n, key, "expected true or false, got " + typeName(*n));
        return *n->value<bool>();
    }

    std::optional<std::string> string(const std::string& key) {
        const toml::node* n = find(key);
        if (!n) return std::nullopt;
        if (!n->is_string()) fail(n, key, "expected a string, got " + typeName(*n));
        return *n->value<std::string>();
    }

    std::string choice(const std::string& key, const std::string& def,
                       const std::vector<std::string>& allowed) {
        auto s = string(key);
        if (!s) return def;
        if (std::find(allowed.begin(), allowed.end(), *s) == allowed.end()) {
            std::string list;
            for (auto& a : allowed)
                list += (list.empty() ? "\"" : ", \"") + a + "\"";
            std::string hint = didYouMean(*s, allowed);
            fail(table_.get(key), key,
                 "expected one of " + list + ", got \"" + *s + "\"" +
                     (hint.empty() ? "" : " (did you mean \"" + hint + "\"?)"));
        }
        return *s;
    }

    std::vector<double> numbers(const std::string& key, std::size_t minCount, std::size_t maxCount,
                                const std::vector<double>& def) {
        const toml::node* n = find(key);
        if (!n) return def;
        const toml::array* a = n->as_array();
        if (!a) fail(n, key, "expected an array of numbers, got " + typeName(*n));
        if (a->size() < minCount || a->size() > maxCount) {
            std::string want = minCount == maxCount
                                   ? std::to_string(minCount)
                                   : std::to_string(minCount) + " to " + std::to_string(maxCount);
            fail(n, key, "expected " + want + " numbers, got " + std::to_string(a->size()));
        }
        std::vector<double> out;
        for (const auto& e : *a) {
            if (!e.is_number()) fail(n, key, "expected numbers, found " + typeName(e));
            double v = *e.value<double>();
            if (!std::isfinite(v)) fail(n, key, "expected finite numbers, got " + quoteValue(e));
            out.push_back(v);
        }
        return out;
    }

    glm::dvec3 vec3(const std::string& key, glm::dvec3 def) {
        auto v = numbers(key, 3, 3, {def.x, def.y, def.z});
        return {v[0], v[1], v[2]};
    }

    // A point in the scene, m: each coordinate within +-maxAbs (fp32 must carry it and its square).
    glm::dvec3 point(const std::string& key, glm::dvec3 def, double maxAbs) {
        const glm::dvec3 v = vec3(key, def);
        for (int k = 0; k < 3; ++k)
            if (!(std::abs(v[k]) <= maxAbs)) {
                std::ostringstream os;
                os << "coordinates must be within +-" << maxAbs << " m (distances are computed in fp32), got "
                   << v[k];
                fail(table_.get(key), key, os.str());
            }
        return v;
    }

    // A number or an array of 3 numbers (the mesh's `scale`), each of magnitude in [lo, hi].
    glm::dvec3 scalarOrVec3(const std::string& key, glm::dvec3 def, double lo, double hi) {
        const toml::node* n = find(key); // a known key, also when it is a single number
        glm::dvec3 v = def;
        if (n && n->is_number()) {
            const double s = *n->value<double>();
            v = {s, s, s};
        } else {
            v = vec3(key, def);
        }
        for (int k = 0; k < 3; ++k)
            if (!(std::abs(v[k]) >= lo && std::abs(v[k]) <= hi)) {
                std::ostringstream os;
                os << "each factor's magnitude must be in [" << lo << ", " << hi
                   << "] (a negative factor mirrors), got " << v[k];
                fail(n, key, os.str());
            }
        return v;
    }

    void checkRange(const toml::node* n, const std::string& key, double v, double lo, double hi,
                    bool loOpen) const {
        if (!std::isfinite(v)) fail(n, key, "expected a finite number, got " + quoteValue(*n));
        bool below = loOpen ? v <= lo : v < lo;
        if (below || v > hi) {
            std::ostringstream os;
            os << "expected a number in " << (loOpen ? "(" : "[") << lo << ", " << hi << "], got "
               << v;
            fail(n, key, os.str());
        }
    }

    // Reports the first key that no reader asked for.
    void finish() const {
        for (auto&& [k, v] : table_) {
            std::string key(k.str());
            if (std::find(known_.begin(), known_.end(), key) != known_.end()) continue;
            std::string hint = didYouMean(key, known_);
            std::ostringstream os;
            if (std::string by = overriddenBy(key); !by.empty())
                os << by;
            else
                os << file_ << ":" << k.source().begin.line;
            os << ": " << context_ << ": unknown key \"" << key << "\"";
            if (!hint.empty())
                os << " (did you mean \"" << hint << "\"?)";
            else {
                os << " (known keys:";
                for (auto& kk : known_)
                    os << " " << kk;
                os << ")";
            }
            throw InputError(os.str());
        }
    }

  private:
    const toml::table& table_;
    std::string context_, file_;
    const OverrideOrigins* origins_;
    std::string tableName_;
    std::vector<std::string> known_;
};

// Calls read(reader, node) for each table of the array of tables [[name]] in `root`, the
// reader naming it "[[name]] #k" in errors (k from 1). The caller has checked the shape.
template <class Read>
void forEachArrayTable(const toml::table& root, const std::string& name,
                       const std::string& fileName, Read&& read, const OverrideOrigins* origins = nullptr) {
    const toml::node* n = root.get(name);
    if (!n) return;
    int index = 0;
    for (const auto& e : *n->as_array()) {
        // Overrides of this entry are keyed NAME.<its name>.KEY (material.wall.reflectance).
        const auto entry = (*e.as_table())["name"].value<std::string>();
        TableReader r(*e.as_table(), "[[" + name + "]] #" + std::to_string(++index), fileName, origins,
                      name + "." + entry.value_or(""));
        read(r, e);
    }
}

inline const std::vector<std::string> kTopLevel = {"simulation", "light",  "sensor", "sensor_model",
                                                   "material",   "mesh",   "output", "pose", "tuning"};

// Applies "a.b=value" overrides to the parsed document; returns where each came from.
OverrideOrigins applyOverrides(toml::table& root, const std::vector<SceneOverride>& overrides);

} // namespace rsim::toml_reader
