// SPDX-License-Identifier: MIT
// The phasor solve on the CPU (transport/phasor_system.h, solvePhasorsCpu): Jacobi iterations
// over K by row tiles on every core; each receiver sums its sources in order of j, in double, for
// each active column, so a column's iterates do not depend on the others. Under MPI row blocks
// each rank iterates the rows of its chunks and the ranks swap the new rows after each iteration.
#include <algorithm>
#include <cmath>
#include <cstring>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "k/host_k.h"
#include "k/row_share.h"
#include "rsim/shared/phasors.h"
#include "transport/phasor_system.h"
#include "util/error.h"
#include "util/parallel.h"
#include "util/progress.h"
#include "util/ranks.h"
#include "util/timer.h"

namespace rsim {
namespace {

// Receivers gathered together: their K elements for one source j are neighbours in the chunk.
constexpr std::uint32_t kTileRows = 64;

class CpuPhasorSolve {
  public:
    CpuPhasorSolve(const PreparedScene& s, const HostK& K, const PhasorSystem& sys, const RowShare* share)
        : s_(s), K_(K), sys_(sys), share_(share), C_(sys.columns.count()), P_(sys.columns.poses),
          x_(sys.sources), next_(sys.sources), conv_(sys) {
        if (share && (K.firstHeld() != share->firstChunk() || K.endHeld() != share->endChunk()))
            throw Error("internal: the phasor solve's K does not hold this rank's rows");
        if (!share && !K.holdsAll()) throw Error("internal: the phasor solve's K holds only some rows");
    }

    PhasorSolution run() {
        PhasorSolution out;
        out.iterations.assign(C_, 0);
        out.change.assign(C_, 0.0);
        out.scale = conv_.scale;
        Progress progress("phasors", sys_.maxIterations, "iterations");
        double exchange = 0.0;
        for (std::uint32_t k = 1; k <= sys_.maxIterations; ++k) {
            active_.clear();
            for (std::uint32_t c = 0; c < C_; ++c)
                if (conv_.active[c]) active_.push_back(c);
            changes_.assign(threadCount(), std::vector<double>(C_, 0.0));
            parallelRowTiles(K_.chunking(), kTileRows,
                             [&](std::uint32_t chunk, std::uint32_t a, std::uint32_t b, unsigned w) {
                                 gatherTile(chunk, a, b, w);
                             },
                             share_ ? share_->firstChunk() : 0, share_ ? share_->endChunk() : UINT32_MAX);
            std::vector<double> changes(C_, 0.0);
            for (const auto& mine : changes_)
                for (std::uint32_t c = 0; c < C_; ++c) changes[c] = std::max(changes[c], mine[c]);
            if (share_) exchange += swapPhasorRows(*share_, C_, next_, changes);
            x_.swap(next_);
            out.sweeps = k;
            progress.add(1);
            if (!conv_.update(k, changes, out)) break;
            // The frozen columns keep their values in both iterates.
            for (std::uint32_t c : active_)
                if (!conv_.active[c])
                    for (std::size_t m = 0; m < sys_.n; ++m) next_[m * C_ + c] = x_[m * C_ + c];
        }
        progress.finish();
        out.converged = std::none_of(conv_.active.begin(), conv_.active.end(), [](std::uint8_t a) { return a != 0; });
        out.values = std::move(x_);
        if (share_) {
            out.details.emplace_back("phasors_exchange", exchange);
            out.summary = fmt::format("{:.3f} s swapping rows with {} other rank(s)", exchange, share_->count() - 1);
        }
        return out;
    }

  private:
    // Rows [a, b) of `chunk`: their next iterate of every active column, and the changes.
    void gatherTile(std::uint32_t chunk, std::uint32_t a, std::uint32_t b, unsigned w) {
        const KChunking& ch = K_.chunking();
        const std::uint32_t r0 = ch.rowBegin(chunk), rows = ch.rows(chunk);
        const std::size_t A = active_.size(), F = sys_.columns.omegas.size();
        std::vector<double> acc(std::size_t(b - a) * A * 2, 0.0);
        std::vector<glm::vec2> coef(F);
        std::vector<std::uint8_t> used(F, 0);
        for (std::uint32_t c : active_) used[c / P_] = 1;
        for (std::uint32_t j = 0; j < sys_.n; ++j) {
            const glm::vec3 cj = s_.centroid[j];
            const glm::vec2* xj = &x_[std::size_t(j) * C_];
            for (std::uint32_t r = a; r < b; ++r) {
                const float k = decodeElement(K_.chunk(chunk), ch.storage(), std::uint64_t(j) * rows + r);
                if (k == 0.0f) continue;
                const std::uint32_t i = r0 + r;
                const float F_ij = shared::rsimFormFactor(k, s_.area[j]);
                const float delay = shared::rsimPairDelay(s_.centroid[i], cj, sys_.invCdtSq, sys_.roundedDelays);
                for (std::size_t f = 0; f < F; ++f)
                    if (used[f]) coef[f] = shared::rsimPhasorCoefficient(F_ij, sys_.columns.omegas[f], delay);
                double* out = &acc[std::size_t(r - a) * A * 2];
                for (std::size_t q = 0; q < A; ++q) {
                    const std::uint32_t c = active_[q];
                    const glm::dvec2 m = glm::dvec2(coef[c / P_]), x = glm::dvec2(xj[c]);
                    out[2 * q] += m.x * x.x - m.y * x.y;
                    out[2 * q + 1] += m.x * x.y + m.y * x.x;
                }
            }
        }
        std::vector<double>& change = changes_[w];
        for (std::uint32_t r = a; r < b; ++r) {
            const std::size_t i = r0 + r;
            const double rho = double(sys_.reflectance[i]);
            for (std::size_t q = 0; q < A; ++q) {
                const std::uint32_t c = active_[q];
                const double* sum = &acc[(std::size_t(r - a) * A + q) * 2];
                const glm::vec2 e = sys_.sources[i * C_ + c];
                const glm::vec2 v(float(double(e.x) + rho * sum[0]), float(double(e.y) + rho * sum[1]));
                next_[i * C_ + c] = v;
                change[c] = std::max(change[c], double(glm::length(v - x_[i * C_ + c])));
            }
        }
    }

    const PreparedScene& s_;
    const HostK& K_;
    const PhasorSystem& sys_;
    const RowShare* share_;
    const std::uint32_t C_, P_;
    std::vector<glm::vec2> x_, next_; // B^(k), B^(k+1): [n][C]
    PhasorConvergence conv_;
    std::vector<std::uint32_t> active_; // the columns of this iteration
    std::vector<std::vector<double>> changes_; // per worker and column
};

} // namespace

PhasorSolution solvePhasorsCpu(const PreparedScene& s, const HostK* K, const PhasorSystem& sys,
                               const RowShare* share) {
    if (sys.sources.size() != std::size_t(sys.n) * sys.columns.count())
        throw Error("internal: the phasor sources do not match the columns");
    if (!sys.indirect || !K) {
        PhasorSolution out;
        out.values = sys.sources;
        out.iterations.assign(sys.columns.count(), 0);
        out.change.assign(sys.columns.count(), 0.0);
        out.scale = PhasorConvergence(sys).scale;
        return out;
    }
    return CpuPhasorSolve(s, *K, sys, share).run();
}

} // namespace rsim
