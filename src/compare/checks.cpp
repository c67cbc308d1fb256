// SPDX-License-Identifier: MIT
#include "compare/checks.h"

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <limits>
#include <utility>

#include "compare/datasets.h"
#include "output/file_modules.h"
#include "output/results_writer.h"

namespace rsim::compare {
namespace {

namespace fs = std::filesystem;
constexpr double kInf = std::numeric_limits<double>::infinity();


std::string joined(const std::vector<std::string>& items, const char* separator = ", ") {
    std::string out;
    for (const std::string& s : items) out += (out.empty() ? "" : separator) + s;
    return out;
}

struct Diff {
    std::size_t compared = 0, beyond = 0;
    std::size_t nanOneSide = 0; // of `beyond`: a value on one side, NaN on the other
    double maxAbs = 0.0;        // over pairs that are both finite
};

// A value present (finite) on one side only counts as beyond the tolerance (and as a NaN
// mismatch); NaN on both sides agrees (neither has a distance there).
template <class T> Diff diffValues(const std::vector<T>& a, const std::vector<T>& b, double tol) {
    Diff d;
    d.compared = a.size();
    for (std::size_t k = 0; k < a.size(); ++k) {
        const bool fa = std::isfinite(a[k]), fb = std::isfinite(b[k]);
        if (!fa && !fb) continue;
        if (fa != fb) {
            ++d.beyond;
            ++d.nanOneSide;
            continue;
        }
        const double diff = std::abs(double(a[k]) - double(b[k]));
        d.maxAbs = std::max(d.maxAbs, diff);
        if (diff > tol) ++d.beyond;
    }
    return d;
}

// |a - b| of entry k, +inf when only one is finite, NaN when neither is.
template <class T> double entryDiff(T a, T b) {
    const bool fa = std::isfinite(a), fb = std::isfinite(b);
    if (!fa && !fb) return std::nan("");
    return fa && fb ? std::abs(double(a) - double(b)) : kInf;
}

// The indices of the `count` largest non-zero differences, largest first (ties by index).
template <class T> std::vector<std::size_t> worstIndices(const std::vector<T>& a, const std::vector<T>& b, std::size_t count) {
    std::vector<std::pair<double, std::size_t>> rows;
    for (std::size_t k = 0; k < a.size(); ++k)
        if (const double d = entryDiff(a[k], b[k]); d > 0.0) rows.emplace_back(d, k);
    const std::size_t shown = std::min(count, rows.size());
    std::partial_sort(rows.begin(), rows.begin() + std::ptrdiff_t(shown), rows.end(),
                      [](const auto& x, const auto& y) { return x.first > y.first || (x.first == y.first && x.second < y.second); });
    std::vector<std::size_t> out;
    for (std::size_t k = 0; k < shown; ++k) out.push_back(rows[k].second);
    return out;
}

class Checker {
public:
    Checker(const ResultDir& a, const ResultDir& b, const CompareOptions& o, Comparison& out)
        : a_(a), b_(b), o_(o), out_(out),
          tolText_(fmt("%g m", o.toleranceM) + ", " + fmt("%g%%", 100.0 * o.maxFraction) + " may exceed") {}

    void files();
    void settings();
    void triangles();
    void depth();
    void signal();

private:
    std::size_t allowed(std::size_t compared) const {
        return std::size_t(std::floor(o_.maxFraction * double(compared) + 1e-9));
    }
    void distanceCheck(const std::string& name, const Diff& d, const std::string& what) {
        Check c{name, d.compared, "", d.beyond, d.nanOneSide, d.maxAbs, "m", o_.toleranceM, tolText_};
        c.pass = d.beyond <= allowed(d.compared);
        c.failure = fmt("%zu of %zu %s beyond %g m", d.beyond, d.compared, what.c_str(), o_.toleranceM) +
                    (d.nanOneSide ? fmt(" (%zu on one side only)", d.nanOneSide) : "");
        out_.checks.push_back(std::move(c));
    }
    static Check simple(std::string name, std::size_t compared, std::string comparedText, bool pass,
                        std::string toleranceText, std::string failure) {
        Check c;
        c.name = std::move(name);
        c.compared = compared;
        c.comparedText = std::move(comparedText);
        c.beyond = pass ? 0 : 1;
        c.toleranceText = std::move(toleranceText);
        c.pass = pass;
        c.failure = std::move(failure);
        return c;
    }

