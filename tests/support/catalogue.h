// SPDX-License-Identifier: MIT
// View factors from Howell's catalogue, and the view factor between two groups of a test scene.
#pragma once
#include <cmath>
#include <vector>

#include "core/prepared_scene.h"
#include "rsim/shared/physics.h"

namespace rsim::test {

inline std::uint32_t groupOf(const PreparedScene& s, std::size_t i) { return s.sourceMeshOfId[s.id[i]]; }

// sum over i in group a, j in group b of A_i F_ij, divided by the area of group a.
inline double groupViewFactor(const PreparedScene& s, const std::vector<float>& K, std::uint32_t a,
                       std::uint32_t b) {
    const std::size_t n = s.size();
    double transfer = 0.0, areaA = 0.0;
    for (std::size_t i = 0; i < n; ++i) {
        if (groupOf(s, i) != a) continue;
        areaA += s.area[i];
        for (std::size_t j = 0; j < n; ++j)
            if (groupOf(s, j) == b)
                transfer += double(s.area[i]) * shared::rsimFormFactor(K[i * n + j], s.area[j]);
    }
    return transfer / areaA;
}

// Catalogue view factor of two directly opposed, parallel a x b rectangles at distance c
// (Howell's catalogue, configuration C-11).
inline double parallelRectangles(double a, double b, double c) {
    const double X = a / c, Y = b / c;
    const double x1 = std::sqrt(1 + X * X), y1 = std::sqrt(1 + Y * Y);
    return 2.0 / (M_PI * X * Y) *
           (std::log(std::sqrt((1 + X * X) * (1 + Y * Y) / (1 + X * X + Y * Y))) +
            X * y1 * std::atan(X / y1) + Y * x1 * std::atan(Y / x1) - X * std::atan(X) -
            Y * std::atan(Y));
}

// Catalogue view factor from a w x l rectangle to an h x l rectangle sharing the edge of
// length l at a right angle (Howell's catalogue, configuration C-14).
inline double perpendicularRectangles(double w, double h, double l) {
    const double W = w / l, H = h / l, W2 = W * W, H2 = H * H, S = std::sqrt(W2 + H2);
    const double term = std::log((1 + W2) * (1 + H2) / (1 + W2 + H2)) +
                        W2 * std::log(W2 * (1 + W2 + H2) / ((1 + W2) * (W2 + H2))) +
                        H2 * std::log(H2 * (1 + W2 + H2) / ((1 + H2) * (W2 + H2)));
    return 1.0 / (M_PI * W) *
           (W * std::atan(1 / W) + H * std::atan(1 / H) - S * std::atan(1 / S) + 0.25 * term);
}

// Catalogue view factor from a disk of radius r1 to a coaxial parallel disk of radius r2 at
// distance h (Howell's catalogue, configuration C-41).
inline double coaxialDisks(double r1, double r2, double h) {
    const double R1 = r1 / h, R2 = r2 / h, X = 1 + (1 + R2 * R2) / (R1 * R1);
    return 0.5 * (X - std::sqrt(X * X - 4 * (R2 / R1) * (R2 / R1)));
}

} // namespace rsim::test
