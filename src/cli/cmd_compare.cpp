// SPDX-License-Identifier: MIT
#include <cmath>
#include <iostream>

#include <CLI/CLI.hpp>

#include "cli/cli.h"
#include "cli/validators.h"
#include "compare/compare.h"

namespace rsim {

void addCompareCommand(CLI::App& app, CommandAction& action) {
    auto* cmd = app.add_subcommand(
        "compare", "Regression diff of two results directories (distances, depth image, images.h5 data, signal)");
    struct Args {
        std::filesystem::path a, b;
        CompareOptions options;
        bool noImages = false, noSignal = false, ignoreSettings = false;
    };
    auto args = std::make_shared<Args>();
    cmd->add_option("A", args->a, "First results directory")->required();
    cmd->add_option("B", args->b, "Second results directory")->required();
    const CLI::Validator finite = finiteNumber();
    cmd->add_option("--tol-m", args->options.toleranceM,
                    "Largest allowed |distance_A - distance_B| per triangle and pixel, metres")
        ->check(nonNegativeNumber())
        ->capture_default_str();
    cmd->add_option("--max-fraction", args->options.maxFraction,
                    "Fraction of triangles (and pixels) allowed beyond the tolerance (0.1% by default: "
                    "ray tracers disagree on rays that graze an edge; 0 for bit-exact regression)")
        ->check(finite & CLI::Range(0.0, 1.0))
        ->capture_default_str();
    cmd->add_option("--tol-rel", args->options.toleranceRel,
                    "Largest allowed difference of images.h5's raw data (amcw/ phasors and taps, noise/ "
                    "electrons, gated/gates, transient), relative to each dataset's largest magnitude")
        ->check(nonNegativeNumber())
        ->capture_default_str();
    cmd->add_option("--noise-fraction", args->options.noiseFraction,
                    "Fraction of each images.h5 noise/ dataset allowed beyond the tolerance (a noise draw jumps "
                    "where its mean crosses a step: two backends draw other electrons for some pixels)")
        ->check(finite & CLI::Range(0.0, 1.0))
        ->capture_default_str();
    cmd->add_option("--signal-rtol", args->options.signalRtol,
                    "Largest allowed difference of the total sensor signal, relative to its peak")
        ->check(nonNegativeNumber())
        ->capture_default_str();
    cmd->add_flag("--ignore-settings", args->ignoreSettings,
                  "Compare even when the runs' settings differ (summary.json; the [output] table is never compared)");
    cmd->add_option("--json", args->options.jsonFile,
                    "Also write the checks as JSON to this file (a new file, or one an earlier compare wrote)");
    cmd->add_option("--junit", args->options.junitFile, "Also write the checks as JUnit XML to this file (CI systems)");
    cmd->add_flag("--no-images", args->noImages, "Do not compare depth.pfm nor images.h5's data");
    cmd->add_option("--exclude", args->options.excluded,
                    "A file of the data compare reads (summary.json, depth.pfm) that may be in one directory "
                    "only; repeatable");
    cmd->add_flag("--no-signal", args->noSignal, "Do not compare the sensor signal");
    cmd->add_option("--worst", args->options.showWorst, "Rows in the worst-offender table")
        ->capture_default_str();
    cmd->footer("A triangle with a distance in one directory and none (NaN) in the other counts "
                "as beyond the tolerance (and as NaN on one side). The runs' settings and triangles must "
                "agree, and the data compare reads (summary.json, triangles.csv, depth.pfm) must be in both "
                "directories when both runs were asked to write it; other files in one directory only are a "
                "note. Where both hold images.h5, every dataset under amcw/, noise/ and gated/, and transient, "
                "must be in both, of one shape, and agree: names ending in _m within --tol-m, phases (_rad) "
                "modulo 2 pi as the range they stand for within --tol-m, the rest within --tol-rel of the "
                "dataset's largest magnitude; at most --max-fraction of each beyond (--noise-fraction of "
                "noise/'s). Two batches' folders are compared pose by pose. A failure lists the triangles and "
                "pixels that differ most (--json: every figure a number).\nExit code: 0 when A and B agree, "
                "3 when they differ, 2 when a directory cannot be read.\n"
                "Examples:\n"
                "  rsim compare results/tiny-room tests/reference/tiny-room\n"
                "  rsim compare cpu/ gpu/                       # backends: 1 mm, 0.1% may exceed\n"
                "  rsim compare run1/ run2/ --max-fraction 0    # same backend and settings: every value\n"
                "  rsim compare batch1/ batch2/ --json cmp.json # two batches, pose by pose");
    cmd->callback([&action, args] {
        action = [args]() {
            args->options.images = !args->noImages;
            args->options.checkSignal = !args->noSignal;
            args->options.checkSettings = !args->ignoreSettings;
            return compareResults(args->a, args->b, args->options, std::cout);
        };
    });
}

} // namespace rsim
