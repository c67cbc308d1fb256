// SPDX-License-Identifier: MIT
// Source terms of MODEL §4-5: E_i(t) = rho_i Irr_i and R_i(t) = w_i deposited at tL_i and tS_i
// (linear split, convolved with the pulse).
#pragma once
#include <vector>

#include "core/prepared_scene.h"
#include "core/results.h"
#include "core/sim_config.h"

namespace rsim {

// Adds `amount` deposited at fractional time t0 to series[0..T), convolved with the pulse.
void depositPulse(float amount, float t0, const std::vector<float>& pulse, std::uint32_t T,
                  float* series);

// sum_t E_i(t) of every triangle: what buildSources deposits inside the window, summed in
// double in time order (the same value as summing buildSources' E).
std::vector<double> directEnergies(const PreparedScene& scene, const SimConfig& config, const DirectTerms& direct);

// E and R as [i * T + t].
void buildSources(const PreparedScene& scene, const SimConfig& config, const DirectTerms& direct,
                  std::vector<float>& E, std::vector<float>& R);

// Total sensor signal both ways (MODEL §5): s_fwd(t) = sum_i A_i (B_i * R_i)(t) and
// s_adj(t) = sum_i A_i (E_i * Z_i)(t). R and E are sparse in time, which keeps this O(N T P).
void sensorSignals(const PreparedScene& scene, std::uint32_t T, const std::vector<float>& B,
                   const std::vector<float>& Z, const std::vector<float>& E,
                   const std::vector<float>& R, std::vector<double>& fwd, std::vector<double>& adj);

} // namespace rsim
