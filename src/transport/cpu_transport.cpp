// SPDX-License-Identifier: MIT
#include "transport/cpu_transport.h"

#include <algorithm>

#include "rsim/shared/gpu_layout.h"
#include "util/parallel.h"
#include "util/progress.h"

namespace rsim {
namespace {

// Time blocking, as in the GPU transport (RSIM_TIME_BLOCK in include/rsim/shared/gpu_layout.h).
constexpr std::size_t kBlock = shared::RSIM_TIME_BLOCK;
using shared::NearPair;

} // namespace

void runTransportCpu(const PreparedScene& s, const SimConfig& c, const HostKMatrix& K,
                     const std::vector<float>& E, const std::vector<float>& R,
                     std::vector<float>& B, std::vector<float>& Z) {
    const std::size_t n = s.size(), T = c.timesteps;
    if (!c.indirect) {
        B = E;
        Z = R;
        return;
    }
    // B and Z are [i * T + t] and double as the history: the rows of a block read earlier
    // entries only.
    B.assign(n * T, 0.0f);
    Z.assign(n * T, 0.0f);
    std::vector<float> rhoA(n); // rho_j A_j, the per-source factor of the importance gather
    for (std::size_t j = 0; j < n; ++j) rhoA[j] = s.reflectance[j] * s.area[j];

    // Decoded rows of K, one buffer per thread.
    std::vector<std::vector<float>> rows(threadCount(), std::vector<float>(n));
    // Near pairs never change: collect them once.
    std::vector<std::vector<NearPair>> near(n);
    parallelFor(n, 16, [&](std::size_t begin, std::size_t end, unsigned w) {
        float* row = rows[w].data();
        for (std::size_t i = begin; i < end; ++i) {
            K.decodeRow(std::uint32_t(i), row);
            for (std::size_t j = 0; j < n; ++j) {
                const float k = row[j];
                if (k == 0.0f) continue;
                const std::uint32_t tau = shared::rsimDelaySteps(s.centroid[i], s.centroid[j], c.invCdtSq);
                if (tau < kBlock)
                    near[i].push_back({std::uint32_t(j), tau, shared::rsimFormFactor(k, s.area[j]),
                                       rhoA[j] * shared::rsimFormFactor(k, s.area[i])});
            }
        }
    });

    std::vector<double> sumB(n * kBlock), sumZ(n * kBlock);
    Progress progress("radiosity", T, "timesteps");
    for (std::size_t t0 = 0; t0 < T; t0 += kBlock) {
        const std::size_t steps = std::min(kBlock, T - t0);
        // Far pairs: every step of the block at once (sources strictly before t0).
        parallelFor(n, 8, [&](std::size_t begin, std::size_t end, unsigned w) {
            float* row = rows[w].data();
            for (std::size_t i = begin; i < end; ++i) {
                const glm::vec3 ci = s.centroid[i];
                const float ai = s.area[i];
                K.decodeRow(std::uint32_t(i), row);
                double accB[kBlock] = {}, accZ[kBlock] = {};
                for (std::size_t j = 0; j < n; ++j) {
                    const float k = row[j];
                    if (k == 0.0f) continue;
                    const std::size_t tau = shared::rsimDelaySteps(ci, s.centroid[j], c.invCdtSq);
                    if (tau < kBlock || tau > t0 + steps - 1) continue; // near, or not yet arrived
                    // B_i gathers F_ij B_j; Z_i gathers rho_j (A_j / A_i) F_ji Z_j.
                    const double fB = shared::rsimFormFactor(k, s.area[j]);
                    const double fZ = rhoA[j] * shared::rsimFormFactor(k, ai);
                    // Step q reads time t0 + q - tau; steps before t = tau read nothing.
                    const std::size_t first = tau > t0 ? tau - t0 : 0;
                    const std::size_t src = j * T + t0 + first - tau;
                    for (std::size_t q = first; q < steps; ++q) {
                        accB[q] += fB * double(B[src + q - first]);
                        accZ[q] += fZ * double(Z[src + q - first]);
                    }
                }
                std::copy(accB, accB + kBlock, &sumB[i * kBlock]);
                std::copy(accZ, accZ + kBlock, &sumZ[i * kBlock]);
            }
        });
        // Near pairs and the new values, one step at a time.
        for (std::size_t q = 0; q < steps; ++q) {
            const std::size_t t = t0 + q;
            parallelFor(n, 64, [&](std::size_t begin, std::size_t end, unsigned) {
                for (std::size_t i = begin; i < end; ++i) {
                    double b = sumB[i * kBlock + q], z = sumZ[i * kBlock + q];
                    for (const NearPair& p : near[i]) {
                        if (p.delay > t) continue;
                        b += double(p.coefB) * double(B[p.source * T + t - p.delay]);
                        z += double(p.coefZ) * double(Z[p.source * T + t - p.delay]);
                    }
                    B[i * T + t] = E[i * T + t] + float(double(s.reflectance[i]) * b);
                    Z[i * T + t] = R[i * T + t] + float(z / double(s.area[i]));
                }
            });
        }
        progress.add(steps);
    }
    progress.finish();
}

} // namespace rsim
