// SPDX-License-Identifier: MIT
#include <cmath>
#include <cstdlib>
#include <numbers>

#include "generate/generators.h"

namespace rsim {

ScenePlan buildToTarget(MeshBuilder& out, std::uint64_t target, double cellLo, double cellHi,
                        const SceneBuild& build) {
    auto miss = [&](const Tessellation& t) {
        MeshBuilder counter(/*countOnly=*/true);
        build(counter, t);
        return std::llabs(std::int64_t(counter.simTriangles()) - std::int64_t(target));
    };
    Tessellation best{cellHi, cellHi};
    long long bestMiss = miss(best);
    auto consider = [&](const Tessellation& t) {
        if (bestMiss == 0) return;
        if (const long long m = miss(t); m < bestMiss) {
            bestMiss = m;
            best = t;
        }
    };
    // N(cell) is a staircase, so scan rather than bisect: geometric steps, then a finer scan
    // around the best step, then the fill surface alone for the last few triangles.
    const int steps = 200;
    const double ratio = std::pow(cellLo / cellHi, 1.0 / steps);
    for (int i = 1; i <= steps; ++i) {
        const double cell = cellHi * std::pow(ratio, i);
        consider({cell, cell});
    }
    const double fineHi = best.cell / ratio, fineLo = best.cell * ratio;
    for (int i = 0; i <= steps; ++i) {
        const double cell = fineHi + (fineLo - fineHi) * i / steps;
        consider({cell, cell});
    }
    const double cell = best.cell;
    for (int i = 0; i <= steps; ++i)
        consider({cell, cell * (0.7 + 0.7 * i / steps)});

    ScenePlan plan = build(out, best);
    plan.cells = best;
    return plan;
}

double yawFacing(double dx, double dy) {
    // The local front -y turned by yaw a is (sin a, -cos a).
    return std::atan2(dx, -dy) * 180.0 / std::numbers::pi;
}

} // namespace rsim
