// SPDX-License-Identifier: MIT
#include "generate/furniture.h"

#include <algorithm>

namespace rsim {
using glm::dvec3;

void defineRoomMaterials(MeshBuilder& b) {
    b.defineMaterial("wall", 0.75); // white emulsion paint
    b.defineMaterial("ceiling", 0.8);
    b.defineMaterial("floor", 0.3); // laminate
    b.defineMaterial("door", 0.45);
    b.defineMaterial("door_frame", 0.7);
    b.defineMaterial("window_glass", 0.08); // glass mostly transmits the near infrared
    b.defineMaterial("window_frame", 0.7);
    b.defineMaterial("column", 0.7);
    b.defineMaterial("wood", 0.45);
    b.defineMaterial("wood_dark", 0.4);
    b.defineMaterial("fabric", 0.5);
    b.defineMaterial("rug", 0.45);
    b.defineMaterial("metal", 0.5);
    b.defineMaterial("radiator", 0.7);
    b.defineMaterial("book_light", 0.6);
    b.defineMaterial("book_dark", 0.3);
    b.defineMaterial("plant", 0.5); // leaves are bright in the near infrared
    b.defineMaterial("pot", 0.35);
    b.defineMaterial("screen", 0.05);
    b.defineMaterial("plastic_dark", 0.1);
    b.defineMaterial("whiteboard", 0.75);
    b.defineMaterial("lamp", 0.8);
    // Thin sheets seen from both sides: each side needs its own radiosity.
    b.defineMaterial("curtain", 0.55, /*twoSided=*/true);
    b.defineMaterial("partition", 0.5, /*twoSided=*/true);
}

void table(MeshBuilder& b, double w, double d, double h) {
    const double top = 0.04, leg = 0.05, inset = 0.05;
    b.use("wood");
    b.box({-w / 2, -d / 2, h - top}, {w / 2, d / 2, h});
    for (double sx : {-1.0, 1.0})
        for (double sy : {-1.0, 1.0}) {
            const double x = sx * (w / 2 - inset - leg / 2), y = sy * (d / 2 - inset - leg / 2);
            b.box({x - leg / 2, y - leg / 2, 0.0}, {x + leg / 2, y + leg / 2, h - top}, kSidesOnly);
        }
}

void chair(MeshBuilder& b) {
    const double w = 0.44, d = 0.42, seat = 0.45, leg = 0.03;
    b.use("metal");
    for (double sx : {-1.0, 1.0})
        for (double sy : {-1.0, 1.0}) {
            const double x = sx * (w / 2 - leg), y = sy * (d / 2 - leg);
            b.box({x - leg / 2, y - leg / 2, 0.0}, {x + leg / 2, y + leg / 2, seat - 0.04},
                  kSidesOnly);
        }
    b.use("fabric");
    b.box({-w / 2, -d / 2, seat - 0.04}, {w / 2, d / 2, seat});
    b.use("wood");
    b.box({-w / 2, d / 2 - 0.04, seat}, {w / 2, d / 2, 0.9}, kNoBottom);
}

void cabinet(MeshBuilder& b, double w, double d, double h, int doors) {
    b.use("wood");
    b.box({-w / 2, -d / 2, 0.0}, {w / 2, d / 2, h}, kNoBottom);
    const double gap = 0.005, dw = (w - gap * (doors + 1)) / doors;
    for (int i = 0; i < doors; ++i) {
        const double x0 = -w / 2 + gap + i * (dw + gap), x1 = x0 + dw;
        b.use("wood_dark");
        b.box({x0, -d / 2 - 0.02, 0.06}, {x1, -d / 2, h - 0.02}, kAllFaces & ~kFaceYPos);
        // Handles next to the gap between paired doors, else on the right.
        const double hx = (doors == 2 && i == 0) ? x1 - 0.05 : x0 + 0.05;
        const double hz = std::min(h - 0.15, 1.0);
        b.use("metal");
        b.box({hx - 0.01, -d / 2 - 0.05, hz - 0.07}, {hx + 0.01, -d / 2 - 0.02, hz + 0.07},
              kAllFaces & ~kFaceYPos);
    }
}

void bookshelf(MeshBuilder& b, double w, double d, double h, int shelves, double fill,
               SceneRng& rng) {
    const double t = 0.02;
    b.use("wood");
    b.box({-w / 2, -d / 2, 0.0}, {-w / 2 + t, d / 2, h}, kNoBottom);
    b.box({w / 2 - t, -d / 2, 0.0}, {w / 2, d / 2, h}, kNoBottom);
    b.rect({-w / 2 + t, d / 2 - t, 0.0}, {w - 2 * t, 0, 0}, {0, 0, h}); // back, facing -y
    const double pitch = h / shelves;
    for (int s = 0; s <= shelves; ++s) {
        const double z = std::max(0.06, s * pitch);
        b.use("wood");
        b.box({-w / 2 + t, -d / 2, z - t}, {w / 2 - t, d / 2 - t, z});
        if (s == shelves) break;
        // Books stand against the back board with random widths, heights and gaps.
        const double room = pitch - t - 0.03;
        for (double x = -w / 2 + t + 0.01; x < w / 2 - t - 0.06;) {
            const double bw = rng.uniform(0.02, 0.05);
            if (rng.chance(fill)) {
                const double bh = std::min(room, rng.uniform(0.16, 0.3));
                const double bd = std::min(d - t - 0.03, rng.uniform(0.15, 0.24));
                b.use(rng.chance(0.5) ? "book_light" : "book_dark");
                b.box({x, d / 2 - t - bd, z}, {x + bw, d / 2 - t, z + bh}, kNoBottom & ~kFaceYPos);
            }
            x += bw + 0.002;
        }
    }
}

void sofa(MeshBuilder& b, double w, double d) {
    const double arm = 0.18, back = 0.2;
    b.use("fabric");
    b.box({-w / 2, -d / 2, 0.08}, {w / 2, d / 2, 0.4}, kNoBottom);
    b.box({-w / 2, d / 2 - back, 0.4}, {w / 2, d / 2, 0.85}, kNoBottom);
    b.box({-w / 2, -d / 2, 0.4}, {-w / 2 + arm, d / 2 - back, 0.62}, kNoBottom & ~kFaceYPos);
    b.box({w / 2 - arm, -d / 2, 0.4}, {w / 2, d / 2 - back, 0.62}, kNoBottom & ~kFaceYPos);
    const int cushions = w > 1.2 ? 2 : 1;
    const double cw = (w - 2 * arm) / cushions;
    for (int i = 0; i < cushions; ++i) {
        const double x0 = -w / 2 + arm + i * cw;
        b.box({x0 + 0.01, -d / 2 + 0.02, 0.4}, {x0 + cw - 0.01, d / 2 - back, 0.5},
              kNoBottom & ~kFaceYPos);
    }
    b.use("wood_dark");
    for (double sx : {-1.0, 1.0})
        for (double sy : {-1.0, 1.0}) {
            const double x = sx * (w / 2 - 0.06), y = sy * (d / 2 - 0.06);
            b.box({x - 0.025, y - 0.025, 0.0}, {x + 0.025, y + 0.025, 0.08}, kSidesOnly);
        }
}

void desk(MeshBuilder& b, double w, double d) {
    const double h = 0.74;
    table(b, w, d, h);
    b.use("plastic_dark");
    b.box({-0.12, 0.05, h}, {0.12, 0.2, h + 0.02}, kNoBottom);          // foot
    b.box({-0.03, 0.14, h + 0.02}, {0.03, 0.17, h + 0.12}, kSidesOnly); // neck
    b.box({-0.3, 0.09, h + 0.12}, {0.3, 0.13, h + 0.48}, kAllFaces & ~kFaceYNeg);
    b.box({-0.22, -0.25, h}, {0.22, -0.1, h + 0.02}, kNoBottom); // keyboard
    b.use("screen");
    b.box({-0.3, 0.09, h + 0.12}, {0.3, 0.13, h + 0.48}, kFaceYNeg);
}

void plant(MeshBuilder& b, SceneRng& rng, double scale) {
    const double r = scale * rng.uniform(0.14, 0.2), h = scale * rng.uniform(0.3, 0.42);
    const double crown = scale * rng.uniform(0.25, 0.35);
    b.use("pot");
    b.cylinder({0, 0, 0}, {0, 0, h}, r, 8);
    b.use("plant");
    b.sphere({0, 0, h + 0.85 * crown}, crown, 8, 6);
}

void rug(MeshBuilder& b, double w, double d) {
    b.use("rug");
    b.rect({-w / 2, -d / 2, 0.005}, {w, 0, 0}, {0, d, 0});
}

void radiator(MeshBuilder& b, double w, double h) {
    b.use("radiator");
    b.box({-w / 2, -0.05, 0.15}, {w / 2, 0.05, 0.15 + h}, kAllFaces & ~kFaceYPos);
}

void whiteboard(MeshBuilder& b, double w, double h, double z0) {
    b.use("whiteboard");
    b.box({-w / 2, -0.01, z0}, {w / 2, 0.01, z0 + h}, kAllFaces & ~kFaceYPos);
}

void pendantLamp(MeshBuilder& b, double ceiling) {
    const double z = ceiling - 0.75;
    b.use("lamp");
    b.cylinder({0, 0, z}, {0, 0, 0.18}, 0.2, 10);
    b.use("metal");
    b.box({-0.005, -0.005, z + 0.18}, {0.005, 0.005, ceiling}, kSidesOnly);
}

void curtain(MeshBuilder& b, double w, double h, double z0, double cell) {
    b.use("curtain");
    const int folds = std::max(2, int(w / 0.1));
    for (int i = 0; i < folds; ++i) {
        const double x0 = -w / 2 + w * i / folds, x1 = -w / 2 + w * (i + 1) / folds;
        const double y0 = (i % 2) * 0.04, y1 = ((i + 1) % 2) * 0.04;
        b.rect({x0, y0, z0}, {x1 - x0, y1 - y0, 0}, {0, 0, h}, cell);
    }
}

void partition(MeshBuilder& b, double w, double z0, double z1, double cell) {
    b.use("partition");
    b.rect({-w / 2, 0, z0}, {w, 0, 0}, {0, 0, z1 - z0}, cell);
}

} // namespace rsim
