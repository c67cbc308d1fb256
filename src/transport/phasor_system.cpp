// SPDX-License-Identifier: MIT
// The phasor system's frequencies, sources and convergence bookkeeping (transport/phasor_system.h).
#include "transport/phasor_system.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include <fmt/format.h>

#include "rsim/shared/phasors.h"
#include "rsim/shared/pixel_outputs.h"
#include "k/row_share.h"
#include "util/error.h"
#include "util/ranks.h"
#include "util/timer.h"

namespace rsim {

PhasorFrequencies phasorFrequencies(const SimConfig& c) {
    PhasorFrequencies f;
    f.modulations = std::uint32_t(c.modulationMhz.size());
    f.harmonics = c.waveform == shared::RSIM_WAVEFORM_SQUARE ? std::max(1u, c.harmonics | 1u) : 1u;
    f.omegas.push_back(0.0f);
    auto omegaOf = [&c](double mhz, std::uint32_t n) { return float(2.0 * M_PI * mhz * 1e-3 * c.dtNs * double(n)); };
    for (double mhz : c.modulationMhz) f.omegas.push_back(omegaOf(mhz, 1));
    for (double mhz : c.modulationMhz)
        for (std::uint32_t n = 3; n <= f.harmonics; n += 2) f.omegas.push_back(omegaOf(mhz, n));
    return f;
}

std::vector<glm::vec2> phasorSources(const PreparedScene& s, const std::vector<const DirectTerms*>& direct,
                                     const std::vector<float>& omegas, bool rounded) {
    const std::size_t n = s.size(), P = direct.size(), C = P * omegas.size();
    std::vector<glm::vec2> E(n * C, glm::vec2(0.0f));
    for (std::size_t p = 0; p < P; ++p) {
        const DirectTerms& d = *direct[p];
        for (std::size_t m = 0; m < n; ++m) {
            const float amount = s.reflectance[m] * d.irradiance[m];
            if (amount == 0.0f) continue;
            for (std::size_t f = 0; f < omegas.size(); ++f) {
                const glm::vec2 delay = rounded ? shared::rsimSplitFactor(omegas[f], d.tLight[m])
                                                : shared::rsimDelayFactor(omegas[f] * d.tLight[m]);
                E[m * C + f * P + p] = amount * delay;
            }
        }
    }
    return E;
}

PhasorConvergence::PhasorConvergence(const PhasorSystem& sys) {
    const std::size_t C = sys.columns.count();
    active.assign(C, 1);
    scale.assign(C, 0.0);
    for (std::size_t m = 0; m < sys.n; ++m)
        for (std::size_t c = 0; c < C; ++c) scale[c] = std::max(scale[c], double(glm::length(sys.sources[m * C + c])));
    tolerance = scale;
    for (double& t : tolerance) t *= sys.tolerance;
    dcColumns_ = !sys.columns.omegas.empty() && sys.columns.omegas[0] == 0.0f ? sys.columns.poses : 0;
    dcHistory_.resize(dcColumns_);
}

// A radius of 1 - 1e-3 needs some 14,000 iterations per factor 1e6: no steady state within
// reach. Judged once the ratio has settled (after 3 windows) and while the column is active.
void PhasorConvergence::checkSpectralRadius(std::uint32_t k, const std::vector<double>& changes) {
    constexpr double kLimit = 1.0 - 1e-3;
    for (std::uint32_t c = 0; c < dcColumns_; ++c) {
        if (!active[c]) continue;
        auto& h = dcHistory_[c];
        h.push_back(changes[c]);
        if (h.size() > kWindow + 1) h.erase(h.begin());
        if (k < 3 * kWindow || h.size() <= kWindow || !(h.front() > 0.0)) continue;
        const double radius = std::pow(h.back() / h.front(), 1.0 / kWindow);
        if (radius >= kLimit)
            throw InputError(fmt::format(
                "simulation.transport = \"phasors\": this scene has no steady state: the iteration's change "
                "shrinks by a factor of only {:.5f} per iteration (the spectral radius of rho F, which must be "
                "below 1; a closed room with reflectance 1, or form factor row sums above 1 / rho); lower the "
                "reflectances, raise simulation.samples, or use simulation.transport = \"radiosity\"",
                radius));
    }
}

bool PhasorConvergence::update(std::uint32_t k, const std::vector<double>& changes, PhasorSolution& out) {
    checkSpectralRadius(k, changes);
    bool any = false;
    for (std::size_t c = 0; c < active.size(); ++c) {
        if (!active[c]) continue;
        const double unit = scale[c];
        if (!std::isfinite(changes[c]) || changes[c] > 1e6 * std::max(unit, 1e-30))
            throw InputError(fmt::format(
                "simulation.transport = \"phasors\": the iteration diverges (a change of {:.3g} at iteration {} for "
                "sources of at most {:.3g}): this scene has no steady state (a closed room with reflectance 1, or "
                "form factor row sums above 1 / rho); lower the reflectances or raise simulation.samples",
                changes[c], k, unit));
        out.change[c] = changes[c];
        out.iterations[c] = k;
        if (changes[c] <= tolerance[c]) active[c] = 0;
        else any = true;
    }
    return any;
}

double swapPhasorRows(const RowShare& share, std::uint32_t columns, std::vector<glm::vec2>& iterate,
                      std::vector<double>& changes) {
    const Stopwatch sw;
    const Ranks& ranks = share.ranks();
    ranks.max(changes);
    const std::size_t row = std::size_t(columns) * sizeof(glm::vec2);
    const std::uint32_t b0 = share.rowBegin(), b1 = share.rowEnd();
    std::string mine(std::size_t(b1 - b0) * row, '\0');
    if (!mine.empty()) std::memcpy(mine.data(), &iterate[std::size_t(b0) * columns], mine.size());
    const std::vector<std::string> all = ranks.allgather(mine);
    for (int r = 0; r < share.count(); ++r) {
        const std::string& theirs = all[std::size_t(r)];
        const std::size_t first = share.rowBegin(r);
        if (theirs.size() != std::size_t(share.rowEnd(r) - first) * row)
            throw Error("internal: a rank's rows of the phasor iterate have the wrong size");
        if (!theirs.empty()) std::memcpy(&iterate[first * columns], theirs.data(), theirs.size());
    }
    return sw.seconds();
}

} // namespace rsim
