// SPDX-License-Identifier: MIT
#include "compare/datasets.h"

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <limits>
#include <map>
#include <set>

#include "compare/h5_datasets.h"
#include "util/error.h"

namespace rsim::compare {
namespace {

namespace fs = std::filesystem;
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kTwoPi = 6.283185307179586;
constexpr double kSpeedOfLight = 299792458.0; // m/s
// Values of one side read at a time (whole rows of the first axis, at least one): 32 MiB.
constexpr std::size_t kBlockValues = std::size_t(1) << 22;


bool endsWith(const std::string& s, const char* tail) {
    const std::string t(tail);
    return s.size() >= t.size() && s.compare(s.size() - t.size(), t.size(), t) == 0;
}

// How a dataset's values are compared, by its name's unit.
enum class Kind { Metres, Phase, Raw };
Kind kindOf(const std::string& path) {
    if (endsWith(path, "_rad")) return Kind::Phase;
    if (endsWith(path, "_m")) return Kind::Metres;
    return Kind::Raw;
}

std::string shapeText(const std::vector<std::uint64_t>& shape) {
    if (shape.empty()) return "scalar";
    std::string s;
    for (std::uint64_t d : shape) s.append("[").append(std::to_string(d)).append("]");
    return s;
}

// Element `flat` of an array of `shape` as "[f][y][x]".
std::string indexText(std::size_t flat, const std::vector<std::uint64_t>& shape) {
    std::vector<std::size_t> index(shape.size(), 0);
    for (std::size_t d = shape.size(); d-- > 0;) {
        const std::size_t n = std::max<std::size_t>(std::size_t(shape[d]), 1);
        index[d] = flat % n;
        flat /= n;
    }
    std::string s;
    for (std::size_t i : index) s.append("[").append(std::to_string(i)).append("]");
    return s.empty() ? "the value" : s;
}

Check failed(const std::string& name, std::string comparedText, std::string toleranceText, std::string failure) {
    Check c;
    c.name = name;
    c.comparedText = std::move(comparedText);
    c.beyond = 1;
    c.toleranceText = std::move(toleranceText);
    c.pass = false;
    c.failure = std::move(failure);
    return c;
}

// What one dataset's values came to.
struct Tally {
    std::size_t compared = 0, beyond = 0, nanOneSide = 0;
    double maxAbs = 0.0;   // over the pairs that are both finite, in the check's unit
    double peak = 0.0;     // the largest finite magnitude of either side
    double worstDiff = -1.0, worstA = 0.0, worstB = 0.0;
    std::size_t worst = 0; // the index of the largest difference (+inf: a value on one side only)
};

// Compares the two images.h5 datasets of one name and shape, a block of rows at a time.
class DatasetComparer {
public:
    DatasetComparer(fs::path a, fs::path b, const CompareOptions& o, std::vector<double> frequenciesMhz)
        : a_(std::move(a)), b_(std::move(b)), o_(o), mhz_(std::move(frequenciesMhz)) {}

    Check compare(const H5DatasetInfo& info) const {
        const Kind kind = kindOf(info.path);
        // A phase whose first axis is the frequencies is compared as the range it stands for.
        const bool asRange = kind == Kind::Phase && info.shape.size() >= 2 && info.shape[0] == mhz_.size();
        const double absolute = kind == Kind::Metres || asRange ? o_.toleranceM : o_.toleranceRel * kTwoPi;
        Tally t = pass(info, kind, asRange, kind == Kind::Raw ? kInf : absolute, false);
        // Raw data: its tolerance is known after a first pass (the peak); a second counts the values beyond it.
        const double tolerance = kind == Kind::Raw ? o_.toleranceRel * t.peak : absolute;
        if (kind == Kind::Raw && t.maxAbs > tolerance) t.beyond += pass(info, kind, false, tolerance, true).beyond;
        // The sensor model's draws jump with their mean (CompareOptions::noiseFraction).
        const double fraction = info.path.rfind("noise/", 0) == 0 ? o_.noiseFraction : o_.maxFraction;
        const std::string may = fmt(", %g%% may exceed", 100.0 * fraction);
        Check c;
        c.name = "images.h5 " + info.path;
        c.compared = t.compared;
        c.beyond = t.beyond;
        c.nanOneSide = t.nanOneSide;
        std::string tolText;
        if (kind == Kind::Raw) {
            c.maxDiff = t.peak > 0.0 ? t.maxAbs / t.peak : 0.0;
            c.unit = "of peak";
            c.tolerance = o_.toleranceRel;
            tolText = fmt("%g of peak", o_.toleranceRel);
        } else {
            c.maxDiff = t.maxAbs;
            c.unit = kind == Kind::Phase && !asRange ? "rad" : "m";
            c.tolerance = tolerance;
            tolText = kind == Kind::Metres ? fmt("%g m", tolerance)
                      : asRange            ? fmt("%g m of range", tolerance)
                                           : fmt("%.3g rad, mod 2 pi", tolerance);
        }
        c.toleranceText = tolText + may;
        c.pass = t.beyond <= std::size_t(std::floor(fraction * double(t.compared) + 1e-9));
        c.failure = "images.h5 " + info.path + ": " + fmt("%zu of %zu values", t.beyond, t.compared) + " beyond " +
                    tolText + (t.nanOneSide ? fmt(" (%zu on one side only)", t.nanOneSide) : "");
        if (t.worstDiff > 0.0)
            c.failure += "; most at " + indexText(t.worst, info.shape) + fmt(": %.9g vs %.9g", t.worstA, t.worstB);
        return c;
    }

private:
    // One pass over both sides' values: the values beyond `tolerance`, and unless `recount` the
    // peak, the largest difference and the values on one side (counted as beyond).
    Tally pass(const H5DatasetInfo& info, Kind kind, bool asRange, double tolerance, bool recount) const {
        const H5DatasetCalls& h5 = h5Datasets();
        const std::uint64_t rows = info.shape.empty() ? 1 : info.shape[0];
        std::size_t rowValues = 1;
        for (std::size_t d = 1; d < info.shape.size(); ++d) rowValues *= std::size_t(info.shape[d]);
        Tally t;
        if (rowValues == 0) return t;
        const std::uint64_t blockRows = std::max<std::uint64_t>(1, kBlockValues / rowValues);
        std::vector<double> va, vb;
        for (std::uint64_t r0 = 0; r0 < rows; r0 += blockRows) {
            const std::uint64_t n = std::min(blockRows, rows - r0);
            h5.readRows(a_, info.path, r0, n, va);
            h5.readRows(b_, info.path, r0, n, vb);
            for (std::size_t k = 0; k < va.size(); ++k) {
                const std::size_t flat = std::size_t(r0) * rowValues + k;
                const double a = va[k], b = vb[k];
                ++t.compared;
                const bool fa = std::isfinite(a), fb = std::isfinite(b);
                if (!fa || !fb) {
                    if ((std::isnan(a) && std::isnan(b)) || a == b || recount) continue; // both NaN, or one infinity
                    ++t.beyond;
                    t.nanOneSide += fa != fb;
                    note(t, flat, a, b, kInf);
                    continue;
                }
                double d = std::abs(a - b);
                if (kind == Kind::Phase) {
                    d = std::fmod(d, kTwoPi);
                    d = std::min(d, kTwoPi - d);
                    if (asRange) d *= kSpeedOfLight / (2.0 * kTwoPi * mhz_[std::size_t(r0) + k / rowValues] * 1e6);
                }
                t.beyond += d > tolerance;
                if (recount) continue;
                t.peak = std::max({t.peak, std::abs(a), std::abs(b)});
                t.maxAbs = std::max(t.maxAbs, d);
                note(t, flat, a, b, d);
            }
        }
        return t;
    }

