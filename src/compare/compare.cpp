// SPDX-License-Identifier: MIT
#include "compare/compare.h"

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <string>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

#include "output/file_modules.h"
#include "output/results_writer.h"
#include "util/error.h"

namespace rsim {
namespace {

namespace fs = std::filesystem;

struct Triangles {
    std::vector<double> distance;        // by id
    std::vector<std::string> sourceMesh; // by id
    std::vector<double> geometry;        // by id: cx, cy, cz, area
};

// One CSV record; quoted fields may contain commas and doubled quotes (triangles.csv quotes
// mesh names that need it).
std::vector<std::string> splitCsv(const std::string& line) {
    std::vector<std::string> fields(1);
    bool quoted = false;
    for (std::size_t k = 0; k < line.size(); ++k) {
        const char c = line[k];
        if (quoted) {
            if (c == '"' && k + 1 < line.size() && line[k + 1] == '"') {
                fields.back() += '"';
                ++k;
            } else if (c == '"') {
                quoted = false;
            } else {
                fields.back() += c;
            }
        } else if (c == '"') {
            quoted = true;
        } else if (c == ',') {
            fields.emplace_back();
        } else {
            fields.back() += c;
        }
    }
    return fields;
}

Triangles readTrianglesCsv(const fs::path& dir) {
    const fs::path file = dir / "triangles.csv";
    std::ifstream in(file);
    if (!in) throw InputError(file.string() + ": cannot open (not an rsim results directory?)");
    auto where = [&](std::size_t line) { return file.string() + ":" + std::to_string(line); };

    std::string line;
    if (!std::getline(in, line)) throw InputError(file.string() + ": empty file");
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const std::vector<std::string> header = splitCsv(line);
    auto column = [&](const char* name) {
        const auto it = std::find(header.begin(), header.end(), name);
        if (it == header.end())
            throw InputError(file.string() + ": no column '" + name + "' in the header");
        return std::size_t(it - header.begin());
    };
    const std::size_t idCol = column("id"), meshCol = column("source_mesh"),
                      distCol = column("distance_m");
    const std::size_t geoCols[4] = {column("cx"), column("cy"), column("cz"), column("area")};
    const std::size_t needed =
        std::max({idCol, meshCol, distCol, geoCols[0], geoCols[1], geoCols[2], geoCols[3]}) + 1;

    std::vector<std::size_t> ids;
    std::vector<double> distances, geometry;
    std::vector<std::string> meshes;
    for (std::size_t lineNo = 2; std::getline(in, line); ++lineNo) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (line.empty()) continue;
        std::vector<std::string> f = splitCsv(line);
        if (f.size() < needed)
            throw InputError(where(lineNo) + ": expected " + std::to_string(header.size()) +
                             " fields, found " + std::to_string(f.size()));
        char* end = nullptr;
        const unsigned long long id = std::strtoull(f[idCol].c_str(), &end, 10);
        if (f[idCol].empty() || *end != '\0')
            throw InputError(where(lineNo) + ": bad id '" + f[idCol] + "'");
        const double d = std::strtod(f[distCol].c_str(), &end);
        if (f[distCol].empty() || *end != '\0')
            throw InputError(where(lineNo) + ": bad distance_m '" + f[distCol] + "'");
        for (std::size_t g : geoCols) {
            const double v = std::strtod(f[g].c_str(), &end);
            if (f[g].empty() || *end != '\0')
                throw InputError(where(lineNo) + ": bad " + header[g] + " '" + f[g] + "'");
            geometry.push_back(v);
        }
        ids.push_back(std::size_t(id));
        distances.push_back(d);
        meshes.push_back(std::move(f[meshCol]));
    }
    if (in.bad()) throw InputError(file.string() + ": read failed");

