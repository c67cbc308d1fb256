// SPDX-License-Identifier: MIT
// The phasor solve on the CPU (transport/phasor_system.h, solvePhasorsCpu): Jacobi iterations
// over K by row tiles on every core; each receiver sums its sources in order of j, in double, for
// each active column, so a column's iterates do not depend on the others. The first iteration lists
// each tile's non-zero pairs with their factors where they fit (TilePairs); the later ones read the
// lists instead of decoding K and working out delays and trigonometry again. Under MPI row blocks
// each rank iterates the rows of its chunks and the ranks swap the new rows after each iteration.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "k/host_k.h"
#include "k/k_rows.h"
#include "k/row_share.h"
#include "rsim/shared/phasors.h"
#include "transport/phasor_system.h"
#include "util/error.h"
#include "util/host_memory.h"
#include "util/parallel.h"
#include "util/progress.h"
#include "util/ranks.h"
#include "util/timer.h"

namespace rsim {
namespace {

// Receivers gathered together: their K elements for one source j are neighbours in the chunk.
constexpr std::uint32_t kTileRows = 64;
static_assert(kTileRows <= 256, "a listed pair's row in its tile has 8 bits");

// A row tile's non-zero pairs with their factors at every frequency, in the order in which the
// tile reads K (source j, then row): the same factors in the same order as the decoding path,
// so the same sums.
struct TilePairs {
    std::vector<std::uint32_t> sourceRow; // source << 8 | row in the tile
    std::vector<glm::vec2> factors;       // [pair][frequency]
    bool listed = false;
    // What the lists hold of the host's memory (their capacity: push_back leaves room to spare).
    std::uint64_t bytes() const { return sourceRow.capacity() * 4 + factors.capacity() * sizeof(glm::vec2); }
};

class CpuPhasorSolve {
  public:
    CpuPhasorSolve(const PreparedScene& s, const HostK& K, const PhasorSystem& sys, const RowShare* share)
        : s_(s), K_(K), sys_(sys), share_(share), C_(sys.columns.count()), P_(sys.columns.poses),
          x_(sys.sources), next_(sys.sources), conv_(sys) {
        if (share && (K.firstHeld() != share->firstChunk() || K.endHeld() != share->endChunk()))
            throw Error("internal: the phasor solve's K does not hold this rank's rows");
        if (!share && !K.holdsAll()) throw Error("internal: the phasor solve's K holds only some rows");
        const KChunking& ch = K.chunking();
        for (std::uint32_t c = 0; c < ch.chunks(); ++c) {
            tileBase_.push_back(std::uint32_t(tiles_.size()));
            const std::uint32_t tiles = (ch.rows(c) + kTileRows - 1) / kTileRows;
            tiles_.resize(tiles_.size() + tiles);
            if (!share || (c >= share->firstChunk() && c < share->endChunk())) ownTiles_ += tiles;
        }
        // A source's index has 24 bits in a listed pair.
        listBudget_ = sys.n >= (1u << 24) ? 0 : sys.pairListBytes ? *sys.pairListBytes : hostListBudgetBytes();
    }

