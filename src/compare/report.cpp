// SPDX-License-Identifier: MIT
#include "compare/report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace rsim::compare {
namespace {

// Three significant digits, or (`metres`) micrometres: "0.0123", "1.234567".
std::string number(double v, bool metres = false) {
    if (std::isinf(v)) return "one side only";
    if (std::isnan(v)) return "nan";
    char buf[64];
    if (metres) std::snprintf(buf, sizeof buf, "%.6f", v);
    else std::snprintf(buf, sizeof buf, "%.3g", v);
    return buf;
}

class Table {
public:
    explicit Table(std::vector<std::string> header) { rows_.push_back(std::move(header)); }
    void add(std::vector<std::string> row) { rows_.push_back(std::move(row)); }
    // Numbers right-aligned, text left-aligned, so columns of figures line up by magnitude.
    void print(std::ostream& out, const std::vector<bool>& rightAlign) const {
        std::vector<std::size_t> width(rows_[0].size(), 0);
        for (const auto& r : rows_)
            for (std::size_t c = 0; c < r.size(); ++c) width[c] = std::max(width[c], r[c].size());
        for (std::size_t r = 0; r < rows_.size(); ++r) {
            std::string line = "  ";
            for (std::size_t c = 0; c < rows_[r].size(); ++c) {
                const std::string& cell = rows_[r][c];
                const std::string pad(width[c] - cell.size(), ' ');
                line += rightAlign[c] ? pad + cell : cell + pad;
                if (c + 1 < rows_[r].size()) line += "  ";
            }
            while (!line.empty() && line.back() == ' ') line.pop_back();
            out << line << '\n';
            if (r == 0) {
                std::size_t total = 0;
                for (std::size_t w : width) total += w + 2;
                out << "  " << std::string(total - 2, '-') << '\n';
            }
        }
    }

private:
    std::vector<std::vector<std::string>> rows_;
};

// A name as one line of a table: control characters (a mesh name may hold a line end) escaped.
std::string oneLine(const std::string& s) {
    std::string out;
    for (char c : s) {
        if (c == '\n') out += "\\n";
        else if (c == '\r') out += "\\r";
        else if (static_cast<unsigned char>(c) < 0x20) out += '?';
        else out += c;
    }
    return out;
}

std::string xmlEscaped(const std::string& s) {
    std::string out;
    for (char c : s) {
        if (c == '&') out += "&amp;";
        else if (c == '<') out += "&lt;";
        else if (c == '>') out += "&gt;";
        else if (c == '"') out += "&quot;";
        else if (c == '\n') out += "&#10;";
        else out += c;
    }
    return out;
}

// JSON has no infinity: a value on one side only is null, with "one_side_only": true.
void putDiff(nlohmann::ordered_json& j, const char* key, double v) {
    if (std::isfinite(v)) j[key] = v;
    else j[key] = nullptr;
}

} // namespace

void printComparison(std::ostream& out, const Comparison& c, std::size_t showWorst) {
    Table table({"check", "compared", "beyond tol", "NaN on one side", "max |diff|", "tolerance", "result"});
    for (const Check& k : c.checks)
        table.add({k.name, k.comparedText.empty() ? std::to_string(k.compared) : k.comparedText, std::to_string(k.beyond),
                   std::to_string(k.nanOneSide),
                   k.maxDiff ? number(*k.maxDiff) + (k.unit.empty() ? "" : " " + k.unit) : "-", k.toleranceText,
                   k.pass ? "PASS" : "FAIL"});
    table.print(out, {false, true, true, true, true, false, false});
    for (const std::string& note : c.notes) out << "  note: " << note << '\n';
    if (c.pass() || showWorst == 0) return;
    if (!c.worstTriangles.empty()) {
        out << "\nworst triangles (the " << c.worstTriangles.size() << " that differ most)\n";
        Table worst({"id", "source_mesh", "distance A (m)", "distance B (m)", "diff (m)"});
        for (const WorstTriangle& w : c.worstTriangles)
            worst.add({std::to_string(w.id), oneLine(w.mesh), number(w.a, true), number(w.b, true), number(w.diff, true)});
        worst.print(out, {true, false, true, true, true});
    }
    if (!c.worstPixels.empty()) {
        out << "\nworst depth pixels (the " << c.worstPixels.size() << " that differ most; row 0 at the top)\n";
        Table worst({"x", "y", "depth A (m)", "depth B (m)", "diff (m)"});
        for (const WorstPixel& w : c.worstPixels)
            worst.add({std::to_string(w.x), std::to_string(w.y), number(w.a, true), number(w.b, true),
                       number(w.diff, true)});
        worst.print(out, {true, true, true, true, true});
    }
}