    static void note(Tally& t, std::size_t flat, double a, double b, double d) {
        if (!(d > t.worstDiff)) return;
        t.worstDiff = d;
        t.worst = flat;
        t.worstA = a;
        t.worstB = b;
    }

    fs::path a_, b_;
    const CompareOptions& o_;
    std::vector<double> mhz_;
};

// amcw/frequencies_mhz of `file`, or none.
std::vector<double> frequenciesOf(const fs::path& file, const std::map<std::string, H5DatasetInfo>& datasets) {
    const auto it = datasets.find("amcw/frequencies_mhz");
    std::vector<double> mhz;
    if (it == datasets.end() || !it->second.numeric || it->second.shape.size() != 1) return mhz;
    h5Datasets().readRows(file, it->first, 0, it->second.shape[0], mhz);
    for (double f : mhz)
        if (!(f > 0.0 && std::isfinite(f))) return {};
    return mhz;
}

} // namespace

const std::vector<std::string>& comparedImageData() {
    static const std::vector<std::string> paths = {"amcw", "noise", "gated", "transient"};
    return paths;
}

void compareImageDatasets(const ResultDir& a, const ResultDir& b, const CompareOptions& options, Comparison& out) {
    if (!options.images || !a.files.count("images.h5") || !b.files.count("images.h5")) return;
    const fs::path fa = a.dir / "images.h5", fb = b.dir / "images.h5";
    try {
        const H5DatasetCalls& h5 = h5Datasets();
        std::map<std::string, H5DatasetInfo> inA, inB;
        for (const std::string& path : comparedImageData()) {
            for (H5DatasetInfo& d : h5.list(fa, path)) inA[d.path] = std::move(d);
            for (H5DatasetInfo& d : h5.list(fb, path)) inB[d.path] = std::move(d);
        }
        std::set<std::string> names;
        for (const auto& [name, d] : inA) names.insert(name);
        for (const auto& [name, d] : inB) names.insert(name);
        const DatasetComparer comparer(fa, fb, options, frequenciesOf(fa, inA));
        for (const std::string& name : names) {
            const auto ia = inA.find(name), ib = inB.find(name);
            const std::string check = "images.h5 " + name;
            if (ia == inA.end() || ib == inB.end()) {
                const char* side = ia == inA.end() ? "B" : "A";
                out.checks.push_back(failed(check, std::string("only in ") + side, "in both",
                                            check + " is in " + side + " only"));
            } else if (ia->second.shape != ib->second.shape) {
                const std::string shapes = shapeText(ia->second.shape) + " vs " + shapeText(ib->second.shape);
                out.checks.push_back(failed(check, shapes, "same shape", check + ": shapes differ, " + shapes));
            } else if (!ia->second.numeric || !ib->second.numeric) {
                Check c;
                c.name = check;
                c.comparedText = "not numeric: shape only";
                c.toleranceText = "same shape";
                out.checks.push_back(std::move(c));
            } else {
                out.checks.push_back(comparer.compare(ia->second));
            }
        }
    } catch (const Error& e) {
        out.checks.push_back(failed("images.h5 datasets", "unreadable", "readable",
                                    std::string("images.h5's datasets cannot be compared: ") + e.what()));
    }
}

} // namespace rsim::compare