    PhasorSolution run() {
        PhasorSolution out;
        out.iterations.assign(C_, 0);
        out.change.assign(C_, 0.0);
        out.scale = conv_.scale;
        Progress progress("phasors", sys_.maxIterations, "iterations");
        double exchange = 0.0;
        for (std::uint32_t k = 1; k <= sys_.maxIterations; ++k) {
            sweep_ = k;
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
        std::size_t listed = 0;
        for (const TilePairs& t : tiles_) listed += t.listed;
        out.summary = fmt::format("pairs of {} of {} row tiles listed with their factors, {:.1f} MiB", listed,
                                  ownTiles_, double(listedBytes_.load()) / 1048576.0);
        if (share_) {
            out.details.emplace_back("phasors_exchange", exchange);
            out.summary += fmt::format(", {:.3f} s swapping rows with {} other rank(s)", exchange, share_->count() - 1);
        }
        return out;
    }

  private:
    // Rows [a, b) of `chunk`: their next iterate of every active column, and the changes. The
    // first iteration lists the tile's pairs where they fit the budget.
    void gatherTile(std::uint32_t chunk, std::uint32_t a, std::uint32_t b, unsigned w) {
        TilePairs& t = tiles_[tileBase_[chunk] + a / kTileRows];
        std::vector<double> acc(std::size_t(b - a) * active_.size() * 2, 0.0);
        if (t.listed) {
            sumListed(t, acc);
        } else {
            const bool list = sweep_ == 1 && listBudget_ > 0;
            sumDecoded(chunk, a, b, acc, list ? &t : nullptr);
            if (list) keepWithinBudget(t);
        }
        std::vector<double>& change = changes_[w];
        const std::uint32_t r0 = K_.chunking().rowBegin(chunk);
        for (std::uint32_t r = a; r < b; ++r) {
            const std::size_t i = r0 + r;
            const double rho = double(sys_.reflectance[i]);
            for (std::size_t q = 0; q < active_.size(); ++q) {
                const std::uint32_t c = active_[q];
                const double* sum = &acc[(std::size_t(r - a) * active_.size() + q) * 2];
                const glm::vec2 e = sys_.sources[i * C_ + c];
                const glm::vec2 v(float(double(e.x) + rho * sum[0]), float(double(e.y) + rho * sum[1]));
                next_[i * C_ + c] = v;
                change[c] = std::max(change[c], double(glm::length(v - x_[i * C_ + c])));
            }
        }
    }

    // One pair's terms of the active columns: sums `out` [column][re, im] of its row.
    void addPair(double* out, const glm::vec2* factors, const glm::vec2* xj) const {
        for (std::size_t q = 0; q < active_.size(); ++q) {
            const std::uint32_t c = active_[q];
            const glm::dvec2 m = glm::dvec2(factors[c / P_]), x = glm::dvec2(xj[c]);
            out[2 * q] += m.x * x.x - m.y * x.y;
            out[2 * q + 1] += m.x * x.y + m.y * x.x;
        }
    }

    // The tile's sums from K, each pair's factors worked out (for every frequency where `list`
    // takes the pairs, else for those of the active columns).
    void sumDecoded(std::uint32_t chunk, std::uint32_t a, std::uint32_t b, std::vector<double>& acc,
                    TilePairs* list) const {
        const KChunking& ch = K_.chunking();
        const std::uint32_t r0 = ch.rowBegin(chunk);
        const std::size_t A = active_.size(), F = sys_.columns.omegas.size();
        std::vector<glm::vec2> coef(F);
        std::vector<std::uint8_t> used(F, list ? 1 : 0);
        for (std::uint32_t c : active_) used[c / P_] = 1;
        forEachNonzero(K_, chunk, a, b, [&](std::uint32_t j, std::uint32_t r, float k) {
            const float F_ij = shared::rsimFormFactor(k, s_.area[j]);
            const float delay =
                shared::rsimPairDelay(s_.centroid[r0 + r], s_.centroid[j], sys_.invCdtSq, sys_.roundedDelays);
            for (std::size_t f = 0; f < F; ++f)
                if (used[f]) coef[f] = shared::rsimPhasorCoefficient(F_ij, sys_.columns.omegas[f], delay);
            addPair(&acc[std::size_t(r - a) * A * 2], coef.data(), &x_[std::size_t(j) * C_]);
            if (list) {
                list->sourceRow.push_back(j << 8 | (r - a));
                list->factors.insert(list->factors.end(), coef.begin(), coef.end());
            }
        });
    }

    void sumListed(const TilePairs& t, std::vector<double>& acc) const {
        const std::size_t A = active_.size(), F = sys_.columns.omegas.size();
        for (std::size_t x = 0; x < t.sourceRow.size(); ++x) {
            const std::uint32_t j = t.sourceRow[x] >> 8, row = t.sourceRow[x] & 0xffu;
            addPair(&acc[std::size_t(row) * A * 2], &t.factors[x * F], &x_[std::size_t(j) * C_]);
        }
    }

    // Keeps a tile's list where the lists so far and it fit the budget; else frees it.
    void keepWithinBudget(TilePairs& t) {
        const std::uint64_t bytes = t.bytes();
        if (listedBytes_.fetch_add(bytes) + bytes <= listBudget_) {
            t.listed = true;
            return;
        }
        listedBytes_.fetch_sub(bytes);
        t = TilePairs{};
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
    std::uint32_t sweep_ = 0;                  // the iteration under way
    std::vector<std::uint32_t> tileBase_;      // per chunk: its first tile's index in tiles_
    std::vector<TilePairs> tiles_;             // every chunk's (this rank's are used)
    std::size_t ownTiles_ = 0;                 // this rank's
    std::uint64_t listBudget_ = 0;
    std::atomic<std::uint64_t> listedBytes_{0};
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
