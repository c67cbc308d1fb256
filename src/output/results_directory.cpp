// SPDX-License-Identifier: MIT
#include <functional>
#include <future>
#include <mutex>
#include <string>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "output/file_modules.h"
#include "output/output_folder.h"
#include "output/output_util.h"
#include "output/results_writer.h"
#include "util/error.h"

namespace rsim {
namespace {

namespace fs = std::filesystem;

// The files of a results directory, summary.json last (it holds the output phase's time).
// `atOnce` (a run's one directory): every file on a thread of its own (the two HDF5 files one
// after the other where the library is not thread-safe), and images.exr compressed on several
// threads. Otherwise (a batch's poses, written by many writer threads already) images.exr
// alone on a thread of its own while this one writes the others. On error, the futures'
// destructors wait for the other files before the directory goes.
void writeAll(const fs::path& tmp, const ResultsView& view, PhaseTimes& times, const Stopwatch& sw, bool atOnce) {
    struct File {
        bool ownThread;
        std::function<std::string()> write; // returns "name seconds" for --log-level debug
    };
    auto timed = [](const char* name, std::function<void()> write) {
        return [name, write = std::move(write)] {
            const Stopwatch own;
            write();
            return fmt::format("{} {:.3f} s", name, own.seconds());
        };
    };
    const bool images = output::imagesWritten(view);
    std::vector<File> files;
    if (output::trianglesWritten(view)) {
        files.push_back({atOnce, timed("triangles.csv", [&] { writeTrianglesCsv(tmp / "triangles.csv", view); })});
        files.push_back({atOnce, timed("mesh_error.ply", [&] { writeErrorPly(tmp / "mesh_error.ply", view); })});
    }
    if (images) {
        files.push_back({atOnce, timed("images", [&] { writeSensorImages(tmp, view); })});
        files.push_back({true, timed("images.exr", [&] { openExr().writeImages(tmp / "images.exr", view, atOnce); })});
    }
    // K lives in timeseries.h5, so output.kij = true writes the file even when
    // output.timeseries = false; it then holds K, the geometry and the per-triangle terms but
    // not B, Z, E, R (its `layout` attribute says so). The two HDF5 files one after the other
    // where the library is not thread-safe.
    std::mutex hdf5Serial;
    auto withHdf5 = [&hdf5Serial](const std::function<void(const Hdf5Calls&)>& write) {
        const Hdf5Calls& h5 = hdf5();
        std::unique_lock lock(hdf5Serial, std::defer_lock);
        if (!h5.threadSafe()) lock.lock();
        write(h5);
    };
    if (output::timeseriesWritten(view))
        files.push_back({atOnce, timed("timeseries.h5", [&] {
                             withHdf5([&](const Hdf5Calls& h5) { h5.writeTimeseries(tmp / "timeseries.h5", view); });
                         })});
    if (images)
        files.push_back({atOnce, timed("images.h5", [&] {
                             withHdf5([&](const Hdf5Calls& h5) { h5.writeImages(tmp / "images.h5", view); });
                         })});
    std::vector<std::future<std::string>> threads(files.size());
    for (std::size_t f = 0; f < files.size(); ++f)
        if (files[f].ownThread) threads[f] = std::async(std::launch::async, files[f].write);
    std::vector<std::string> spent(files.size());
    for (std::size_t f = 0; f < files.size(); ++f)
        if (!files[f].ownThread) spent[f] = files[f].write();
    for (std::size_t f = 0; f < files.size(); ++f)
        if (threads[f].valid()) spent[f] = threads[f].get() + " on its own thread";
    times.add("output", sw.seconds());
    const std::string summary = timed("summary.json", [&] { writeSummaryJson(tmp / "summary.json", view, times); })();
    spdlog::debug("{}: {}, {}", tmp.string(), fmt::join(spent, ", "), summary);
}

} // namespace

void checkOutputDirectory(const fs::path& dir) { checkReplaceable(resolveOutputFolder(dir)); }

void writeResultsDirectory(const fs::path& dirIn, const ResultsView& view, PhaseTimes& times) {
    const Stopwatch sw;
    const fs::path dir = resolveOutputFolder(dirIn);
    checkReplaceable(dir);
    writeAtomically(dir, [&](const fs::path& tmp) { writeAll(tmp, view, times, sw, true); });
}

void writeResultsFiles(const fs::path& dir, const ResultsView& view, PhaseTimes& times) {
    const Stopwatch sw;
    fs::create_directory(dir);
    writeAll(dir, view, times, sw, false);
}

void writeBatchDirectory(const fs::path& dirIn, const std::function<void(const fs::path&)>& write) {
    const fs::path dir = resolveOutputFolder(dirIn);
    checkReplaceable(dir);
    writeAtomically(dir, write);
}

} // namespace rsim