    // Rows are written in id order, but index by id anyway so that a sorted or filtered copy
    // still compares triangle by triangle.
    const std::size_t n = ids.size();
    Triangles t;
    t.distance.assign(n, std::nan(""));
    t.sourceMesh.resize(n);
    t.geometry.resize(4 * n);
    std::vector<bool> seen(n, false);
    for (std::size_t k = 0; k < n; ++k) {
        if (ids[k] >= n || seen[ids[k]])
            throw InputError(file.string() + ": triangle ids are not 0.." + std::to_string(n - 1) +
                             " each once (id " + std::to_string(ids[k]) + ")");
        seen[ids[k]] = true;
        t.distance[ids[k]] = distances[k];
        std::copy(&geometry[4 * k], &geometry[4 * k] + 4, &t.geometry[4 * ids[k]]);
        t.sourceMesh[ids[k]] = std::move(meshes[k]);
    }
    return t;
}

// summary.json, or null when the file is absent; InputError when it is present but not JSON.
nlohmann::json readSummary(const fs::path& dir) {
    const fs::path file = dir / "summary.json";
    std::ifstream in(file);
    if (!in) return nullptr;
    try {
        return nlohmann::json::parse(in);
    } catch (const nlohmann::json::exception& e) {
        throw InputError(file.string() + ": not valid JSON (" + e.what() + ")");
    }
}

// Its sensor_signal_fwd; `present` false when there is none.
std::vector<double> signalOf(const nlohmann::json& j, bool& present) {
    present = j.is_object() && j.contains("sensor_signal_fwd") && j["sensor_signal_fwd"].is_array();
    std::vector<double> s;
    if (present)
        for (const auto& v : j["sensor_signal_fwd"])
            s.push_back(v.is_number() ? v.get<double>() : std::nan("")); // null: NaN was written
    return s;
}

// "path: value" of every leaf of `j`, for a readable diff of two settings objects.
void flatten(const nlohmann::json& j, const std::string& path, std::vector<std::pair<std::string, std::string>>& out) {
    if (j.is_object()) {
        for (auto it = j.begin(); it != j.end(); ++it) flatten(it.value(), path.empty() ? it.key() : path + "." + it.key(), out);
    } else {
        out.emplace_back(path, j.dump());
    }
}

struct Diff {
    std::size_t compared = 0, beyond = 0;
    std::size_t nanMismatch = 0; // of `beyond`: a value on one side, NaN on the other
    double maxAbs = 0.0;         // over pairs that are both finite
};

// A value present (finite) on one side only counts as beyond the tolerance (and as a NaN
// mismatch); NaN on both sides agrees (neither has a distance there).
Diff diffValues(const std::vector<double>& a, const std::vector<double>& b, double tol) {
    Diff d;
    d.compared = a.size();
    for (std::size_t k = 0; k < a.size(); ++k) {
        const bool fa = std::isfinite(a[k]), fb = std::isfinite(b[k]);
        if (!fa && !fb) continue;
        if (fa != fb) {
            ++d.beyond;
            ++d.nanMismatch;
            continue;
        }
        const double diff = std::abs(a[k] - b[k]);
        d.maxAbs = std::max(d.maxAbs, diff);
        if (diff > tol) ++d.beyond;
    }
    return d;
}

[[gnu::format(printf, 1, 2)]] std::string fmt(const char* format, ...) {
    char buf[128];
    std::va_list args;
    va_start(args, format);
    std::vsnprintf(buf, sizeof buf, format, args);
    va_end(args);
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
            for (std::size_t c = 0; c < r.size(); ++c)
                width[c] = std::max(width[c], r[c].size());
        for (std::size_t r = 0; r < rows_.size(); ++r) {
            std::string line = "  ";
            for (std::size_t c = 0; c < rows_[r].size(); ++c) {
                const std::string& cell = rows_[r][c];
                const std::string pad(width[c] - cell.size(), ' ');
                line += rightAlign[c] ? pad + cell : cell + pad;
                if (c + 1 < rows_[r].size()) line += "  ";
            }
            while (!line.empty() && line.back() == ' ')
                line.pop_back();
            out << line << '\n';
            if (r == 0) {
                std::size_t total = 0;
                for (std::size_t w : width)
                    total += w + 2;
                out << "  " << std::string(total - 2, '-') << '\n';
            }
        }
    }

