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
#include <vector>

#include <nlohmann/json.hpp>

#include "output/results_writer.h"
#include "util/error.h"

namespace rsim {
namespace {

namespace fs = std::filesystem;

struct Triangles {
    std::vector<double> distance;        // by id
    std::vector<std::string> sourceMesh; // by id
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
    const std::size_t needed = std::max({idCol, meshCol, distCol}) + 1;

    std::vector<std::size_t> ids;
    std::vector<double> distances;
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
    std::vector<bool> seen(n, false);
    for (std::size_t k = 0; k < n; ++k) {
        if (ids[k] >= n || seen[ids[k]])
            throw InputError(file.string() + ": triangle ids are not 0.." + std::to_string(n - 1) +
                             " each once (id " + std::to_string(ids[k]) + ")");
        seen[ids[k]] = true;
        t.distance[ids[k]] = distances[k];
        t.sourceMesh[ids[k]] = std::move(meshes[k]);
    }
    return t;
}

// Empty when the file is absent; InputError when it is present but not JSON.
std::vector<double> readSignal(const fs::path& dir, bool& present) {
    const fs::path file = dir / "summary.json";
    present = false;
    std::ifstream in(file);
    if (!in) return {};
    nlohmann::json j;
    try {
        j = nlohmann::json::parse(in);
    } catch (const nlohmann::json::exception& e) {
        throw InputError(file.string() + ": not valid JSON (" + e.what() + ")");
    }
    if (!j.contains("sensor_signal_fwd") || !j["sensor_signal_fwd"].is_array()) return {};
    present = true;
    std::vector<double> s;
    for (const auto& v : j["sensor_signal_fwd"])
        s.push_back(v.is_number() ? v.get<double>() : std::nan("")); // null: NaN was written
    return s;
}

struct Diff {
    std::size_t compared = 0, beyond = 0;
    double maxAbs = 0.0; // over pairs that are both finite
};

// A value present (finite) on one side only counts as beyond the tolerance; NaN on both sides
// agrees (neither has a distance there).
Diff diffValues(const std::vector<double>& a, const std::vector<double>& b, double tol) {
    Diff d;
    d.compared = a.size();
    for (std::size_t k = 0; k < a.size(); ++k) {
        const bool fa = std::isfinite(a[k]), fb = std::isfinite(b[k]);
        if (!fa && !fb) continue;
        if (fa != fb) {
            ++d.beyond;
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

int compareResults(const fs::path& a, const fs::path& b, const CompareOptions& options,
                   std::ostream& out) {
    for (const fs::path& dir : {a, b})
        if (!fs::is_directory(dir))
            throw InputError(dir.string() + ": no such directory (expected an rsim results "
                                            "directory)");
    const Triangles ta = readTrianglesCsv(a);
    const Triangles tb = readTrianglesCsv(b);

    out << "rsim compare\n  A: " << a.string() << "\n  B: " << b.string() << "\n\n";
    Table table({"check", "compared", "beyond tol", "max |diff|", "tolerance", "result"});
    std::vector<std::string> failures;
    const std::string tolText = fmt("%g m", options.toleranceM) + ", " +
                                fmt("%g%%", 100.0 * options.maxFraction) + " may exceed";
    auto allowed = [&](std::size_t compared) {
        return std::size_t(std::floor(options.maxFraction * double(compared) + 1e-9));
    };
    auto pass = [](bool ok) { return std::string(ok ? "PASS" : "FAIL"); };

    // Triangles.
    const std::size_t na = ta.distance.size(), nb = tb.distance.size();
    const bool sameCount = na == nb;
    table.add({"triangle count", std::to_string(na) + " vs " + std::to_string(nb), "-", "-",
               "equal", pass(sameCount)});
    bool trianglesCompared = false;
    if (!sameCount) {
        failures.push_back("triangle counts differ: " + std::to_string(na) + " vs " +
                           std::to_string(nb));
    } else {
        const Diff d = diffValues(ta.distance, tb.distance, options.toleranceM);
        const bool ok = d.beyond <= allowed(d.compared);
        trianglesCompared = true;
        table.add({"triangle distance_m", std::to_string(d.compared), std::to_string(d.beyond),
                   fmt("%.3g m", d.maxAbs), tolText, pass(ok)});
        if (!ok)
            failures.push_back(std::to_string(d.beyond) + " of " + std::to_string(d.compared) +
                               " triangle distances beyond " + fmt("%g m", options.toleranceM));
    }

    // Depth image.
    if (options.images) {
        const fs::path pa = a / "depth.pfm", pb = b / "depth.pfm";
        const bool ha = fs::exists(pa), hb = fs::exists(pb);
        if (ha && hb) {
            std::uint32_t wa = 0, ha2 = 0, wb = 0, hb2 = 0;
            const std::vector<float> da = readPfm(pa, wa, ha2), db = readPfm(pb, wb, hb2);
            if (wa != wb || ha2 != hb2) {
                table.add({"depth.pfm size",
                           std::to_string(wa) + "x" + std::to_string(ha2) + " vs " +
                               std::to_string(wb) + "x" + std::to_string(hb2),
                           "-", "-", "equal", "FAIL"});
                failures.push_back("depth.pfm sizes differ");
            } else {
                const Diff d =
                    diffValues(std::vector<double>(da.begin(), da.end()),
                               std::vector<double>(db.begin(), db.end()), options.toleranceM);
                const bool ok = d.beyond <= allowed(d.compared);
                table.add({"depth.pfm pixels", std::to_string(d.compared), std::to_string(d.beyond),
                           fmt("%.3g m", d.maxAbs), tolText, pass(ok)});
                if (!ok)
                    failures.push_back(std::to_string(d.beyond) + " of " +
                                       std::to_string(d.compared) + " depth pixels beyond " +
                                       fmt("%g m", options.toleranceM));
            }
        } else if (ha || hb) {
            table.add(
                {"depth.pfm", "only in " + std::string(ha ? "A" : "B"), "-", "-", "-", "SKIP"});
        }
    }

    // Total sensor signal.
    if (options.checkSignal) {
        bool pa = false, pb = false;
        const std::vector<double> sa = readSignal(a, pa), sb = readSignal(b, pb);
        if (pa && pb && sa.size() == sb.size()) {
            double peak = 0.0, maxDiff = 0.0;
            bool nanMismatch = false;
            for (std::size_t t = 0; t < sa.size(); ++t) {
                if (std::isfinite(sa[t])) peak = std::max(peak, std::abs(sa[t]));
                if (std::isfinite(sa[t]) != std::isfinite(sb[t])) nanMismatch = true;
                if (std::isfinite(sa[t]) && std::isfinite(sb[t]))
                    maxDiff = std::max(maxDiff, std::abs(sa[t] - sb[t]));
            }
            const double rel = nanMismatch     ? std::numeric_limits<double>::infinity()
                               : peak > 0.0    ? maxDiff / peak
                               : maxDiff > 0.0 ? std::numeric_limits<double>::infinity()
                                               : 0.0;
            std::size_t beyond = 0;
            for (std::size_t t = 0; t < sa.size(); ++t)
                if (!(std::abs(sa[t] - sb[t]) <= options.signalRtol * peak) &&
                    (std::isfinite(sa[t]) || std::isfinite(sb[t])))
                    ++beyond;
            const bool ok = rel <= options.signalRtol;
            table.add({"sensor_signal_fwd", std::to_string(sa.size()), std::to_string(beyond),
                       fmt("%.3g of peak", rel), fmt("%g of peak", options.signalRtol), pass(ok)});
            if (!ok)
                failures.push_back("sensor_signal_fwd differs by " + fmt("%.3g", rel) +
                                   " of its peak");
        } else {
            const std::string why = !pa || !pb ? std::string("missing in ") + (!pa ? "A" : "B")
                                               : "lengths " + std::to_string(sa.size()) + " vs " +
                                                     std::to_string(sb.size());
            table.add({"sensor_signal_fwd", why, "-", "-", "-", "SKIP"});
        }
    }

    table.print(out, {false, true, true, true, false, false});

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

    out << '\n';
    if (failures.empty()) {
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
