// SPDX-License-Identifier: MIT
#include "transport/cpu_transport.h"

#include <algorithm>

#include "rsim/shared/gpu_layout.h"
#include "rsim/shared/transport.h"
#include "transport/near_pairs.h"
#include "transport/row_exchange.h"
#include "util/error.h"
#include "util/parallel.h"
#include "util/progress.h"

namespace rsim {
namespace {

// Time blocking, as in the GPU transport (RSIM_TIME_BLOCK in include/rsim/shared/gpu_layout.h).
constexpr std::size_t kBlock = shared::RSIM_TIME_BLOCK;
// Receivers gathered together: their K elements for one source j are neighbours in the chunk.
constexpr std::uint32_t kTileRows = 64;

} // namespace

void runTransportCpu(const PreparedScene& s, const HostK* K, const std::vector<CpuTransportPose>& poses,
                     const RowShare* share, double* exchangeSeconds) {
    if (poses.empty()) return;
    const SimConfig& c = *poses[0].config; // the time axis and `indirect` of every pose
    const std::size_t n = s.size(), T = c.timesteps, P = poses.size();
    for (const CpuTransportPose& p : poses)
        if (p.config->timesteps != T || p.config->indirect != c.indirect || p.config->invCdtSq != c.invCdtSq)
            throw Error("internal: the poses of one transport batch differ in their time axis or indirect light");
    if (!c.indirect || !K) {
        for (const CpuTransportPose& p : poses) {
            *p.B = *p.E;
            *p.Z = *p.R;
        }
        return;
    }
    // B and Z are [i * T + t] and double as the history: the rows of a block read earlier
    // entries only.
    std::vector<float*> Bp(P), Zp(P);
    for (std::size_t p = 0; p < P; ++p) {
        poses[p].B->assign(n * T, 0.0f);
        poses[p].Z->assign(n * T, 0.0f);
        Bp[p] = poses[p].B->data();
        Zp[p] = poses[p].Z->data();
    }
    std::vector<float> rhoA(n); // rho_j A_j, the per-source factor of the importance gather
    for (std::size_t j = 0; j < n; ++j) rhoA[j] = s.reflectance[j] * s.area[j];
    const KChunking& ch = K->chunking();
    if (share && (K->firstHeld() != share->firstChunk() || K->endHeld() != share->endChunk()))
        throw Error("internal: the transport's K does not hold this rank's rows");
    auto getK = [K](std::uint32_t i, std::uint32_t j) { return K->get(i, j); };
    const NearLists near =
        share ? shareNearLists(buildNearLists(s, c, getK, kBlock, share->rowBegin(), share->rowEnd()), *share)
              : buildNearLists(s, c, getK);

    // Far sums, [(p * n + i) * kBlock + q].
    std::vector<double> sumB(P * n * kBlock), sumZ(P * n * kBlock);
    std::vector<std::vector<double>> scratchB(threadCount(), std::vector<double>(P * kTileRows * kBlock)),
        scratchZ(threadCount(), std::vector<double>(P * kTileRows * kBlock));
    // Row-block mode: the exchanges of a block's far sums, B and Z of each half of the rows
    // (built once: their buffers serve every block).
    constexpr std::uint32_t kParts = 2;
    std::vector<RowExchange> exchanges;
    exchanges.reserve(2 * kParts);
    for (std::uint32_t part = 0; share && part < kParts; ++part)
        for (int sums = 0; sums < 2; ++sums)
            exchanges.emplace_back(*share, rowsOfPart(*share, part, kParts), P, n * kBlock * sizeof(double),
                                   kBlock * sizeof(double));
    Progress progress("radiosity", T, "timesteps");
    for (std::size_t t0 = 0; t0 < T; t0 += kBlock) {
        const std::size_t steps = std::min(kBlock, T - t0);
        // Far pairs: every step of the block at once (sources strictly before t0), a tile of
        // receivers per task. Each receiver adds its sources in order of j, for every pose.
        auto gatherTile = [&](std::uint32_t chunk, std::uint32_t a, std::uint32_t b, unsigned w) {
            const std::uint32_t r0 = ch.rowBegin(chunk), rows = ch.rows(chunk);
            // This worker's sums of the tile, [(p * kTileRows + r - a) * kBlock + q].
            std::vector<double>& accB = scratchB[w];
            std::vector<double>& accZ = scratchZ[w];
            std::fill(accB.begin(), accB.end(), 0.0);
            std::fill(accZ.begin(), accZ.end(), 0.0);
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
                    for (std::size_t p = 0; p < P; ++p) {
                        double* aB = &accB[(p * kTileRows + r - a) * kBlock];
                        double* aZ = &accZ[(p * kTileRows + r - a) * kBlock];
                        const float* hB = Bp[p] + src - first;
                        const float* hZ = Zp[p] + src - first;
                        for (std::size_t q = first; q < steps; ++q) {
                            aB[q] += double(f.x) * double(hB[q]);
                            aZ[q] += double(f.y) * double(hZ[q]);
                        }
                    }
                }
            }
            for (std::size_t p = 0; p < P; ++p)
                for (std::uint32_t r = a; r < b; ++r) {
                    const std::size_t from = (p * kTileRows + r - a) * kBlock, to = (p * n + r0 + r) * kBlock;
                    std::copy(&accB[from], &accB[from] + kBlock, &sumB[to]);
                    std::copy(&accZ[from], &accZ[from] + kBlock, &sumZ[to]);
                }
            // The calling thread lets the exchange of the first half move on (Ranks::Pending).
            for (RowExchange& x : exchanges) x.poll();
        };
        if (!share) {
            parallelRowTiles(ch, kTileRows, gatherTile);
        } else {
            // This rank's rows in two halves: the first half's sums travel while the second
            // half is gathered.
            for (std::uint32_t part = 0; part < kParts; ++part) {
                parallelRowTiles(ch, kTileRows, gatherTile, share->partChunk(share->rank(), part, kParts),
                                 share->partChunk(share->rank(), part + 1, kParts));
                exchanges[2 * part].start(sumB.data());
                exchanges[2 * part + 1].start(sumZ.data());
            }
            for (std::size_t x = 0; x < exchanges.size(); ++x)
                exchanges[x].finish((x % 2 ? sumZ : sumB).data(), exchangeSeconds);
        }
        // Near pairs and the new values, one step at a time.
        for (std::size_t q = 0; q < steps; ++q) {
            const std::size_t t = t0 + q;
            parallelFor(n, 64, [&](std::size_t begin, std::size_t end, unsigned) {
                for (std::size_t p = 0; p < P; ++p) {
                    float* B = Bp[p];
                    float* Z = Zp[p];
                    const float* E = poses[p].E->data();
                    const float* R = poses[p].R->data();
                    for (std::size_t i = begin; i < end; ++i) {
                        double b = sumB[(p * n + i) * kBlock + q], z = sumZ[(p * n + i) * kBlock + q];
                        for (std::uint32_t x = near.offsets[i]; x < near.offsets[i + 1]; ++x) {
                            const shared::NearPair& np = near.pairs[x];
                            if (np.delay > t) continue;
                            b += double(np.coefB) * double(B[np.source * T + t - np.delay]);
                            z += double(np.coefZ) * double(Z[np.source * T + t - np.delay]);
                        }
                        const glm::vec2 bz = shared::rsimRadiosityUpdate(E[i * T + t], R[i * T + t], b, z,
                                                                         s.reflectance[i], s.area[i]);
                        B[i * T + t] = bz.x;
                        Z[i * T + t] = bz.y;
                    }
                }
            });
        }
        progress.add(steps);
    }
    progress.finish();
}

} // namespace rsim
