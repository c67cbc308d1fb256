// SPDX-License-Identifier: MIT
// Time-resolved radiosity B and importance Z on the CPU (cpu_transport.h), time-blocked as on
// the GPU: per block, the far sums of every receiver at once (in row-block mode this rank's rows,
// exchanged with the other ranks in two halves), then the near pairs and the new values, one
// step at a time.
#include "transport/cpu_transport.h"

#include <algorithm>
#include <optional>

#include <spdlog/spdlog.h>

#include "k/k_rows.h"
#include "rsim/shared/gpu_layout.h"
#include "rsim/shared/transport.h"
#include "transport/cpu_far_gather.h"
#include "transport/cpu_far_pairs.h"
#include "transport/near_pairs.h"
#include "transport/row_exchange.h"
#include "util/error.h"
#include "util/host_memory.h"
#include "util/parallel.h"
#include "util/progress.h"
#include "util/timer.h"

namespace rsim {
namespace {

// Time blocking as in the GPU transport, with blocks of its own (transport/cpu_far_gather.h).
constexpr std::size_t kBlock = kCpuTimeBlock;
// Receivers gathered together (their K elements for one source j are neighbours in the chunk): 64,
// or fewer in a small scene, so that every worker has tiles to take (four each). The tiles group
// the rows only: each row's sums run over its sources in the same order whatever their size.
constexpr std::uint32_t kMaxTileRows = 64;
static_assert(kMaxTileRows <= 256, "a far pair's row in its tile has 8 bits (transport/cpu_far_pairs.h)");
std::uint32_t tileRowsFor(std::size_t n) {
    const std::size_t tiles = 4 * std::size_t(threadCount()), perTile = (n + tiles - 1) / tiles;
    return std::uint32_t(std::clamp<std::size_t>((perTile + 7) / 8 * 8, 8, kMaxTileRows));
}
// Row-block mode: this rank's rows in two halves, the first half's sums travelling while the
// second half is gathered.
constexpr std::uint32_t kParts = 2;

// The transport of a batch with indirect light: the poses' histories, a block's far sums, the
// workers' scratch, the near lists and (row-block mode) the exchanges, and each block's steps.
class CpuTransport {
public:
    CpuTransport(const PreparedScene& s, const HostK& K, const std::vector<CpuTransportPose>& poses,
                 const RowShare* share, CpuTransportTimes* times, std::optional<std::uint64_t> farPairBytes);
    // Every time block: its far sums, then its near steps.
    void run();

private:
    // The far sums of the block [t0, t0 + steps) of rows [a, b) of `chunk`, on worker w: from
    // the tile's list of far pairs, or else from K (each element decoded, each delay worked out).
    void gatherTile(std::size_t t0, std::size_t steps, std::uint32_t chunk, std::uint32_t a, std::uint32_t b,
                    unsigned w);
    void gatherListed(std::size_t t0, std::size_t steps, std::uint32_t chunk, std::uint32_t a, unsigned w);
    void gatherDecoded(std::size_t t0, std::size_t steps, std::uint32_t chunk, std::uint32_t a, std::uint32_t b,
                       unsigned w);
    // Adds a far pair's contribution to the block's sums of receiver row `row` of the tile.
    void addFarPair(std::size_t t0, std::size_t steps, std::uint32_t i, std::uint32_t j, float k, std::size_t tau,
                    std::uint32_t row, unsigned w);
    // The far sums of the block [t0, t0 + steps) of every row (row-block mode: every rank's).
    void gatherFarSums(std::size_t t0, std::size_t steps);
    // Near pairs and the new values, one step at a time.
    void nearSteps(std::size_t t0, std::size_t steps);

