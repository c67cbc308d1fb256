// SPDX-License-Identifier: MIT
// The outputs of the phasors transport (MODEL.md §11) from a pose's solved phasors, on the host:
// each triangle's distance from B^_m, and the sensor image's AMCW data from each pixel's phasors
// (the direct term's at its hit point plus (B^_i - E^_i) delayed by the hit distance), the same
// datasets as AMCW mode, with no time series.
#pragma once
#include <cstdint>
#include <vector>

#include <glm/vec2.hpp>

#include "core/prepared_scene.h"
#include "core/results.h"
#include "core/sim_config.h"
#include "transport/phasor_system.h"

namespace rsim {

// One pose's columns of a solved group: B^ and E^ of triangle m at angular frequency f.
struct PosePhasors {
    const std::vector<glm::vec2>* B;
    const std::vector<glm::vec2>* E;
    std::uint32_t columns = 0, poses = 1, pose = 0;
    glm::vec2 b(std::size_t m, std::size_t f) const { return (*B)[m * columns + f * poses + pose]; }
    glm::vec2 e(std::size_t m, std::size_t f) const { return (*E)[m * columns + f * poses + pose]; }
};

// L_i and d_i of every triangle (NaN where it gets no light or the sensor cannot see it), and its
// total energy, the steady state's B^_m.
TriangleDistances phasorTriangleDistances(const PreparedScene& scene, const SimConfig& config,
                                          const PhasorFrequencies& frequencies, const PosePhasors& phasors,
                                          const DirectTerms& direct);

// The sensor image from the primary hits (R records per pixel: include/rsim/shared/primary_hit.h):
// amplitude, phasors, taps (the harmonics' sum for a square waveform), the taps' phase, range_m
// and range_direct_m; the camera readout comes after (distance/camera_readout.h).
SensorImage phasorImage(const SimConfig& config, const PhasorFrequencies& frequencies, const PosePhasors& phasors,
                        const PrimaryHits& hits);

} // namespace rsim
