// SPDX-License-Identifier: MIT
#include "transport/cpu_transport.h"

#include "util/parallel.h"
#include "util/progress.h"

namespace rsim {

void runTransportCpu(const PreparedScene& s, const SimConfig& c, const std::vector<float>& K,
                     const std::vector<float>& E, const std::vector<float>& R,
                     std::vector<float>& B, std::vector<float>& Z) {
    const std::size_t n = s.size(), T = c.timesteps;
    if (!c.indirect) {
        B = E;
        Z = R;
        return;
    }
    // History in time-major order: for a fixed receiver i, neighbouring sources j (Morton
    // order) have similar delays, so B(t - tau_ij, j) walks along nearby rows.
    std::vector<float> hB(n * T, 0.0f), hZ(n * T, 0.0f);
    // rho_j A_j, the per-source factor of the importance gather.
    std::vector<float> rhoA(n);
    for (std::size_t j = 0; j < n; ++j) rhoA[j] = s.reflectance[j] * s.area[j];

    Progress progress("radiosity", T, "timesteps");
    for (std::size_t t = 0; t < T; ++t) {
        parallelFor(n, 16, [&](std::size_t begin, std::size_t end, unsigned) {
            for (std::size_t i = begin; i < end; ++i) {
                const glm::vec3 ci = s.centroid[i];
                const float ai = s.area[i];
                const float* row = &K[i * n];
                double sumB = 0.0, sumZ = 0.0;
                for (std::size_t j = 0; j < n; ++j) {
                    const float k = row[j];
                    if (k == 0.0f) continue;
                    const std::size_t tau = shared::rsimDelaySteps(ci, s.centroid[j], c.invCdtSq);
                    if (tau > t) continue;
                    const std::size_t past = (t - tau) * n + j;
                    // B_i gathers F_ij B_j; Z_i gathers rho_j (A_j / A_i) F_ji Z_j.
                    sumB += double(shared::rsimFormFactor(k, s.area[j])) * double(hB[past]);
                    sumZ += double(rhoA[j] * shared::rsimFormFactor(k, ai)) * double(hZ[past]);
                }
                hB[t * n + i] = E[i * T + t] + float(double(s.reflectance[i]) * sumB);
                hZ[t * n + i] = R[i * T + t] + float(sumZ / double(ai));
            }
        });
        progress.add(1);
    }
    progress.finish();
    B.resize(n * T);
    Z.resize(n * T);
    parallelFor(n, 256, [&](std::size_t begin, std::size_t end, unsigned) {
        for (std::size_t i = begin; i < end; ++i)
            for (std::size_t t = 0; t < T; ++t) {
                B[i * T + t] = hB[t * n + i];
                Z[i * T + t] = hZ[t * n + i];
            }
    });
}

} // namespace rsim
