// SPDX-License-Identifier: MIT
// Helpers shared by the writers of the results directory: colour maps, the error statistics the
// files agree on, and checked binary/text file output. Not part of the output API.
#pragma once
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "output/results_writer.h"

namespace rsim::output {

struct Rgb8 {
    std::uint8_t r = 0, g = 0, b = 0;
};

// Perceptually ordered map for magnitudes (a viridis approximation); t is clamped to [0, 1].
Rgb8 viridis(double t);
// Blue (-1) - white (0) - red (+1) for signed errors; t is clamped to [-1, 1].
Rgb8 diverging(double t);

// Nearest-rank q-quantile of |v| over the finite values; 0 when there are none.
double absPercentile(const std::vector<double>& values, double q);
// Half-width of the colour range of error maps. The 99th percentile, not the maximum, so that a
// few outliers do not wash out the rest; never below 1 mm, so that a near-perfect result is not
// painted as if its noise were large.
double errorColourRange(const std::vector<double>& errors);

// |centroid - sensor position| of internal triangle i, in double.
double trueDistanceM(const ResultsView& view, std::size_t internal);
// distance - true distance per stable id (NaN where there is no distance).
std::vector<double> distanceErrorsById(const ResultsView& view);

// Whether writeResultsDirectory writes the sensor images / timeseries.h5.
bool imagesWritten(const ResultsView& view);
bool timeseriesWritten(const ResultsView& view);
// Whether the run has per-triangle outputs (triangles.csv, mesh_error.ply): not for the `paths`
// transport, which computes none (MODEL.md §10.2).
bool trianglesWritten(const ResultsView& view);
// The materials the radiosity pipeline saw as Lambertian (summary.json `materials_approximated`,
// MODEL.md §10.1): none for `paths`.
std::vector<std::string> materialsApproximated(const ResultsView& view);

// What the sensor images show, so that summary.json reports the ranges the PNGs use.
struct ImageStats {
    std::uint32_t width = 0, height = 0;
    std::uint64_t pixelsWithDepth = 0;
    double depthLo = 0.0, depthHi = 0.0;         // finite depths; NaN when there are none
    double errorRange = 1e-3;                    // error.png spans [-errorRange, errorRange]
    double amplitudeLo = 0.0, amplitudeHi = 0.0; // finite positive amplitudes; NaN when none
};
ImageStats imageStats(const SensorImage& image);

// Throws rsim::Error when a result array does not have the size the writers index it with; a
// backend bug, reported as such instead of reading out of bounds.
void requireSize(std::size_t actual, std::size_t expected, const char* what);

// A file opened for writing whose every write and the close are checked; errors throw
// rsim::Error naming the file. The destructor closes without checking (an exception is already
// on its way then).
class OutputFile {
  public:
    explicit OutputFile(const std::filesystem::path& path);
    ~OutputFile();
    OutputFile(const OutputFile&) = delete;
    OutputFile& operator=(const OutputFile&) = delete;

    void write(const void* data, std::size_t bytes);
    void write(std::string_view s) { write(s.data(), s.size()); }
    void close();

  private:
    [[noreturn]] void fail(const char* what) const;
    std::filesystem::path path_;
    std::FILE* file_ = nullptr;
};

// Little-endian encodings for the binary formats (PLY, PFM), whatever the host's order.
void appendLE(std::string& out, std::uint32_t v);
void appendLE(std::string& out, float v);

} // namespace rsim::output
