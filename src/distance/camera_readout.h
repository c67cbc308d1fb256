// SPDX-License-Identifier: MIT
// The camera's readout on the host (MODEL.md §8): what the camera does with the light that
// reached its pixels, after the image pass of either backend and either transport. In order:
// the lens scatters the light (the raw data and amplitudes, then the ranges estimated again);
// the gated pixels whose echo lies past the gates are counted (their range is NaN); each AMCW
// frequency's taps give a range; and with the sensor model the raw data of AMCW and gated
// cameras (taps, gates) is read as noisy electrons, from which the noisy ranges are estimated.
// A pulsed camera's raw data is its histogram of bins, drawn by the image pass itself.
#pragma once
#include <string>

#include "core/prepared_scene.h"
#include "core/results.h"
#include "core/sim_config.h"

namespace rsim {

// Fills image.readout (and, with scattering, replaces the raw data, amplitudes and ranges).
void applyCameraReadout(SensorImage& image, const SimConfig& config, const PreparedScene& scene);

// The warning (or "") for gated pixels whose echo came after their gates' range.
std::string outOfRangeWarning(const SensorImage& image, const SimConfig& config);

} // namespace rsim