  private:
    std::vector<std::vector<std::string>> rows_;
};

} // namespace

namespace {

// One row of the report.
struct Check {
    std::string name, compared;
    std::size_t beyond = 0, nanMismatch = 0;
    std::string maxDiff, tolerance, result; // result: PASS, FAIL or SKIP
    std::string failure;                    // why it failed, for the summary line
};

std::string xmlEscaped(const std::string& s) {
    std::string out;
    for (char c : s) {
        if (c == '&') out += "&amp;";
        else if (c == '<') out += "&lt;";
        else if (c == '>') out += "&gt;";
        else if (c == '"') out += "&quot;";
        else out += c;
    }
    return out;
}

void writeFileOrThrow(const fs::path& file, const std::string& text) {
    std::ofstream out(file);
    out << text;
    out.close();
    if (!out) throw Error("cannot write " + file.string());
}

} // namespace

int compareResults(const fs::path& a, const fs::path& b, const CompareOptions& options,
                   std::ostream& out) {
    for (const fs::path& dir : {a, b})
        if (!fs::is_directory(dir))
            throw InputError(dir.string() + ": no such directory (expected an rsim results "
                                            "directory)");
    const Triangles ta = readTrianglesCsv(a);
    const Triangles tb = readTrianglesCsv(b);
    const nlohmann::json ja = readSummary(a), jb = readSummary(b);

    std::vector<Check> checks;
    const std::string tolText = fmt("%g m", options.toleranceM) + ", " +
                                fmt("%g%%", 100.0 * options.maxFraction) + " may exceed";
    auto allowed = [&](std::size_t compared) {
        return std::size_t(std::floor(options.maxFraction * double(compared) + 1e-9));
    };
    auto verdict = [](bool ok) { return std::string(ok ? "PASS" : "FAIL"); };
    auto onlyIn = [](bool inA) { return std::string("only in ") + (inA ? "A" : "B"); };

    // Files: every result file of the contract in both directories or in neither, and every HDF5
    // file readable (a truncated one is not).
    {
        std::vector<std::string> oneSided, unreadable;
        for (const char* name : {"summary.json", "triangles.csv", "timeseries.h5", "images.h5", "images.exr",
                                 "depth.pfm", "depth.png", "error.png", "amplitude.png", "mesh_error.ply"}) {
            const std::string n = name;
            const bool image = n == "images.h5" || n == "images.exr" || fs::path(n).extension() == ".png" ||
                               n == "depth.pfm";
            if ((image && !options.images) ||
                std::find(options.excluded.begin(), options.excluded.end(), n) != options.excluded.end())
                continue;
            const bool inA = fs::exists(a / name), inB = fs::exists(b / name);
            if (inA != inB) oneSided.push_back(std::string(name) + " (" + onlyIn(inA) + ")");
            for (const auto& [dir, side, present] : {std::tuple{a, "A", inA}, std::tuple{b, "B", inB}})
                if (present && fs::path(name).extension() == ".h5" && !hdf5().readable(dir / name))
                    unreadable.push_back(std::string(name) + " in " + side);
        }
        std::string detail;
        for (const auto& n : oneSided) detail += (detail.empty() ? "" : ", ") + n;
        checks.push_back({"result files", std::to_string(oneSided.size()) + " one-sided", oneSided.size(), 0,
                          detail.empty() ? "-" : detail, "in both or neither", verdict(oneSided.empty()),
                          "result files in one directory only: " + detail + " (--exclude NAME to allow it)"});
        detail.clear();
        for (const auto& n : unreadable) detail += (detail.empty() ? "" : ", ") + n;
        checks.push_back({"HDF5 files", detail.empty() ? "readable" : detail, unreadable.size(), 0, "-", "readable",
                          verdict(unreadable.empty()), "HDF5 files that cannot be read (truncated?): " + detail});
    }

    // Settings: the same physics on both sides, unless told otherwise. The [output] table and
    // simulation.tile_list_max (how a GPU tests its rays, not what it estimates) aside.
    if (ja.is_null() || jb.is_null()) {
        checks.push_back({"summary.json", onlyIn(!ja.is_null()), 0, 0, "-", "in both", "FAIL",
                          "summary.json is missing in " + std::string(ja.is_null() ? "A" : "B")});
    } else if (options.checkSettings) {
        std::vector<std::pair<std::string, std::string>> sa, sb;
        flatten(ja.value("settings", nlohmann::json::object()), "", sa);
        flatten(jb.value("settings", nlohmann::json::object()), "", sb);
        std::vector<std::string> differences;
        auto valueIn = [](const std::vector<std::pair<std::string, std::string>>& v, const std::string& key) {
            for (const auto& [k, val] : v)
                if (k == key) return val;
            return std::string("(none)");
        };
        // Keys in both summaries: a key in one only was written by an rsim that has a setting the
        // other did not know (summary.json gains keys without a new schema), not a difference.
        std::vector<std::string> keys;
        for (const auto& [k, v] : sa)
            if (k.rfind("output.", 0) != 0 && k != "simulation.tile_list_max" && valueIn(sb, k) != "(none)")
                keys.push_back(k);
        for (const auto& k : keys)
            if (valueIn(sa, k) != valueIn(sb, k)) differences.push_back(k + ": " + valueIn(sa, k) + " vs " + valueIn(sb, k));
        std::string detail;
        for (std::size_t k = 0; k < differences.size() && k < 3; ++k) detail += (k ? "; " : "") + differences[k];
        if (differences.size() > 3) detail += fmt("; and %zu more", differences.size() - 3);
        checks.push_back({"settings", std::to_string(keys.size()), differences.size(), 0, differences.empty() ? "-" : detail,
                          "equal ([output] aside)", verdict(differences.empty()),
                          "the runs' settings differ (" + detail + "; --ignore-settings compares anyway)"});
    }

    // Triangles: the same geometry, then the distances.
    const std::size_t na = ta.distance.size(), nb = tb.distance.size();
    const bool sameCount = na == nb;
    checks.push_back({"triangle count", std::to_string(na) + " vs " + std::to_string(nb), sameCount ? 0u : 1u, 0, "-",
                      "equal", verdict(sameCount),
                      "triangle counts differ: " + std::to_string(na) + " vs " + std::to_string(nb)});
    bool trianglesCompared = false;
    if (sameCount) {
        std::size_t moved = 0;
        double worst = 0.0;
        for (std::size_t k = 0; k < ta.geometry.size(); ++k) {
            const double d = std::abs(ta.geometry[k] - tb.geometry[k]);
            worst = std::max(worst, d);
            if (!(d <= 1e-6 * std::max(1.0, std::abs(ta.geometry[k])))) ++moved;
        }
        checks.push_back({"triangle geometry", std::to_string(na), moved, 0, fmt("%.3g", worst), "centroid, area equal",
                          verdict(moved == 0), "the triangles' centroids or areas differ (another scene?)"});
        const Diff d = diffValues(ta.distance, tb.distance, options.toleranceM);
        const bool ok = d.beyond <= allowed(d.compared);
        trianglesCompared = true;
        checks.push_back({"triangle distance_m", std::to_string(d.compared), d.beyond, d.nanMismatch, fmt("%.3g m", d.maxAbs),
                          tolText, verdict(ok),
                          std::to_string(d.beyond) + " of " + std::to_string(d.compared) + " triangle distances beyond " +
                              fmt("%g m", options.toleranceM) +
                              (d.nanMismatch ? fmt(" (%zu a distance on one side only)", d.nanMismatch) : "")});
    }

    // Depth image: in both, or in neither.
    if (options.images) {
        const fs::path pa = a / "depth.pfm", pb = b / "depth.pfm";
        const bool ha = fs::exists(pa), hb = fs::exists(pb);
        if (ha && hb) {
            std::uint32_t wa = 0, ha2 = 0, wb = 0, hb2 = 0;
            const std::vector<float> da = readPfm(pa, wa, ha2), db = readPfm(pb, wb, hb2);
            if (wa != wb || ha2 != hb2) {
                checks.push_back({"depth.pfm size",
                                  std::to_string(wa) + "x" + std::to_string(ha2) + " vs " + std::to_string(wb) + "x" +
                                      std::to_string(hb2),
                                  1, 0, "-", "equal", "FAIL", "depth.pfm sizes differ"});
            } else {
                const Diff d = diffValues(std::vector<double>(da.begin(), da.end()),
                                          std::vector<double>(db.begin(), db.end()), options.toleranceM);
                const bool ok = d.beyond <= allowed(d.compared);
                checks.push_back({"depth.pfm pixels", std::to_string(d.compared), d.beyond, d.nanMismatch,
                                  fmt("%.3g m", d.maxAbs), tolText, verdict(ok),
                                  std::to_string(d.beyond) + " of " + std::to_string(d.compared) +
                                      " depth pixels beyond " + fmt("%g m", options.toleranceM) +
                                      (d.nanMismatch ? fmt(" (%zu a depth on one side only)", d.nanMismatch) : "")});
            }
        } else if (ha || hb) {
            checks.push_back({"depth.pfm", onlyIn(ha), 1, 0, "-", "in both", "FAIL",
                              "depth.pfm is only in " + std::string(ha ? "A" : "B") + " (--no-images to skip it)"});
        }
    }

    // Total sensor signal.
    if (options.checkSignal && !ja.is_null() && !jb.is_null()) {
        bool pa = false, pb = false;
        const std::vector<double> sa = signalOf(ja, pa), sb = signalOf(jb, pb);
        if (!pa || !pb || sa.size() != sb.size()) {
            const std::string why = !pa || !pb ? "missing in " + std::string(!pa ? "A" : "B")
                                               : std::to_string(sa.size()) + " vs " + std::to_string(sb.size()) + " steps";
            checks.push_back({"sensor_signal_fwd", why, 1, 0, "-", "same length", "FAIL",
                              "the sensor signals cannot be compared: " + why});
        } else {
            double peak = 0.0, maxDiff = 0.0;
            std::size_t nanMismatch = 0;
            for (std::size_t t = 0; t < sa.size(); ++t) {
                if (std::isfinite(sa[t])) peak = std::max(peak, std::abs(sa[t]));
                if (std::isfinite(sa[t]) != std::isfinite(sb[t])) ++nanMismatch;
                if (std::isfinite(sa[t]) && std::isfinite(sb[t])) maxDiff = std::max(maxDiff, std::abs(sa[t] - sb[t]));
            }
            // One count: the steps whose difference exceeds the tolerance, or that have a
            // value on one side only.
            std::size_t beyond = 0;
            for (std::size_t t = 0; t < sa.size(); ++t) {
                const bool fa = std::isfinite(sa[t]), fb = std::isfinite(sb[t]);
                if (fa != fb || (fa && !(std::abs(sa[t] - sb[t]) <= options.signalRtol * peak))) ++beyond;
            }
            const double rel = peak > 0.0 ? maxDiff / peak : maxDiff > 0.0 ? std::numeric_limits<double>::infinity() : 0.0;
            const bool ok = beyond == 0;
            checks.push_back({"sensor_signal_fwd", std::to_string(sa.size()), beyond, nanMismatch,
                              fmt("%.3g of peak", rel), fmt("%g of peak", options.signalRtol), verdict(ok),
                              fmt("%zu of %zu steps of sensor_signal_fwd differ by more than %g of its peak", beyond,
                                  sa.size(), options.signalRtol)});
        }
    }

    // The report.
    out << "rsim compare\n  A: " << a.string() << "\n  B: " << b.string() << "\n\n";
    Table table({"check", "compared", "beyond tol", "NaN on one side", "max |diff|", "tolerance", "result"});
    std::vector<std::string> failures;
    for (const Check& c : checks) {
        table.add({c.name, c.compared, std::to_string(c.beyond), std::to_string(c.nanMismatch), c.maxDiff, c.tolerance,
                   c.result});
        if (c.result == "FAIL") failures.push_back(c.failure);
    }
    table.print(out, {false, true, true, true, true, false, false});

    if (!failures.empty() && trianglesCompared && options.showWorst > 0) {
        struct Row {
            std::size_t id;
            double diff; // +inf: a distance on one side only
        };
        std::vector<Row> rows;
        for (std::size_t id = 0; id < na; ++id) {
            const double da = ta.distance[id], db = tb.distance[id];
            if (!std::isfinite(da) && !std::isfinite(db)) continue;
            const double diff = std::isfinite(da) && std::isfinite(db)
                                    ? std::abs(da - db)
                                    : std::numeric_limits<double>::infinity();
            if (diff > 0.0) rows.push_back({id, diff});
        }
        const std::size_t shown = std::min(options.showWorst, rows.size());
        std::partial_sort(rows.begin(), rows.begin() + std::ptrdiff_t(shown), rows.end(),
                          [](const Row& x, const Row& y) {
                              return x.diff > y.diff || (x.diff == y.diff && x.id < y.id);
                          });
        if (shown > 0) {
            out << "\nworst triangles (" << shown << " of " << rows.size() << " that differ)\n";
            Table worst({"id", "source_mesh", "distance A (m)", "distance B (m)", "diff (m)"});
            auto value = [](double v) { return std::isfinite(v) ? fmt("%.6f", v) : "nan"; };
            for (std::size_t k = 0; k < shown; ++k) {
                const Row& r = rows[k];
                worst.add({std::to_string(r.id), ta.sourceMesh[r.id], value(ta.distance[r.id]),
                           value(tb.distance[r.id]),
                           std::isfinite(r.diff) ? fmt("%.6f", r.diff) : "one side only"});
            }
            worst.print(out, {true, false, true, true, true});
        }
    }

    const bool pass = failures.empty();
    if (!options.jsonFile.empty()) {
        nlohmann::ordered_json j;
        j["a"] = a.string();
        j["b"] = b.string();
        j["result"] = pass ? "pass" : "fail";
        nlohmann::ordered_json list = nlohmann::ordered_json::array();
        for (const Check& c : checks)
            list.push_back({{"check", c.name}, {"compared", c.compared}, {"beyond_tolerance", c.beyond},
                            {"nan_on_one_side", c.nanMismatch}, {"max_diff", c.maxDiff}, {"tolerance", c.tolerance},
                            {"result", c.result}, {"failure", c.result == "FAIL" ? c.failure : ""}});
        j["checks"] = list;
        writeFileOrThrow(options.jsonFile, j.dump(2) + "\n");
    }
    if (!options.junitFile.empty()) {
        std::string xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
        xml += fmt("<testsuite name=\"rsim compare\" tests=\"%zu\" failures=\"%zu\">\n", checks.size(), failures.size());
        for (const Check& c : checks) {
            xml += "  <testcase classname=\"rsim.compare\" name=\"" + xmlEscaped(c.name) + "\"";
            if (c.result == "FAIL")
                xml += ">\n    <failure message=\"" + xmlEscaped(c.failure) + "\"/>\n  </testcase>\n";
            else
                xml += "/>\n";
        }
        xml += "</testsuite>\n";
        writeFileOrThrow(options.junitFile, xml);
    }

    out << '\n';
    if (pass) {
        out << "rsim compare: PASS\n";
        return kExitOk;
    }
    std::string reason;
    for (const auto& f : failures)
        reason += (reason.empty() ? "" : "; ") + f;
    out << "rsim compare: FAIL (" << reason << ")\n";
    return kExitDifferent;
}

} // namespace rsim
