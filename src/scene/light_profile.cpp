// SPDX-License-Identifier: MIT
// A light's angular profile from a CSV table (scene/light_profile.h).
#include "scene/light_profile.h"

#include <algorithm>
#include <cmath>
#include <fstream>

#include <glm/geometric.hpp>

#include "rsim/shared/physics.h"
#include "util/csv.h"
#include "util/error.h"

namespace rsim {
namespace {

constexpr std::uint32_t kRadialSamples = 181, kGridSamples = 91;

double radians(double deg) { return deg * M_PI / 180.0; }

struct Rows {
    std::vector<std::vector<double>> values;
    std::vector<std::size_t> lines;
};

// Every record of the file as numbers: a first record that is not all numbers is a header, or
// with `corner` the grid's first row, whose first cell may be any text.
Rows readNumbers(const std::filesystem::path& file, const std::string& where, bool corner) {
    std::ifstream in(file);
    if (!in) throw InputError(where + ": cannot read the profile " + file.string());
    CsvReader csv(in, file.string(), '#');
    Rows rows;
    std::vector<std::string> fields;
    bool first = true;
    while (csv.next(fields)) {
        if (fields.size() == 1 && fields[0].empty()) continue;
        if (corner && first && !fields.empty()) fields[0] = "0";
        std::vector<double> v;
        bool numbers = true;
        for (const std::string& f : fields) {
            char* end = nullptr;
            const double x = std::strtod(f.c_str(), &end);
            numbers = numbers && !f.empty() && end && *end == '\0' && std::isfinite(x);
            v.push_back(x);
        }
        if (!numbers && first && !corner) {
            first = false;
            continue; // a header
        }
        if (!numbers)
            throw InputError(file.string() + ":" + std::to_string(csv.line()) + ": expected numbers");
        first = false;
        rows.values.push_back(std::move(v));
        rows.lines.push_back(csv.line());
    }
    return rows;
}

void requireIncreasing(const std::vector<double>& a, double lo, double hi, const std::string& what) {
    for (std::size_t i = 0; i < a.size(); ++i)
        if (!(a[i] >= lo && a[i] <= hi) || (i > 0 && !(a[i] > a[i - 1])))
            throw InputError(what + ": angles must increase, within [" + std::to_string(int(lo)) + ", " +
                             std::to_string(int(hi)) + "] degrees");
}

// Linear interpolation of `v` sampled at increasing `at`, at x (inside their range).
double lerp(const std::vector<double>& at, const std::vector<double>& v, double x) {
    const auto it = std::upper_bound(at.begin(), at.end(), x);
    const std::size_t i = std::min<std::size_t>(std::max<std::ptrdiff_t>(it - at.begin(), 1), at.size() - 1);
    const double t = (x - at[i - 1]) / (at[i] - at[i - 1]);
    return (1.0 - t) * v[i - 1] + t * v[i];
}

// The integral of the profile over the sphere, sr: a midpoint rule in angles about its axis.
double solidAngle(const LightProfile& p) {
    shared::PointLight l{};
    l.direction = glm::vec3(0, 0, 1);
    l.profile = reinterpret_cast<std::uint64_t>(p.values.data());
    l.profileShape = glm::uvec4(p.kind, p.nx, p.ny, 0u);
    l.profileRange = p.range;
    l.profileRight = glm::vec3(1, 0, 0);
    const int nt = 720, np = 1440;
    double sum = 0.0;
    for (int i = 0; i < nt; ++i) {
        const double theta = (i + 0.5) * M_PI / nt;
        double ring = 0.0;
        for (int j = 0; j < np; ++j) {
            const double phi = (j + 0.5) * 2.0 * M_PI / np;
            const glm::vec3 w(float(std::sin(theta) * std::cos(phi)), float(std::sin(theta) * std::sin(phi)),
                              float(std::cos(theta)));
            ring += double(shared::rsimProfileFactor(l, w));
        }
        sum += ring * std::sin(theta);
    }
    return sum * (M_PI / nt) * (2.0 * M_PI / np);
}

} // namespace

std::shared_ptr<LightProfile> readRadialProfile(const std::filesystem::path& file, const std::string& where) {
    const Rows rows = readNumbers(file, where, false);
    std::vector<double> angle, value;
    for (std::size_t r = 0; r < rows.values.size(); ++r) {
        if (rows.values[r].size() != 2)
            throw InputError(file.string() + ":" + std::to_string(rows.lines[r]) +
                             ": expected two columns, angle_deg,intensity");
        angle.push_back(rows.values[r][0]);
        value.push_back(rows.values[r][1]);
    }
    if (angle.size() < 2) throw InputError(file.string() + ": a profile needs at least two rows of angle_deg,intensity");
    requireIncreasing(angle, 0.0, 180.0, file.string());
    auto p = std::make_shared<LightProfile>();
    p->kind = shared::RSIM_PROFILE_RADIAL;
    p->nx = kRadialSamples;
    p->range = glm::vec4(float(radians(angle.front())), float(radians(angle.back())), 0.0f, 0.0f);
    for (std::uint32_t i = 0; i < p->nx; ++i) {
        const double a = angle.front() + (angle.back() - angle.front()) * i / (p->nx - 1);
        p->values.push_back(float(lerp(angle, value, a)));
    }
    return p;
}

std::shared_ptr<LightProfile> readGridProfile(const std::filesystem::path& file, const std::string& where) {
    const Rows rows = readNumbers(file, where, true);
    if (rows.values.size() < 3 || rows.values[0].size() < 3)
        throw InputError(file.string() + ": a 2-D profile needs a first row of horizontal angles (after one corner "
                                         "cell) and at least two rows of a vertical angle and values");
    const std::vector<double> h(rows.values[0].begin() + 1, rows.values[0].end());
    std::vector<double> v;
    std::vector<std::vector<double>> grid;
    for (std::size_t r = 1; r < rows.values.size(); ++r) {
        if (rows.values[r].size() != h.size() + 1)
            throw InputError(file.string() + ":" + std::to_string(rows.lines[r]) + ": expected " +
                             std::to_string(h.size() + 1) + " columns (a vertical angle and a value per column)");
        v.push_back(rows.values[r][0]);
        grid.emplace_back(rows.values[r].begin() + 1, rows.values[r].end());
    }
    requireIncreasing(h, -89.0, 89.0, file.string() + " (the first row's horizontal angles)");
    requireIncreasing(v, -89.0, 89.0, file.string() + " (the first column's vertical angles)");
    auto p = std::make_shared<LightProfile>();
    p->kind = shared::RSIM_PROFILE_GRID;
    p->nx = p->ny = kGridSamples;
    p->range = glm::vec4(float(radians(h.front())), float(radians(h.back())), float(radians(v.front())),
                         float(radians(v.back())));
    for (std::uint32_t j = 0; j < p->ny; ++j) {
        const double y = v.front() + (v.back() - v.front()) * j / (p->ny - 1);
        std::vector<double> column; // the grid's values at this vertical angle, per horizontal angle
        for (std::size_t i = 0; i < h.size(); ++i) {
            std::vector<double> at;
            for (const auto& row : grid) at.push_back(row[i]);
            column.push_back(lerp(v, at, y));
        }
        for (std::uint32_t i = 0; i < p->nx; ++i)
            p->values.push_back(float(lerp(h, column, h.front() + (h.back() - h.front()) * i / (p->nx - 1))));
    }
    return p;
}

void finishProfile(LightProfile& p, const std::string& what) {
    for (float v : p.values)
        if (!(v >= 0.0f)) throw InputError(what + ": intensities must be >= 0");
    p.solidAngleSr = solidAngle(p);
    if (!(p.solidAngleSr > 0.0)) throw InputError(what + ": the profile is zero in every direction");
}

} // namespace rsim
