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

// One plane (n values of stride `stride` from `at`) convolved along one axis of `count` lines of
// `length` values: line l's value i is at at + (l * lineStep + i * step) * stride.
struct Axis {
    std::size_t length, count, step, lineStep;
};

void convolve(const std::vector<float>& in, std::vector<double>& out, std::size_t at, std::size_t stride, Axis a,
              const std::vector<double>& taps) {
    const long R = long(taps.size() / 2), n = long(a.length);
    parallelFor(a.count, 16, [&](std::size_t begin, std::size_t end, unsigned) {
        for (std::size_t l = begin; l < end; ++l) {
            const std::size_t line = at + l * a.lineStep * stride;
            for (long i = 0; i < n; ++i) {
                double acc = 0.0;
                for (long j = std::max(0L, i - R); j <= std::min(n - 1, i + R); ++j)
                    acc += taps[std::size_t(j - i + R)] * double(in[line + std::size_t(j) * a.step * stride]);
                out[line + std::size_t(i) * a.step * stride] = acc;
            }
        }
    });
}

} // namespace

void scatterLight(std::vector<float>& data, std::uint32_t width, std::uint32_t height, std::size_t inner,
                  const SimConfig::Scattering& s) {
    if (!s.on()) return;
    const std::size_t pixels = std::size_t(width) * height;
    if (inner == 0 || data.size() % (pixels * inner) != 0) throw Error("internal: scattered images of another size");
    const std::size_t planes = data.size() / pixels;
    double kept = 1.0;
    for (double f : s.fractions) kept -= f;
    std::vector<double> result(data.size());
    for (std::size_t i = 0; i < data.size(); ++i) result[i] = kept * double(data[i]);
    std::vector<float> rows(data.size());
    std::vector<double> pass(data.size());
    for (std::size_t k = 0; k < s.fractions.size(); ++k) {
        const std::vector<double> taps = gaussianTaps(s.sigmasPx[k]);
        for (std::size_t plane = 0; plane < planes; ++plane) {
            // Plane (outer, inner) starts at outer * pixels * inner + inner and steps by `inner`.
            const std::size_t at = (plane / inner) * pixels * inner + plane % inner;
            convolve(data, pass, at, inner, Axis{width, height, 1, width}, taps);
            for (std::size_t p = 0; p < pixels; ++p) rows[at + p * inner] = float(pass[at + p * inner]);
            convolve(rows, pass, at, inner, Axis{height, width, width, 1}, taps);
            for (std::size_t p = 0; p < pixels; ++p) result[at + p * inner] += s.fractions[k] * pass[at + p * inner];
        }
    }
    for (std::size_t i = 0; i < data.size(); ++i) data[i] = float(result[i]);
}

} // namespace rsim
