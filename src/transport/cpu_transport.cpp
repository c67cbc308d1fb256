// SPDX-License-Identifier: MIT
#include "transport/cpu_transport.h"

#include <algorithm>

#include "rsim/shared/gpu_layout.h"
#include "rsim/shared/transport.h"
#include "transport/near_pairs.h"
#include "util/parallel.h"
#include "util/progress.h"

namespace rsim {
namespace {

// Time blocking, as in the GPU transport (RSIM_TIME_BLOCK in include/rsim/shared/gpu_layout.h).
constexpr std::size_t kBlock = shared::RSIM_TIME_BLOCK;
// Receivers gathered together: their K elements for one source j are neighbours in the chunk.
constexpr std::uint32_t kTileRows = 64;

} // namespace

void runTransportCpu(const PreparedScene& s, const SimConfig& c, const HostK* K,
                     const std::vector<float>& E, const std::vector<float>& R,
                     std::vector<float>& B, std::vector<float>& Z) {
    const std::size_t n = s.size(), T = c.timesteps;
    if (!c.indirect || !K) {
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
    const NearLists near = buildNearLists(s, c, [K](std::uint32_t i, std::uint32_t j) { return K->get(i, j); });
    const KChunking& ch = K->chunking();

    std::vector<double> sumB(n * kBlock), sumZ(n * kBlock);
    Progress progress("radiosity", T, "timesteps");
    for (std::size_t t0 = 0; t0 < T; t0 += kBlock) {
        const std::size_t steps = std::min(kBlock, T - t0);
        // Far pairs: every step of the block at once (sources strictly before t0), a tile of
        // receivers per task. Each receiver adds its sources in order of j.
        parallelRowTiles(ch, kTileRows, [&](std::uint32_t chunk, std::uint32_t a, std::uint32_t b, unsigned) {
            const std::uint32_t r0 = ch.rowBegin(chunk), rows = ch.rows(chunk);
            double accB[kTileRows][kBlock] = {}, accZ[kTileRows][kBlock] = {};
            for (std::uint32_t j = 0; j < n; ++j) {
                const glm::vec3 cj = s.centroid[j];
                for (std::uint32_t r = a; r < b; ++r) {
                    const float k = decodeElement(K->chunk(chunk), ch.storage(), std::uint64_t(j) * rows + r);
                    if (k == 0.0f) continue;
                    const std::uint32_t i = r0 + r;
                    const std::size_t tau = shared::rsimDelaySteps(s.centroid[i], cj, c.invCdtSq);
                    if (tau < kBlock || tau > t0 + steps - 1) continue; // near, or not yet arrived
                    const glm::vec2 f = shared::rsimGatherCoefficients(k, s.area[i], s.area[j], rhoA[j]);
                    // Step q reads time t0 + q - tau; steps before t = tau read nothing.
                    const std::size_t first = tau > t0 ? tau - t0 : 0;
                    const std::size_t src = std::size_t(j) * T + t0 + first - tau;
                    for (std::size_t q = first; q < steps; ++q) {
                        accB[r - a][q] += double(f.x) * double(B[src + q - first]);
                        accZ[r - a][q] += double(f.y) * double(Z[src + q - first]);
                    }
                }
            }
            for (std::uint32_t r = a; r < b; ++r) {
                std::copy(accB[r - a], accB[r - a] + kBlock, &sumB[(r0 + r) * kBlock]);
                std::copy(accZ[r - a], accZ[r - a] + kBlock, &sumZ[(r0 + r) * kBlock]);
            }
        });
        // Near pairs and the new values, one step at a time.
        for (std::size_t q = 0; q < steps; ++q) {
            const std::size_t t = t0 + q;
            parallelFor(n, 64, [&](std::size_t begin, std::size_t end, unsigned) {
                for (std::size_t i = begin; i < end; ++i) {
                    double b = sumB[i * kBlock + q], z = sumZ[i * kBlock + q];
                    for (std::uint32_t x = near.offsets[i]; x < near.offsets[i + 1]; ++x) {
                        const shared::NearPair& p = near.pairs[x];
                        if (p.delay > t) continue;
                        b += double(p.coefB) * double(B[p.source * T + t - p.delay]);
                        z += double(p.coefZ) * double(Z[p.source * T + t - p.delay]);
                    }
                    const glm::vec2 bz = shared::rsimRadiosityUpdate(E[i * T + t], R[i * T + t], b, z,
                                                                     s.reflectance[i], s.area[i]);
                    B[i * T + t] = bz.x;
                    Z[i * T + t] = bz.y;
                }
            });
        }
        progress.add(steps);
    }
    progress.finish();
}

} // namespace rsim
