// SPDX-License-Identifier: MIT
// Lens scattering (MODEL.md §8): the stray light inside a camera's lens spreads a fraction of
// each pixel's light over the whole sensor, so bright near surfaces add their delay to the pixels
// of dark far ones. rsim models the point-spread function as (1 - sum_k f_k) delta + sum_k f_k
// G_k, with G_k an isotropic Gaussian of sigma_k pixels normalised to 1 on the plane (published
// scattering models of ToF cameras fit such sums); light spread past the sensor's edge is lost.
// Scattering is linear and the same at every time, so it commutes with every linear reduction of
// the signal: applying it to the phasors, taps, gates and amplitudes equals applying it to each
// time bin of the transient.
#pragma once
#include <cstdint>
#include <vector>

#include "core/sim_config.h"

namespace rsim {

// Scatters the images in `data`, laid out [outer][height][width][inner]: every (outer, inner)
// plane is an image of width x height pixels (a pixel's `inner` values, e.g. its time bins, are
// scattered together).
void scatterLight(std::vector<float>& data, std::uint32_t width, std::uint32_t height, std::size_t inner,
                  const SimConfig::Scattering& scattering);

} // namespace rsim