    const PreparedScene& s_;
    const HostK& K_;
    const std::vector<CpuTransportPose>& poses_;
    const RowShare* share_;
    CpuTransportTimes* times_; // may be null
    const SimConfig& c_; // the time axis and `indirect` of every pose
    const std::size_t n_, T_, P_;
    const std::uint32_t tileRows_; // tileRowsFor(n)
    // B and Z are [i * T + t] and double as the history: the rows of a block read earlier
    // entries only.
    std::vector<float*> Bp_, Zp_;
    std::vector<float> rhoA_; // rho_j A_j, the per-source factor of the importance gather
    const KChunking& ch_;
    NearLists near_;
    std::optional<FarPairLists> far_; // where they fit the host's memory
    // Far sums, [(p * n + i) * kBlock + q].
    std::vector<double> sumB_, sumZ_;
    std::vector<std::vector<double>> scratchB_, scratchZ_;
    // Row-block mode: the exchanges of a block's far sums, B and Z of each half of the rows
    // (built once: their buffers serve every block).
    std::vector<RowExchange> exchanges_;
};

CpuTransport::CpuTransport(const PreparedScene& s, const HostK& K, const std::vector<CpuTransportPose>& poses,
                           const RowShare* share, CpuTransportTimes* times, std::optional<std::uint64_t> farPairBytes)
    : s_(s), K_(K), poses_(poses), share_(share), times_(times), c_(*poses[0].config),
      n_(s.size()), T_(c_.timesteps), P_(poses.size()), tileRows_(tileRowsFor(n_)), Bp_(P_), Zp_(P_),
      ch_(K.chunking()) {
    const std::size_t n = n_, T = T_, P = P_;
    for (std::size_t p = 0; p < P; ++p) {
        poses[p].B->assign(n * T, 0.0f);
        poses[p].Z->assign(n * T, 0.0f);
        Bp_[p] = poses[p].B->data();
        Zp_[p] = poses[p].Z->data();
    }
    rhoA_ = std::vector<float>(n);
    for (std::size_t j = 0; j < n; ++j) rhoA_[j] = s.reflectance[j] * s.area[j];
    if (share && (K.firstHeld() != share->firstChunk() || K.endHeld() != share->endChunk()))
        throw Error("internal: the transport's K does not hold this rank's rows");
    auto getK = [&K](std::uint32_t i, std::uint32_t j) { return K.get(i, j); };
    near_ = share ? shareNearLists(buildNearLists(s, c_, getK, kBlock, share->rowBegin(), share->rowEnd()), *share)
                  : buildNearLists(s, c_, getK, kBlock);

    // The far pairs listed once where they fit a quarter of the host's memory and half of what
    // is free: 12 bytes a pair, read once per block and pose instead of K decoded and its delays
    // worked out.
    const std::uint64_t budget = farPairBytes ? *farPairBytes : hostListBudgetBytes();
    far_ = FarPairLists::build(s, K, c_.invCdtSq, tileRows_, std::uint32_t(kBlock), budget);
    if (far_)
        spdlog::debug("radiosity (CPU): far pairs listed once, {:.1f} MiB", double(far_->bytes()) / 1048576.0);
    else
        spdlog::info("radiosity (CPU): K decoded for every block of {} steps: its far pairs' lists would take more "
                     "than the {:.1f} GiB of host memory they may have",
                     kBlock, double(budget) / 1073741824.0);
    sumB_ = std::vector<double>(P * n * kBlock);
    sumZ_ = std::vector<double>(P * n * kBlock);
    scratchB_ = std::vector<std::vector<double>>(threadCount(), std::vector<double>(P * tileRows_ * kBlock));
    scratchZ_ = std::vector<std::vector<double>>(threadCount(), std::vector<double>(P * tileRows_ * kBlock));
    exchanges_.reserve(2 * kParts);
    for (std::uint32_t part = 0; share && part < kParts; ++part)
        for (int sums = 0; sums < 2; ++sums)
            exchanges_.emplace_back(*share, rowsOfPart(*share, part, kParts), P, n * kBlock * sizeof(double),
                                    kBlock * sizeof(double));
}

void CpuTransport::run() {
    Progress progress("radiosity", T_, "timesteps");
    double far = 0.0, near = 0.0;
    for (std::size_t t0 = 0; t0 < T_; t0 += kBlock) {
        const std::size_t steps = std::min(kBlock, T_ - t0);
        const Stopwatch farWatch;
        gatherFarSums(t0, steps);
        far += farWatch.seconds();
        const Stopwatch nearWatch;
        nearSteps(t0, steps);
        near += nearWatch.seconds();
        progress.add(steps);
    }
    if (times_) {
        times_->farSums += far;
        times_->nearSteps += near;
    }
    progress.finish();
}

// Far pairs: every step of the block at once (sources strictly before t0), a tile of receivers
// per task. Each receiver adds its sources in order of j, for every pose: the same sums in the
// same order from the lists as from K.
void CpuTransport::gatherTile(std::size_t t0, std::size_t steps, std::uint32_t chunk, std::uint32_t a,
                              std::uint32_t b, unsigned w) {
    const std::size_t n = n_, P = P_;
    const std::uint32_t r0 = ch_.rowBegin(chunk);
    // This worker's sums of the tile, [(p * tileRows_ + r - a) * kBlock + q].
    std::vector<double>& accB = scratchB_[w];
    std::vector<double>& accZ = scratchZ_[w];
    std::fill(accB.begin(), accB.end(), 0.0);
    std::fill(accZ.begin(), accZ.end(), 0.0);
    if (far_) gatherListed(t0, steps, chunk, a, w);
    else gatherDecoded(t0, steps, chunk, a, b, w);
    for (std::size_t p = 0; p < P; ++p)
        for (std::uint32_t r = a; r < b; ++r) {
            const std::size_t from = (p * tileRows_ + r - a) * kBlock, to = (p * n + r0 + r) * kBlock;
            std::copy(&accB[from], &accB[from] + kBlock, &sumB_[to]);
            std::copy(&accZ[from], &accZ[from] + kBlock, &sumZ_[to]);
        }
    // The calling thread lets the exchange of the first half move on (Ranks::Pending).
    for (RowExchange& x : exchanges_) x.poll();
}

void CpuTransport::gatherListed(std::size_t t0, std::size_t steps, std::uint32_t chunk, std::uint32_t a, unsigned w) {
    gatherFarTile({.pairs = far_->tile(chunk, a),
                   .t0 = t0,
                   .steps = steps,
                   .T = T_,
                   .firstRow = ch_.rowBegin(chunk) + a,
                   .tileRows = tileRows_,
                   .area = s_.area.data(),
                   .rhoA = rhoA_.data(),
                   .B = Bp_.data(),
                   .Z = Zp_.data(),
                   .poses = P_,
                   .sumB = scratchB_[w].data(),
                   .sumZ = scratchZ_[w].data()});
}

void CpuTransport::gatherDecoded(std::size_t t0, std::size_t steps, std::uint32_t chunk, std::uint32_t a,
                                 std::uint32_t b, unsigned w) {
    const PreparedScene& s = s_;
    const std::uint32_t r0 = ch_.rowBegin(chunk);
    forEachNonzero(K_, chunk, a, b, [&](std::uint32_t j, std::uint32_t r, float k) {
        const std::uint32_t i = r0 + r;
        const std::size_t tau = shared::rsimDelaySteps(s.centroid[i], s.centroid[j], c_.invCdtSq);
        if (tau < kBlock || tau > t0 + steps - 1) return; // near, or not yet arrived
        addFarPair(t0, steps, i, j, k, tau, r - a, w);
    });
}

void CpuTransport::addFarPair(std::size_t t0, std::size_t steps, std::uint32_t i, std::uint32_t j, float k,
                              std::size_t tau, std::uint32_t row, unsigned w) {
    const std::size_t T = T_, P = P_;
    const glm::vec2 f = shared::rsimGatherCoefficients(k, s_.area[i], s_.area[j], rhoA_[j]);
    // Step q reads time t0 + q - tau; steps before t = tau read nothing.
    const std::size_t first = tau > t0 ? tau - t0 : 0;
    const std::size_t src = std::size_t(j) * T + t0 + first - tau;
    for (std::size_t p = 0; p < P; ++p) {
        double* aB = &scratchB_[w][(p * tileRows_ + row) * kBlock];
        double* aZ = &scratchZ_[w][(p * tileRows_ + row) * kBlock];
        const float* hB = Bp_[p] + src - first;
        const float* hZ = Zp_[p] + src - first;
        for (std::size_t q = first; q < steps; ++q) {
            aB[q] += double(f.x) * double(hB[q]);
            aZ[q] += double(f.y) * double(hZ[q]);
        }
    }
}

void CpuTransport::gatherFarSums(std::size_t t0, std::size_t steps) {
    auto gatherTileOfBlock = [&](std::uint32_t chunk, std::uint32_t a, std::uint32_t b, unsigned w) {
        gatherTile(t0, steps, chunk, a, b, w);
    };
    if (!share_) {
        parallelRowTiles(ch_, tileRows_, gatherTileOfBlock);
        return;
    }
    // This rank's rows in two halves: the first half's sums travel while the second half is
    // gathered.
    for (std::uint32_t part = 0; part < kParts; ++part) {
        parallelRowTiles(ch_, tileRows_, gatherTileOfBlock, share_->partChunk(share_->rank(), part, kParts),
                         share_->partChunk(share_->rank(), part + 1, kParts));
        exchanges_[2 * part].start(sumB_.data());
        exchanges_[2 * part + 1].start(sumZ_.data());
    }
    for (std::size_t x = 0; x < exchanges_.size(); ++x)
        exchanges_[x].finish((x % 2 ? sumZ_ : sumB_).data(), times_ ? &times_->exchange : nullptr);
}

void CpuTransport::nearSteps(std::size_t t0, std::size_t steps) {
    const std::size_t n = n_, T = T_, P = P_;
    for (std::size_t q = 0; q < steps; ++q) {
        const std::size_t t = t0 + q;
        parallelFor(n, 64, [&](std::size_t begin, std::size_t end, unsigned) {
            for (std::size_t p = 0; p < P; ++p) {
                float* B = Bp_[p];
                float* Z = Zp_[p];
                const float* E = poses_[p].E->data();
                const float* R = poses_[p].R->data();
                for (std::size_t i = begin; i < end; ++i) {
                    double b = sumB_[(p * n + i) * kBlock + q], z = sumZ_[(p * n + i) * kBlock + q];
                    for (std::uint32_t x = near_.offsets[i]; x < near_.offsets[i + 1]; ++x) {
                        const shared::NearPair& np = near_.pairs[x];
                        if (np.delay > t) continue;
                        b += double(np.coefB) * double(B[np.source * T + t - np.delay]);
                        z += double(np.coefZ) * double(Z[np.source * T + t - np.delay]);
                    }
                    const glm::vec2 bz = shared::rsimRadiosityUpdate(E[i * T + t], R[i * T + t], b, z,
                                                                     s_.reflectance[i], s_.area[i]);
                    B[i * T + t] = bz.x;
                    Z[i * T + t] = bz.y;
                }
            }
        });
    }
}

} // namespace

void runTransportCpu(const PreparedScene& s, const HostK* K, const std::vector<CpuTransportPose>& poses,
                     const RowShare* share, CpuTransportTimes* times, std::optional<std::uint64_t> farPairBytes) {
    if (poses.empty()) return;
    const SimConfig& c = *poses[0].config; // the time axis and `indirect` of every pose
    const std::size_t T = c.timesteps;
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
    const Stopwatch lists;
    CpuTransport transport(s, *K, poses, share, times, farPairBytes);
    if (times) times->lists += lists.seconds();
    transport.run();
}

} // namespace rsim
