// SPDX-License-Identifier: MIT
#include "transport/sources.h"

#include <algorithm>
#include <cmath>

#include "util/parallel.h"

namespace rsim {

void depositPulse(float amount, float t0, const std::vector<float>& pulse, std::uint32_t T,
                  float* series) {
    if (amount == 0.0f || !(t0 >= 0.0f)) return;
    const glm::vec3 split = shared::rsimLinearSplit(t0);
    const long n = long(split.x);
    const long P = long(pulse.size());
    // Bin t gets a ((1 - f) p[t - n] + f p[t - n - 1]) for t in [n, n + P].
    for (long t = n; t <= n + P && t < long(T); ++t) {
        float p0 = (t - n) < P ? pulse[std::size_t(t - n)] : 0.0f;
        float p1 = (t - n - 1) >= 0 ? pulse[std::size_t(t - n - 1)] : 0.0f;
        series[t] += shared::rsimDeposit(amount, t0, p0, p1);
    }
}

std::vector<double> directEnergies(const PreparedScene& s, const SimConfig& c, const DirectTerms& d) {
    std::vector<double> out(s.size(), 0.0);
    const long P = long(c.pulse.size()), T = long(c.timesteps);
    for (std::size_t i = 0; i < s.size(); ++i) {
        const float amount = s.reflectance[i] * d.irradiance[i], t0 = d.tLight[i];
        if (amount == 0.0f || !(t0 >= 0.0f)) continue;
        // The values depositPulse adds into bins [n, n + P] of a zero series.
        const long n = long(shared::rsimLinearSplit(t0).x);
        for (long t = n; t <= n + P && t < T; ++t) {
            const float p0 = (t - n) < P ? c.pulse[std::size_t(t - n)] : 0.0f;
            const float p1 = (t - n - 1) >= 0 ? c.pulse[std::size_t(t - n - 1)] : 0.0f;
            out[i] += double(shared::rsimDeposit(amount, t0, p0, p1));
        }
    }
    return out;
}

void buildSources(const PreparedScene& s, const SimConfig& c, const DirectTerms& d,
                  std::vector<float>& E, std::vector<float>& R) {
    const std::size_t n = s.size(), T = c.timesteps;
    E.assign(n * T, 0.0f);
    R.assign(n * T, 0.0f);
    parallelFor(n, 1024, [&](std::size_t begin, std::size_t end, unsigned) {
        for (std::size_t i = begin; i < end; ++i) {
            depositPulse(s.reflectance[i] * d.irradiance[i], d.tLight[i], c.pulse, c.timesteps,
                         &E[i * T]);
            depositPulse(d.importance[i], d.tSensor[i], c.pulse, c.timesteps, &R[i * T]);
        }
    });
}

void sensorSignals(const PreparedScene& s, std::uint32_t T, const std::vector<float>& B,
                   const std::vector<float>& Z, const std::vector<float>& E,
                   const std::vector<float>& R, std::vector<double>& fwd,
                   std::vector<double>& adj) {
    const std::size_t n = s.size();
    // Fixed slices of the triangles, each summed in order by one worker and added in slice order:
    // the signals do not depend on the thread count or the scheduling (MPI ranks, bound to fewer
    // cores than one process, get the same bits).
    constexpr std::size_t kSlices = 32;
    const std::size_t per = (n + kSlices - 1) / kSlices;
    std::vector<std::vector<double>> partFwd(kSlices, std::vector<double>(T, 0.0)),
        partAdj(kSlices, std::vector<double>(T, 0.0));
    // (f * g)(t) = sum_u g(u) f(t - u), over the few bins u where the source g is non-zero.
    auto accumulate = [T](const float* f, const float* g, double weight, std::vector<double>& out) {
        for (std::uint32_t u = 0; u < T; ++u) {
            if (g[u] == 0.0f) continue;
            const double gu = weight * double(g[u]);
            for (std::uint32_t t = u; t < T; ++t) out[t] += gu * double(f[t - u]);
        }
    };
    parallelFor(kSlices, 1, [&](std::size_t begin, std::size_t end, unsigned) {
        for (std::size_t slice = begin; slice < end; ++slice)
            for (std::size_t i = slice * per; i < std::min(n, (slice + 1) * per); ++i) {
                const std::size_t o = i * T;
                accumulate(&B[o], &R[o], double(s.area[i]), partFwd[slice]);
                accumulate(&Z[o], &E[o], double(s.area[i]), partAdj[slice]);
            }
    });
    fwd.assign(T, 0.0);
    adj.assign(T, 0.0);
    for (std::size_t slice = 0; slice < kSlices; ++slice)
        for (std::uint32_t t = 0; t < T; ++t) {
            fwd[t] += partFwd[slice][t];
            adj[t] += partAdj[slice][t];
        }
}

} // namespace rsim
