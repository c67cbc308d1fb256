// SPDX-License-Identifier: MIT
// `rsim compare`'s checks of the raw pixel data in images.h5 (MODEL.md §8): every dataset under
// `amcw/`, `noise/` and `gated/`, and `transient`, each a row of the report.
#pragma once
#include <string>
#include <vector>

#include "compare/checks.h"
#include "compare/compare.h"
#include "compare/result_dir.h"

namespace rsim::compare {

// The groups and datasets of images.h5 compared value by value.
const std::vector<std::string>& comparedImageData();

// When both directories hold images.h5 (and images are compared): a check for each dataset under
// comparedImageData() in either file. A dataset in one file only, of another shape, or whose
// values differ beyond the tolerance (more than options.maxFraction of them; of noise/'s,
// options.noiseFraction) fails. Names ending
// in `_m` are metres (options.toleranceM); in `_rad`, phases compared modulo 2 pi, as the range
// they stand for (c dphi / (4 pi f), options.toleranceM) where their first axis is amcw/frequencies_mhz,
// else in radians (options.toleranceRel of 2 pi); any other, raw data, within options.toleranceRel of the
// largest magnitude of either side. NaN against NaN agrees, NaN against a number does not.
void compareImageDatasets(const ResultDir& a, const ResultDir& b, const CompareOptions& options, Comparison& out);

} // namespace rsim::compare