    const ResultDir &a_, &b_;
    const CompareOptions& o_;
    Comparison& out_;
    std::string tolText_;
};

// Every file of the output contract: the data compare reads must be in both directories when
// both runs were asked to write it; any other file in one directory only is a note. Every HDF5
// file present must read back (a truncated one does not).
void Checker::files() {
    std::vector<std::string> missing, onlyA, onlyB, unreadable;
    std::size_t examined = 0;
    for (const std::string& name : contractFiles()) {
        const bool image = name != "summary.json" && name != "triangles.csv" && name != "timeseries.h5" &&
                           name != "mesh_error.ply";
        if ((image && !o_.images) || std::find(o_.excluded.begin(), o_.excluded.end(), name) != o_.excluded.end())
            continue;
        ++examined;
        const bool inA = a_.files.count(name) > 0, inB = b_.files.count(name) > 0;
        if (inA != inB) {
            const bool required = isComparedData(name, o_.images) && askedToWrite(a_.summary, name) &&
                                  askedToWrite(b_.summary, name);
            if (required) missing.push_back(name + " (only in " + (inA ? "A" : "B") + ")");
            else (inA ? onlyA : onlyB).push_back(name);
        }
        for (const auto& [dir, side, present] : {std::tuple{&a_.dir, "A", inA}, std::tuple{&b_.dir, "B", inB}})
            if (present && fs::path(name).extension() == ".h5" && !hdf5().readable(*dir / name))
                unreadable.push_back(name + " in " + side);
    }
    // Without summary.json neither the settings nor the signal can be compared.
    const bool summaryExcluded = std::find(o_.excluded.begin(), o_.excluded.end(), "summary.json") != o_.excluded.end();
    if (!summaryExcluded && !a_.files.count("summary.json") && !b_.files.count("summary.json"))
        missing.push_back("summary.json (in neither)");
    out_.checks.push_back(simple("result files", examined, "", missing.empty(), "data in both",
                                 joined(missing) + ": data compare reads, which both runs were asked to write "
                                                   "(--exclude NAME to allow it)"));
    out_.checks.back().beyond = missing.size();
    out_.checks.push_back(simple("HDF5 files", examined, "", unreadable.empty(), "readable",
                                 "HDF5 files that cannot be read (truncated?): " + joined(unreadable)));
    out_.checks.back().beyond = unreadable.size();
    if (!onlyA.empty()) out_.notes.push_back("only in A, not compared: " + joined(onlyA));
    if (!onlyB.empty()) out_.notes.push_back("only in B, not compared: " + joined(onlyB));
}

// "path: value" of every leaf of `j`, for a readable diff of two settings objects.
void flatten(const nlohmann::json& j, const std::string& path, std::vector<std::pair<std::string, std::string>>& out) {
    if (j.is_object()) {
        for (auto it = j.begin(); it != j.end(); ++it) flatten(it.value(), path.empty() ? it.key() : path + "." + it.key(), out);
    } else {
        out.emplace_back(path, j.dump());
    }
}

// The same physics on both sides, unless told otherwise. The [output] and [tuning] tables,
// simulation.tile_list_max (how a GPU tests its rays, not what it estimates) and
// simulation.k_layout (how K is stored, not its values) aside; a key in
// one summary only was written by an rsim that knows a setting the other did not.
void Checker::settings() {
    if (a_.summary.is_null() || b_.summary.is_null() || !o_.checkSettings) return;
    std::vector<std::pair<std::string, std::string>> sa, sb;
    flatten(a_.summary.value("settings", nlohmann::json::object()), "", sa);
    flatten(b_.summary.value("settings", nlohmann::json::object()), "", sb);
    auto valueIn = [](const std::vector<std::pair<std::string, std::string>>& v, const std::string& key) {
        for (const auto& [k, val] : v)
            if (k == key) return val;
        return std::string("(none)");
    };
    std::vector<std::string> keys, differences;
    for (const auto& [k, v] : sa)
        if (k.rfind("output.", 0) != 0 && k.rfind("tuning.", 0) != 0 && k != "simulation.tile_list_max" &&
            k != "simulation.k_layout" && valueIn(sb, k) != "(none)")
            keys.push_back(k);
    for (const auto& k : keys)
        if (valueIn(sa, k) != valueIn(sb, k)) differences.push_back(k + ": " + valueIn(sa, k) + " vs " + valueIn(sb, k));
    std::string detail;
    for (std::size_t k = 0; k < differences.size() && k < 3; ++k) detail += (k ? "; " : "") + differences[k];
    if (differences.size() > 3) detail += fmt("; and %zu more", differences.size() - 3);
    Check c = simple("settings", keys.size(), "", differences.empty(), "equal ([output] aside)",
                     "the runs' settings differ (" + detail + "; --ignore-settings compares anyway)");
    c.beyond = differences.size();
    out_.checks.push_back(std::move(c));
}

void Checker::triangles() {
    if (a_.pathTraced || b_.pathTraced) { // MODEL.md §10.2: a paths run computes no per-triangle result
        out_.checks.push_back(simple("triangles", 0, "not compared: a paths run has none", true, "", ""));
        return;
    }
    const Triangles &ta = a_.triangles, &tb = b_.triangles;
    const std::size_t na = ta.distance.size(), nb = tb.distance.size();
    out_.checks.push_back(simple("triangle count", na, std::to_string(na) + " vs " + std::to_string(nb), na == nb,
                                 "equal", "triangle counts differ: " + std::to_string(na) + " vs " + std::to_string(nb)));
    if (na != nb) return;
    std::size_t moved = 0;
    double worst = 0.0;
    for (std::size_t k = 0; k < ta.geometry.size(); ++k) {
        const double d = std::abs(ta.geometry[k] - tb.geometry[k]);
        worst = std::max(worst, d);
        if (!(d <= 1e-6 * std::max(1.0, std::abs(ta.geometry[k])))) ++moved;
    }
    Check geometry = simple("triangle geometry", na, "", moved == 0, "centroid, area equal",
                            "the triangles' centroids or areas differ (another scene?)");
    geometry.beyond = moved;
    geometry.maxDiff = worst;
    out_.checks.push_back(std::move(geometry));
    distanceCheck("triangle distance_m", diffValues(ta.distance, tb.distance, o_.toleranceM), "triangle distances");
    for (std::size_t id : worstIndices(ta.distance, tb.distance, o_.showWorst))
        out_.worstTriangles.push_back({id, ta.sourceMesh[id], ta.distance[id], tb.distance[id],
                                       entryDiff(ta.distance[id], tb.distance[id])});
}

void Checker::depth() {
    if (!o_.images || !a_.files.count("depth.pfm") || !b_.files.count("depth.pfm")) return;
    DepthImage da, db;
    da.depth = readPfm(a_.dir / "depth.pfm", da.width, da.height);
    db.depth = readPfm(b_.dir / "depth.pfm", db.width, db.height);
    if (da.width != db.width || da.height != db.height) {
        out_.checks.push_back(simple("depth.pfm size", 0, fmt("%ux%u vs %ux%u", da.width, da.height, db.width, db.height),
                                     false, "equal", "depth.pfm sizes differ"));
        return;
    }
    distanceCheck("depth.pfm pixels", diffValues(da.depth, db.depth, o_.toleranceM), "depth pixels");
    for (std::size_t k : worstIndices(da.depth, db.depth, o_.showWorst))
        out_.worstPixels.push_back({std::uint32_t(k % da.width), std::uint32_t(k / da.width), double(da.depth[k]),
                                    double(db.depth[k]), entryDiff(da.depth[k], db.depth[k])});
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

void Checker::signal() {
    if (!o_.checkSignal || a_.summary.is_null() || b_.summary.is_null()) return;
    if (a_.pathTraced || b_.pathTraced) return; // none computed (MODEL.md §10.2)
    bool pa = false, pb = false;
    const std::vector<double> sa = signalOf(a_.summary, pa), sb = signalOf(b_.summary, pb);
    if (!pa || !pb || sa.size() != sb.size()) {
        const std::string why = !pa || !pb ? "missing in " + std::string(!pa ? "A" : "B")
                                           : std::to_string(sa.size()) + " vs " + std::to_string(sb.size()) + " steps";
        out_.checks.push_back(simple("sensor_signal_fwd", 0, why, false, "same length",
                                     "the sensor signals cannot be compared: " + why));
        return;
    }
    double peak = 0.0, maxDiff = 0.0;
    std::size_t nanOneSide = 0, beyond = 0;
    for (std::size_t t = 0; t < sa.size(); ++t) {
        if (std::isfinite(sa[t])) peak = std::max(peak, std::abs(sa[t]));
        if (std::isfinite(sa[t]) != std::isfinite(sb[t])) ++nanOneSide;
        if (std::isfinite(sa[t]) && std::isfinite(sb[t])) maxDiff = std::max(maxDiff, std::abs(sa[t] - sb[t]));
    }
    // One count: the steps whose difference exceeds the tolerance, or that have a value on one side only.
    for (std::size_t t = 0; t < sa.size(); ++t) {
        const bool fa = std::isfinite(sa[t]), fb = std::isfinite(sb[t]);
        if (fa != fb || (fa && !(std::abs(sa[t] - sb[t]) <= o_.signalRtol * peak))) ++beyond;
    }
    const double rel = peak > 0.0 ? maxDiff / peak : maxDiff > 0.0 ? kInf : 0.0;
    Check c{"sensor_signal_fwd", sa.size(), "", beyond, nanOneSide, rel, "of peak", o_.signalRtol,
            fmt("%g of peak", o_.signalRtol)};
    c.pass = beyond == 0;
    c.failure = fmt("%zu of %zu steps of sensor_signal_fwd differ by more than %g of its peak", beyond, sa.size(),
                    o_.signalRtol);
    out_.checks.push_back(std::move(c));
}

} // namespace

bool Comparison::pass() const {
    return std::all_of(checks.begin(), checks.end(), [](const Check& c) { return c.pass; });
}

std::vector<std::string> Comparison::failures() const {
    std::vector<std::string> out;
    for (const Check& c : checks)
        if (!c.pass) out.push_back(c.failure);
    return out;
}

Comparison compareDirectories(const ResultDir& a, const ResultDir& b, const CompareOptions& options) {
    Comparison out;
    Checker checker(a, b, options, out);
    checker.files();
    checker.settings();
    checker.triangles();
    checker.depth();
    compareImageDatasets(a, b, options, out);
    checker.signal();
    return out;
}

std::string fmt(const char* format, ...) {
    char buf[256];
    std::va_list args;
    va_start(args, format);
    std::vsnprintf(buf, sizeof buf, format, args);
    va_end(args);
    return buf;
}

} // namespace rsim::compare
