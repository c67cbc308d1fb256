// SPDX-License-Identifier: MIT
// scenes/example.toml documents every key the scene reader accepts (issue 60, point 7): each
// table's keys, as the reader itself lists them in its unknown-key message, are written in the
// example (set, or commented out) under that table.
#include <map>
#include <set>
#include <sstream>
#include <string>

#include <catch2/catch_test_macros.hpp>

#include "scene/scene_desc.h"
#include "support/test_scenes.h"
#include "util/error.h"

using namespace rsim;
using namespace rsim::test;

namespace {

// A key no table has and that is like none (no did-you-mean): the reader then lists its keys.
const std::string kUnknown = "zzzzzzzzzzzzzzzz = 1\n";

// A valid scene whose table `probe` (a key of `tables`) holds kUnknown.
std::string probeScene(const std::map<std::string, std::string>& tables, const std::string& probe) {
    std::string text;
    for (const auto& [header, body] : tables) text += header + "\n" + body + (header == probe ? kUnknown : "");
    return text;
}

// The keys the reader asked for in the table whose unknown key `text` holds: "(known keys: a b c)".
std::set<std::string> knownKeys(const TempDir& dir, const std::string& text) {
    writeFile(dir / "probe.toml", text);
    std::string message;
    try {
        loadSceneFile(dir / "probe.toml");
    } catch (const InputError& e) {
        message = e.what();
    }
    INFO(message);
    const std::size_t at = message.find("(known keys:");
    REQUIRE(at != std::string::npos);
    std::istringstream list(message.substr(at + 12, message.find(')', at) - at - 12));
    std::set<std::string> keys;
    for (std::string k; list >> k;) keys.insert(k);
    return keys;
}

// The keys scenes/example.toml writes under each table, set or commented out ("# key = ...").
std::map<std::string, std::set<std::string>> exampleKeys() {
    std::istringstream in(readFile(std::filesystem::path(RSIM_SOURCE_DIR) / "scenes/example.toml"));
    std::map<std::string, std::set<std::string>> keys;
    std::string table, line;
    while (std::getline(in, line)) {
        std::size_t k = line.find_first_not_of("# ");
        if (k == std::string::npos) continue;
        line = line.substr(k);
        if (line[0] == '[') {
            const std::size_t from = line.find_first_not_of('['), to = line.find(']');
            table = line.substr(from, to - from);
            continue;
        }
        const std::size_t end = line.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789_");
        if (end == 0 || end == std::string::npos) continue;
        const std::size_t eq = line.find_first_not_of(' ', end);
        if (eq != std::string::npos && line[eq] == '=') keys[table].insert(line.substr(0, end));
    }
    return keys;
}

} // namespace

TEST_CASE("scenes/example.toml writes out every key the scene reader accepts", "[scene]") {
    TempDir dir;
    writeFile(dir / "box.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n");
    // Every table, with what its checks need; each [[material]] type reads keys of its own.
    const std::map<std::string, std::string> base = {
        {"[simulation]", "timesteps = 100\n"},
        {"[light]", "position = [0.2, 0.2, 0.5]\n"},
        {"[sensor]", "look_at = [0.2, 0.2, 0.0]\nup = [0, 1, 0]\n"},
        {"[sensor_model]", ""},
        {"[[material]]", "name = \"default\"\n"},
        {"[[mesh]]", "path = \"box.obj\"\n"},
        {"[output]", ""},
        {"[tuning]", ""},
        {"[[pose]]", "name = \"p\"\nposition = [0.2, 0.2, 0.5]\nlook_at = [0.2, 0.2, 0.0]\nup = [0, 1, 0]\n"},
    };
    std::map<std::string, std::set<std::string>> accepted;
    for (const auto& [header, body] : base) {
        const std::string table = header.substr(header.find_first_not_of('['), header.find(']') - header.find_first_not_of('['));
        accepted[table] = knownKeys(dir, probeScene(base, header));
    }
    for (const char* material : {"type = \"plastic\"\n", "type = \"conductor\"\nspecular = 0.9\n",
                                 "type = \"dielectric\"\n"}) {
        std::map<std::string, std::string> typed = base;
        typed["[[material]]"] += material;
        for (const std::string& k : knownKeys(dir, probeScene(typed, "[[material]]"))) accepted["material"].insert(k);
    }
    // Keys read only where given, in place of others: the frame's pulse rate and mean power.
    std::map<std::string, std::string> rates = base;
    rates["[sensor_model]"] = "pulse_rate_mhz = 1.0\nmean_power_w = 1.0\n";
    for (const std::string& k : knownKeys(dir, probeScene(rates, "[sensor_model]"))) accepted["sensor_model"].insert(k);
    // The probes read every table: none came back empty (a message without the list fails above).
    for (const char* table : {"simulation", "light", "sensor", "sensor_model", "material", "mesh", "output", "tuning", "pose"})
        CHECK(accepted[table].size() >= 3);

    const auto example = exampleKeys();
    std::string missing;
    for (const auto& [table, keys] : accepted)
        for (const std::string& k : keys)
            if (!example.count(table) || !example.at(table).count(k)) missing += " [" + table + "] " + k;
    INFO("keys the reader accepts that scenes/example.toml does not write out:" << missing);
    CHECK(missing.empty());
}
