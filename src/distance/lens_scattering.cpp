// SPDX-License-Identifier: MIT
// Lens scattering as separable Gaussian convolutions (distance/lens_scattering.h).
#include "distance/lens_scattering.h"

#include <algorithm>
#include <cmath>

#include "util/error.h"
#include "util/parallel.h"

namespace rsim {
namespace {

// The discrete Gaussian of `sigma` pixels over [-R, R], R = ceil(4 sigma), summing to 1.
std::vector<double> gaussianTaps(double sigma) {
    const int R = int(std::ceil(4.0 * sigma));
    std::vector<double> w(std::size_t(2 * R + 1));
    double sum = 0.0;
    for (int j = -R; j <= R; ++j) sum += w[std::size_t(j + R)] = std::exp(-0.5 * (j / sigma) * (j / sigma));
    for (double& v : w) v /= sum;
    return w;
}

// One pass of the Gaussian `taps` along one axis of image `at` ([height][width][inner] floats from
// data + at): out[y][x][:] = sum_j taps[j] in[y'][x'][:], with (y', x') j - R pixels along the axis
// from (y, x) (rows: along x; else along y), pixels past the edge contributing nothing. Each
// pixel's `inner` values are contiguous: they are summed together.
void convolve(const float* in, float* out, std::uint32_t width, std::uint32_t height, std::size_t inner, bool rows,
              const std::vector<double>& taps) {
    const long R = long(taps.size() / 2);
    const long n = rows ? long(width) : long(height);
    const std::size_t step = rows ? inner : std::size_t(width) * inner; // between neighbours along the axis
    parallelFor(height, 1, [&](std::size_t begin, std::size_t end, unsigned) {
        std::vector<double> acc(inner);
        for (std::size_t y = begin; y < end; ++y)
            for (std::size_t x = 0; x < width; ++x) {
                const long i = rows ? long(x) : long(y);
                const std::size_t here = (y * width + x) * inner;
                std::fill(acc.begin(), acc.end(), 0.0);
                for (long j = std::max(0L, i - R); j <= std::min(n - 1, i + R); ++j) {
                    const double w = taps[std::size_t(j - i + R)];
                    const float* src = in + here + std::ptrdiff_t(j - i) * std::ptrdiff_t(step);
                    for (std::size_t c = 0; c < inner; ++c) acc[c] += w * double(src[c]);
                }
                for (std::size_t c = 0; c < inner; ++c) out[here + c] = float(acc[c]);
            }
    });
}

} // namespace

void scatterLight(std::vector<float>& data, std::uint32_t width, std::uint32_t height, std::size_t inner,
                  const SimConfig::Scattering& s) {
    if (!s.on()) return;
    const std::size_t image = std::size_t(width) * height * inner;
    if (inner == 0 || data.size() % image != 0) throw Error("internal: scattered images of another size");
    double kept = 1.0;
    for (double f : s.fractions) kept -= f;
    std::vector<float> original = data, rows(image), both(image);
    for (float& v : data) v = float(kept * double(v));
    for (std::size_t at = 0; at < original.size(); at += image)
        for (std::size_t k = 0; k < s.fractions.size(); ++k) {
            const std::vector<double> taps = gaussianTaps(s.sigmasPx[k]);
            convolve(original.data() + at, rows.data(), width, height, inner, true, taps);
            convolve(rows.data(), both.data(), width, height, inner, false, taps);
            for (std::size_t i = 0; i < image; ++i) data[at + i] += float(s.fractions[k] * double(both[i]));
        }
}

} // namespace rsim
