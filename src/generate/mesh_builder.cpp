// SPDX-License-Identifier: MIT
#include "generate/mesh_builder.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <numbers>
#include <stdexcept>
#include <unordered_map>

#include <glm/geometric.hpp>

namespace rsim {

void MeshBuilder::defineMaterial(const std::string& name, double reflectance, bool twoSided) {
    MaterialModel lambertian;
    lambertian.reflectance = reflectance;
    defineMaterial(name, lambertian, twoSided);
}

void MeshBuilder::defineMaterial(const std::string& name, const MaterialModel& model, bool twoSided) {
    for (const auto& m : materials_)
        if (m.name == name) throw std::logic_error("material defined twice: " + name);
    materials_.push_back({name, model, twoSided});
    counts_.push_back(0);
    faces_.emplace_back();
}

void MeshBuilder::use(const std::string& name) {
    for (std::size_t i = 0; i < materials_.size(); ++i)
        if (materials_[i].name == name) {
            current_ = int(i);
            return;
        }
    throw std::logic_error("undefined material: " + name);
}

const std::string& MeshBuilder::current() const {
    if (current_ < 0) throw std::logic_error("no material in use");
    return materials_[std::size_t(current_)].name;
}

MeshBuilder::Placement MeshBuilder::place(const glm::dvec3& origin, double yawDeg) {
    const double a = yawDeg * std::numbers::pi / 180.0;
    const double c = std::cos(a), s = std::sin(a);
    // Column-major: the columns are the images of x, y, z.
    const glm::dmat3 yaw(c, s, 0.0, -s, c, 0.0, 0.0, 0.0, 1.0);
    return Placement(*this, rot_ * yaw, offset_ + rot_ * origin);
}

void MeshBuilder::triangle(const glm::dvec3& a, const glm::dvec3& b, const glm::dvec3& c) {
    if (current_ < 0) throw std::logic_error("triangle emitted before any use()");
    ++counts_[std::size_t(current_)];
    ++total_;
    if (countOnly_) return;
    faces_[std::size_t(current_)].push_back(
        {rot_ * a + offset_, rot_ * b + offset_, rot_ * c + offset_});
}

void MeshBuilder::quad(const glm::dvec3& a, const glm::dvec3& b, const glm::dvec3& c,
                       const glm::dvec3& d) {
    triangle(a, b, c);
    triangle(a, c, d);
}

void MeshBuilder::grid(const glm::dvec3& o, const glm::dvec3& u, const glm::dvec3& v, int nu,
                       int nv) {
    for (int j = 0; j < nv; ++j) {
        const double t0 = double(j) / nv, t1 = double(j + 1) / nv;
        for (int i = 0; i < nu; ++i) {
            const double s0 = double(i) / nu, s1 = double(i + 1) / nu;
            quad(o + s0 * u + t0 * v, o + s1 * u + t0 * v, o + s1 * u + t1 * v,
                 o + s0 * u + t1 * v);
        }
    }
}

namespace {

int cellsAlong(double length, double cell) {
    if (cell <= 0.0) return 1;
    // The epsilon keeps an exact multiple (4 m in 0.5 m cells) from gaining a sliver cell.
    return std::max(1, int(std::ceil(length / cell - 1e-9)));
}

} // namespace

void MeshBuilder::rect(const glm::dvec3& o, const glm::dvec3& u, const glm::dvec3& v, double cell) {
    grid(o, u, v, cellsAlong(glm::length(u), cell), cellsAlong(glm::length(v), cell));
}

void MeshBuilder::box(const glm::dvec3& lo, const glm::dvec3& hi, unsigned faces, double cell) {
    const glm::dvec3 d = hi - lo;
    const glm::dvec3 dx(d.x, 0, 0), dy(0, d.y, 0), dz(0, 0, d.z);
    // Each face as o + s*u + t*v with u x v along its outward normal.
    if (faces & kFaceXNeg) rect(lo, dz, dy, cell);
    if (faces & kFaceXPos) rect({hi.x, lo.y, lo.z}, dy, dz, cell);
    if (faces & kFaceYNeg) rect(lo, dx, dz, cell);
    if (faces & kFaceYPos) rect({lo.x, hi.y, lo.z}, dz, dx, cell);
    if (faces & kFaceZNeg) rect(lo, dy, dx, cell);
    if (faces & kFaceZPos) rect({lo.x, lo.y, hi.z}, dx, dy, cell);
}

void MeshBuilder::cylinder(const glm::dvec3& base, const glm::dvec3& axis, double radius,
                           int segments, int rings, bool caps) {
    const glm::dvec3 a = glm::normalize(axis);
    const glm::dvec3 helper = std::abs(a.z) < 0.9 ? glm::dvec3(0, 0, 1) : glm::dvec3(1, 0, 0);
    const glm::dvec3 e1 = glm::normalize(glm::cross(helper, a));
    const glm::dvec3 e2 = glm::cross(a, e1); // e1 x e2 = a: counter-clockwise about the axis
    auto rim = [&](int k) {
        const double phi = 2.0 * std::numbers::pi * double(k % segments) / segments;
        return radius * (std::cos(phi) * e1 + std::sin(phi) * e2);
    };
    for (int k = 0; k < segments; ++k) {
        const glm::dvec3 p0 = base + rim(k), p1 = base + rim(k + 1);
        grid(p0, p1 - p0, axis, 1, rings);
    }
    if (!caps) return;
    const glm::dvec3 top = base + axis;
    for (int k = 0; k < segments; ++k) {
        triangle(top, top + rim(k), top + rim(k + 1));
        triangle(base, base + rim(k + 1), base + rim(k));
    }
}

void MeshBuilder::sphere(const glm::dvec3& centre, double radius, int slices, int stacks) {
    auto at = [&](int i, int j) {
        const double theta = std::numbers::pi * double(j) / stacks; // from the north pole
        const double phi = 2.0 * std::numbers::pi * double(i % slices) / slices;
        return centre + radius * glm::dvec3(std::sin(theta) * std::cos(phi),
                                            std::sin(theta) * std::sin(phi), std::cos(theta));
    };
    for (int j = 0; j < stacks; ++j)
        for (int i = 0; i < slices; ++i) {
            // a b c d runs south, then east: counter-clockwise seen from outside.
            const glm::dvec3 a = at(i, j), b = at(i, j + 1), c = at(i + 1, j + 1), d = at(i + 1, j);
            if (j == 0)
                triangle(a, b, c);
            else if (j == stacks - 1)
                triangle(a, b, d);
            else
                quad(a, b, c, d);
        }
}

void MeshBuilder::wall(const glm::dvec3& o, const glm::dvec3& uDir, const glm::dvec3& vDir,
                       double lenU, double lenV, double cell,
                       const std::vector<Opening>& openings) {
    // Cut lines at the openings' edges, then cells of at most `cell` between them: no slivers
    // next to an opening, and every hole is made of whole cells.
    auto cuts = [&](double len, bool alongU) {
        std::vector<double> c{0.0, len};
        for (const auto& op : openings) {
            c.push_back(std::clamp(alongU ? op.u0 : op.v0, 0.0, len));
            c.push_back(std::clamp(alongU ? op.u1 : op.v1, 0.0, len));
        }
        std::sort(c.begin(), c.end());
        c.erase(std::unique(c.begin(), c.end(), [](double x, double y) { return y - x < 1e-6; }),
                c.end());
        std::vector<double> out{c.front()};
        for (std::size_t i = 1; i < c.size(); ++i) {
            const int n = cellsAlong(c[i] - c[i - 1], cell);
            for (int k = 1; k <= n; ++k)
                out.push_back(c[i - 1] + (c[i] - c[i - 1]) * k / n);
        }
        return out;
    };
    const std::vector<double> us = cuts(lenU, true), vs = cuts(lenV, false);
    auto inOpening = [&](double u, double v) {
        for (const auto& op : openings)
            if (u > op.u0 && u < op.u1 && v > op.v0 && v < op.v1) return true;
        return false;
    };
    auto at = [&](double u, double v) { return o + u * uDir + v * vDir; };
    for (std::size_t j = 0; j + 1 < vs.size(); ++j)
        for (std::size_t i = 0; i + 1 < us.size(); ++i) {
            if (inOpening(0.5 * (us[i] + us[i + 1]), 0.5 * (vs[j] + vs[j + 1]))) continue;
            quad(at(us[i], vs[j]), at(us[i + 1], vs[j]), at(us[i + 1], vs[j + 1]),
                 at(us[i], vs[j + 1]));
        }

    const std::string wallMaterial = current();
    const glm::dvec3 n = glm::cross(uDir, vDir);
    for (const auto& op : openings) {
        const glm::dvec3 du = (op.u1 - op.u0) * uDir, dv = (op.v1 - op.v0) * vDir;
        const glm::dvec3 in = -op.depth * n;
        use(op.sides);
        rect(at(op.u0, op.v0), du, in, cell); // sill, faces +v
        rect(at(op.u0, op.v1), in, du, cell); // lintel, faces -v
        rect(at(op.u0, op.v0), in, dv, cell); // left reveal, faces +u
        rect(at(op.u1, op.v0), dv, in, cell); // right reveal, faces -u
        use(op.back);
        rect(at(op.u0, op.v0) + in, du, dv, cell); // back, faces like the wall
    }
    use(wallMaterial);
}

std::uint64_t MeshBuilder::simTriangles() const {
    std::uint64_t n = 0;
    for (std::size_t i = 0; i < materials_.size(); ++i)
        n += counts_[i] * (materials_[i].twoSided ? 2 : 1);
    return n;
}

std::vector<SceneMaterial> MeshBuilder::usedMaterials() const {
    std::vector<SceneMaterial> out;
    for (std::size_t i = 0; i < materials_.size(); ++i)
        if (counts_[i] > 0) out.push_back(materials_[i]);
    return out;
}

std::uint64_t MeshBuilder::trianglesOf(const std::string& material) const {
    for (std::size_t i = 0; i < materials_.size(); ++i)
        if (materials_[i].name == material) return counts_[i];
    return 0;
}

namespace {

// A vertex on the 0.1 mm lattice; integers make the text exact and the same on every platform.
struct Key {
    std::int64_t x, y, z;
    bool operator==(const Key&) const = default;
};
struct KeyHash {
    std::size_t operator()(const Key& k) const {
        std::uint64_t h = std::uint64_t(k.x) * 0x9e3779b97f4a7c15ULL;
        h ^= std::uint64_t(k.y) + 0x7f4a7c159e3779b9ULL + (h << 6) + (h >> 2);
        h ^= std::uint64_t(k.z) + 0x94d049bb133111ebULL + (h << 6) + (h >> 2);
        return std::size_t(h);
    }
};

constexpr double kLattice = 1e4;

void appendInt(std::string& s, std::int64_t v) {
    char buf[24];
    auto r = std::to_chars(buf, buf + sizeof buf, v);
    s.append(buf, r.ptr);
}

void appendFixed(std::string& s, std::int64_t tenThousandths) {
    if (tenThousandths < 0) s += '-';
    const std::uint64_t a = std::uint64_t(tenThousandths < 0 ? -tenThousandths : tenThousandths);
    appendInt(s, std::int64_t(a / 10000));
    s += '.';
    const std::string frac = std::to_string(a % 10000);
    s.append(4 - frac.size(), '0');
    s += frac;
}

} // namespace

std::string MeshBuilder::objText(const std::string& headerComment) const {
    if (countOnly_) throw std::logic_error("objText() on a counting MeshBuilder");
    std::unordered_map<Key, std::uint32_t, KeyHash> index;
    std::vector<Key> vertices;
    std::vector<std::vector<std::array<std::uint32_t, 3>>> faces(materials_.size());
    for (std::size_t m = 0; m < materials_.size(); ++m)
        for (const Tri& t : faces_[m]) {
            std::array<std::uint32_t, 3> f{};
            for (int k = 0; k < 3; ++k) {
                const Key key{std::llround(t[k].x * kLattice), std::llround(t[k].y * kLattice),
                              std::llround(t[k].z * kLattice)};
                auto [it, added] = index.try_emplace(key, std::uint32_t(vertices.size() + 1));
                if (added) vertices.push_back(key);
                f[std::size_t(k)] = it->second;
            }
            faces[m].push_back(f);
        }

    std::string s;
    s.reserve(vertices.size() * 28 + total_ * 22 + 256);
    s += headerComment;
    for (const Key& v : vertices) {
        s += "v ";
        appendFixed(s, v.x);
        s += ' ';
        appendFixed(s, v.y);
        s += ' ';
        appendFixed(s, v.z);
        s += '\n';
    }
    for (std::size_t m = 0; m < materials_.size(); ++m) {
        if (faces[m].empty()) continue;
        s += "usemtl " + materials_[m].name + "\n";
        for (const auto& f : faces[m]) {
            s += 'f';
            for (std::uint32_t i : f) {
                s += ' ';
                appendInt(s, i);
            }
            s += '\n';
        }
    }
    return s;
}

} // namespace rsim
