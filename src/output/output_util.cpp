// SPDX-License-Identifier: MIT
#include "output/output_util.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cerrno>
#include <cmath>
#include <cstring>

#include <glm/geometric.hpp>

#include "util/error.h"

namespace rsim::output {
namespace {

struct Stop {
    double t;
    double r, g, b;
};

template <std::size_t N> Rgb8 interpolate(const std::array<Stop, N>& stops, double t) {
    if (!(t > stops.front().t)) t = stops.front().t; // also catches NaN
    if (t > stops.back().t) t = stops.back().t;
    std::size_t k = 1;
    while (k + 1 < N && stops[k].t < t)
        ++k;
    const Stop& a = stops[k - 1];
    const Stop& b = stops[k];
    const double f = (t - a.t) / (b.t - a.t);
    auto mix = [f](double x, double y) {
        return std::uint8_t(std::lround(std::clamp(x + f * (y - x), 0.0, 255.0)));
    };
    return Rgb8{mix(a.r, b.r), mix(a.g, b.g), mix(a.b, b.b)};
}

// matplotlib's viridis sampled at ninths; linear interpolation between them stays within a
// few levels of the original.
constexpr std::array<Stop, 9> kViridis{{{0.000, 68, 1, 84},
                                        {0.125, 71, 44, 122},
                                        {0.250, 59, 82, 139},
                                        {0.375, 44, 113, 142},
                                        {0.500, 33, 145, 140},
                                        {0.625, 40, 174, 128},
                                        {0.750, 94, 201, 98},
                                        {0.875, 170, 220, 50},
                                        {1.000, 253, 231, 37}}};

// ColorBrewer RdBu, reversed so that positive (too far) is red.
constexpr std::array<Stop, 5> kDiverging{{{-1.0, 33, 102, 172},
                                          {-0.5, 146, 197, 222},
                                          {0.0, 247, 247, 247},
                                          {0.5, 244, 165, 130},
                                          {1.0, 178, 24, 43}}};

} // namespace

Rgb8 viridis(double t) {
    return interpolate(kViridis, t);
}
Rgb8 diverging(double t) {
    return interpolate(kDiverging, t);
}

double absPercentile(const std::vector<double>& values, double q) {
    std::vector<double> a;
    a.reserve(values.size());
    for (double v : values)
        if (std::isfinite(v)) a.push_back(std::abs(v));
    if (a.empty()) return 0.0;
    const double rank = std::ceil(q * double(a.size()));
    const std::size_t k = std::size_t(std::clamp(rank, 1.0, double(a.size()))) - 1;
    std::nth_element(a.begin(), a.begin() + std::ptrdiff_t(k), a.end());
    return a[k];
}

double errorColourRange(const std::vector<double>& errors) {
    return std::max(absPercentile(errors, 0.99), 1e-3);
}

double trueDistanceM(const ResultsView& view, std::size_t internal) {
    return glm::length(glm::dvec3(view.prepared.centroid[internal]) -
                       glm::dvec3(view.config.sensor.position));
}

std::vector<double> distanceErrorsById(const ResultsView& view) {
    const std::size_t n = view.prepared.size();
    requireSize(view.result.distance.size(), n, "distance");
    std::vector<double> errors(n);
    for (std::size_t id = 0; id < n; ++id) {
        const std::size_t i = view.prepared.internalOf[id];
        errors[id] = view.result.distance[i] - trueDistanceM(view, i);
    }
    return errors;
}

bool imagesWritten(const ResultsView& view) {
    const SensorImage& im = view.result.image;
    return view.scene.output.images && im.width > 0 && im.height > 0;
}

bool timeseriesWritten(const ResultsView& view) {
    if (!trianglesWritten(view)) return false;
    return view.scene.output.timeseries || (view.scene.output.kij && !view.result.K.empty());
}

bool trianglesWritten(const ResultsView& view) { return view.config.transport != Transport::Paths; }

std::vector<std::string> materialsApproximated(const ResultsView& view) {
    std::vector<std::string> names;
    if (view.config.transport == Transport::Paths) return names;
    const PreparedScene& ps = view.prepared;
    for (std::size_t m = 0; m < ps.materialModels.size(); ++m)
        if (approximatedByRadiosity(ps.materialModels[m])) names.push_back(ps.materialNames[m]);
    return names;
}

ImageStats imageStats(const SensorImage& image) {
    const std::size_t pixels = std::size_t(image.width) * image.height;
    requireSize(image.depth.size(), pixels, "image.depth");
    requireSize(image.trueDepth.size(), pixels, "image.trueDepth");
    requireSize(image.amplitude.size(), pixels, "image.amplitude");
    ImageStats s;
    s.width = image.width;
    s.height = image.height;
    const double nan = std::nan("");
    s.depthLo = s.amplitudeLo = nan;
    s.depthHi = s.amplitudeHi = nan;
    std::vector<double> errors;
    errors.reserve(pixels);
    for (std::size_t p = 0; p < pixels; ++p) {
        const double d = image.depth[p];
        if (std::isfinite(d)) {
            ++s.pixelsWithDepth;
            s.depthLo = std::isnan(s.depthLo) ? d : std::min(s.depthLo, d);
            s.depthHi = std::isnan(s.depthHi) ? d : std::max(s.depthHi, d);
        }
        errors.push_back(d - double(image.trueDepth[p]));
        const double a = image.amplitude[p];
        if (std::isfinite(a) && a > 0.0) {
            s.amplitudeLo = std::isnan(s.amplitudeLo) ? a : std::min(s.amplitudeLo, a);
            s.amplitudeHi = std::isnan(s.amplitudeHi) ? a : std::max(s.amplitudeHi, a);
        }
    }
    s.errorRange = errorColourRange(errors);
    return s;
}

void requireSize(std::size_t actual, std::size_t expected, const char* what) {
    if (actual != expected)
        throw Error("internal error: the simulation result's " + std::string(what) + " has " +
                    std::to_string(actual) + " values, expected " + std::to_string(expected));
}

OutputFile::OutputFile(const std::filesystem::path& path) : path_(path) {
    file_ = std::fopen(path.c_str(), "wb");
    if (!file_) fail("cannot create");
}

OutputFile::~OutputFile() {
    if (file_) std::fclose(file_);
}

void OutputFile::write(const void* data, std::size_t bytes) {
    if (bytes > 0 && std::fwrite(data, 1, bytes, file_) != bytes) fail("write failed");
}

void OutputFile::close() {
    std::FILE* f = file_;
    if (!f) return;
    file_ = nullptr;
    if (std::fclose(f) != 0) fail("write failed");
}

void OutputFile::fail(const char* what) const {
    throw Error(path_.string() + ": " + what + " (" + std::strerror(errno) + ")");
}

void appendLE(std::string& out, std::uint32_t v) {
    const char bytes[4] = {char(v & 0xffu), char((v >> 8) & 0xffu), char((v >> 16) & 0xffu),
                           char((v >> 24) & 0xffu)};
    out.append(bytes, 4);
}

void appendLE(std::string& out, float v) {
    appendLE(out, std::bit_cast<std::uint32_t>(v));
}

} // namespace rsim::output
