// SPDX-License-Identifier: MIT
#include <string>
#include <system_error>

#include <unistd.h>

#include "output/output_util.h"
#include "output/results_writer.h"
#include "util/error.h"

namespace rsim {
namespace {

namespace fs = std::filesystem;

// Replacing a directory deletes it, so only directories rsim wrote (or empty ones) qualify.
void checkReplaceable(const fs::path& dir) {
    std::error_code ec;
    const fs::file_status st = fs::status(dir, ec);
    if (!fs::exists(st)) return;
    const bool replaceable =
        fs::is_directory(st) && (fs::is_empty(dir, ec) || fs::exists(dir / "summary.json", ec));
    if (!replaceable)
        throw InputError(dir.string() +
                         ": exists and is not an rsim results directory; refusing to overwrite it");
}

fs::path withSuffix(const fs::path& dir, const std::string& suffix) {
    fs::path p = dir;
    p += suffix;
    return p;
}

void writeAll(const fs::path& tmp, const ResultsView& view, PhaseTimes& times,
              const Stopwatch& sw) {
    writeTrianglesCsv(tmp / "triangles.csv", view);
    writeErrorPly(tmp / "mesh_error.ply", view);
    // K lives in timeseries.h5, so output.kij = true writes the file even when
    // output.timeseries = false; it then holds K, the geometry and the per-triangle terms but
    // not B, Z, E, R (its `layout` attribute says so).
    if (output::timeseriesWritten(view)) writeTimeseriesH5(tmp / "timeseries.h5", view);
    if (output::imagesWritten(view)) writeSensorImages(tmp, view);
    times.add("output", sw.seconds());
    writeSummaryJson(tmp / "summary.json", view, times);
}

} // namespace

void writeResultsDirectory(const fs::path& dirIn, const ResultsView& view, PhaseTimes& times) {
    const Stopwatch sw;
    fs::path dir = fs::absolute(dirIn).lexically_normal();
    if (!dir.has_filename()) dir = dir.parent_path(); // "results/" names "results"
    checkReplaceable(dir);

    const std::string pid = std::to_string(::getpid());
    // Siblings of `dir`, so that the final renames stay within one file system.
    const fs::path tmp = withSuffix(dir, ".partial-" + pid);
    const fs::path old = withSuffix(dir, ".old-" + pid);
    try {
        fs::create_directories(dir.parent_path());
        fs::remove_all(tmp); // left by an earlier crash of a process with our pid
        fs::create_directory(tmp);
        writeAll(tmp, view, times, sw);

        // Checked again: another process may have created `dir` while we were writing.
        checkReplaceable(dir);
        if (fs::exists(dir)) {
            fs::remove_all(old);
            fs::rename(dir, old);
            try {
                fs::rename(tmp, dir);
            } catch (...) {
                std::error_code ec;
                fs::rename(old, dir, ec); // put the previous results back
                throw;
            }
            std::error_code ec;
            fs::remove_all(old, ec); // the new results are in place; a leftover is harmless
        } else {
            fs::rename(tmp, dir);
        }
    } catch (const fs::filesystem_error& e) {
        std::error_code ec;
        fs::remove_all(tmp, ec);
        throw Error("cannot write results directory " + dir.string() + ": " + e.what());
    } catch (...) {
        std::error_code ec;
        fs::remove_all(tmp, ec);
        throw;
    }
}

} // namespace rsim
