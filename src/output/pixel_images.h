// SPDX-License-Identifier: MIT
// Every per-pixel array of images.h5 (MODEL.md §8), by its name there ("range_m",
// "amcw/phase_rad", "noise/signal_electrons", ...), derived once from a pose's SensorImage: the
// images.h5 writer stores them, the Python module stacks them over poses.
#pragma once
#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "core/prepared_scene.h"
#include "core/results.h"
#include "core/sim_config.h"

namespace rsim::output {

struct PixelArray {
    std::string name;                         // images.h5 dataset path
    std::vector<std::uint64_t> shape;         // e.g. {H, W}, {F, H, W}, {H, W, 3}
    std::variant<std::vector<float>, std::vector<std::int32_t>> values; // row-major
    const char* units = nullptr;              // images.h5 "units" attribute, if any
    const char* meaning = nullptr;            // images.h5 "meaning" attribute, if any
};

// The arrays of one pose's image, in images.h5's order. The image's own buffers become the
// arrays that have their layout (pass it with std::move to hand them over without a copy).
// Left out: the transient (its region and bins are images.h5 attributes; callers take
// SensorImage::transient themselves) and what does not depend on the pixel (the camera, the
// AMCW frequencies and tap phases).
std::vector<PixelArray> pixelArrays(SensorImage image, const SimConfig& c, const PreparedScene& ps);
// The same from a copy of `image` without its transient (which the arrays leave out and which
// can be large): for writers that leave the image to others.
std::vector<PixelArray> pixelArraysOf(const SensorImage& image, const SimConfig& c, const PreparedScene& ps);

} // namespace rsim::output