nlohmann::ordered_json comparisonJson(const Comparison& c) {
    nlohmann::ordered_json j;
    j["result"] = c.pass() ? "pass" : "fail";
    nlohmann::ordered_json checks = nlohmann::ordered_json::array();
    for (const Check& k : c.checks) {
        nlohmann::ordered_json e;
        e["check"] = k.name;
        e["compared"] = k.compared;
        if (!k.comparedText.empty()) e["detail"] = k.comparedText;
        e["beyond_tolerance"] = k.beyond;
        e["nan_on_one_side"] = k.nanOneSide;
        if (k.maxDiff) putDiff(e, "max_diff", *k.maxDiff);
        else e["max_diff"] = nullptr;
        e["unit"] = k.unit;
        if (k.tolerance) e["tolerance"] = *k.tolerance;
        else e["tolerance"] = nullptr;
        e["tolerance_text"] = k.toleranceText;
        e["result"] = k.pass ? "PASS" : "FAIL";
        e["failure"] = k.pass ? "" : k.failure;
        checks.push_back(std::move(e));
    }
    j["checks"] = std::move(checks);
    j["notes"] = c.notes;
    nlohmann::ordered_json triangles = nlohmann::ordered_json::array(), pixels = nlohmann::ordered_json::array();
    for (const WorstTriangle& w : c.worstTriangles) {
        nlohmann::ordered_json e{{"id", w.id}, {"source_mesh", w.mesh}};
        putDiff(e, "distance_a_m", w.a);
        putDiff(e, "distance_b_m", w.b);
        putDiff(e, "diff_m", w.diff);
        e["one_side_only"] = std::isinf(w.diff);
        triangles.push_back(std::move(e));
    }
    for (const WorstPixel& w : c.worstPixels) {
        nlohmann::ordered_json e{{"x", w.x}, {"y", w.y}};
        putDiff(e, "depth_a_m", w.a);
        putDiff(e, "depth_b_m", w.b);
        putDiff(e, "diff_m", w.diff);
        e["one_side_only"] = std::isinf(w.diff);
        pixels.push_back(std::move(e));
    }
    j["worst_triangles"] = std::move(triangles);
    j["worst_pixels"] = std::move(pixels);
    return j;
}

std::string junitTestsuite(const std::string& name, const std::vector<std::pair<std::string, const Comparison*>>& parts) {
    std::size_t tests = 0, failures = 0;
    for (const auto& [prefix, c] : parts)
        for (const Check& k : c->checks) {
            ++tests;
            failures += !k.pass;
        }
    std::string xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
    xml += "<testsuite name=\"" + xmlEscaped(name) + "\" tests=\"" + std::to_string(tests) + "\" failures=\"" +
           std::to_string(failures) + "\">\n";
    for (const auto& [prefix, c] : parts)
        for (const Check& k : c->checks) {
            xml += "  <testcase classname=\"rsim.compare\" name=\"" + xmlEscaped(prefix + k.name) + "\"";
            xml += k.pass ? "/>\n" : ">\n    <failure message=\"" + xmlEscaped(k.failure) + "\"/>\n  </testcase>\n";
        }
    return xml + "</testsuite>\n";
}

} // namespace rsim::compare
