// SPDX-License-Identifier: MIT
// `rsim compare A B`: regression diff of two results directories.
#pragma once
#include <filesystem>
#include <string>
#include <vector>
#include <ostream>

namespace rsim {

struct CompareOptions {
    double toleranceM = 1e-3;     // |distance_A - distance_B| allowed per triangle / pixel, m
    // Fraction of triangles (and pixels) allowed beyond the tolerance. 0.1% by default: runs on
    // two ray tracers (Embree, a GPU) disagree on the few rays that graze an edge, and the
    // pulsed estimator's argmax can jump between two near-equal echoes of such a triangle.
    double maxFraction = 0.001;
    bool images = true;           // also compare depth.pfm and images.h5's data when both directories have them
    // images.h5's raw data (amcw/phasor, taps, noise/ electrons, gated/gates, transient, ...):
    // |A - B| allowed, relative to the dataset's largest magnitude (compare/datasets.h).
    double toleranceRel = 1e-3;
    // The fraction of each noise/ dataset's values allowed beyond its tolerance: a noise draw
    // jumps where its mean crosses a step of the draw, so two backends whose means differ in their
    // last digits draw other electrons for some pixels (about 1% of an AMCW run's ranges, the
    // tiny room on CPU and llvmpipe).
    double noiseFraction = 0.02;
    double signalRtol = 1e-3;     // sensor_signal_fwd, relative to its peak
    bool checkSignal = true;
    std::size_t showWorst = 10;   // rows of the worst-offender table
    bool checkSettings = true;    // summary.json settings (the [output] table aside) must agree
    // Result files (README's output contract) that may be in one directory only (--exclude).
    std::vector<std::string> excluded;
    std::filesystem::path jsonFile;  // --json: the checks as JSON
    std::filesystem::path junitFile; // --junit: the checks as JUnit XML, for CI systems
};

// Prints a readable report to `out` (and JSON / JUnit XML when asked); returns kExitOk when A
// and B agree within the options, kExitDifferent when they do not: when a check fails, the data
// compare reads (triangles.csv, summary.json, depth.pfm) is in one directory only though both
// runs were asked to write it (unless excluded by name), an HDF5 file cannot be read, the
// runs' settings or triangles differ, or images.h5's data differs (where both have images.h5:
// a dataset of amcw/, noise/, gated/ or transient in one only, of another shape, or with other
// values). Other files in one directory only are notes. Two batches' directories are compared
// pose by pose. Throws InputError when a directory is missing or
// unreadable, or a report file cannot be written without replacing something of the user's.
int compareResults(const std::filesystem::path& a, const std::filesystem::path& b,
                   const CompareOptions& options, std::ostream& out);

} // namespace rsim
