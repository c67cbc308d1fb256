// SPDX-License-Identifier: MIT
#include <fstream>
#include <functional>
#include <future>
#include <mutex>
#include <string>
#include <system_error>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include "output/file_modules.h"
#include "output/output_util.h"
#include "output/results_writer.h"
#include "util/cancel.h"
#include "util/error.h"

namespace rsim {
namespace {

namespace fs = std::filesystem;

// Every file rsim may write into a results directory (README.md, Output).
const char* const kContractFiles[] = {"summary.json",  "triangles.csv",  "timeseries.h5", "images.h5", "images.exr",
                                      "depth.pfm",     "depth.png",      "error.png",     "amplitude.png",
                                      "mesh_error.ply"};

fs::path normalised(const fs::path& dirIn) {
    fs::path dir = fs::absolute(dirIn).lexically_normal();
    if (!dir.has_filename()) dir = dir.parent_path(); // "results/" names "results"
    return dir;
}

// Why the non-empty directory `dir` is not one rsim wrote, or "" when it is: its summary.json
// is rsim's (a JSON object with rsim_version, backend and counts) and it holds nothing but
// files of the output contract (or, a batch, its own files and its poses' directories).
std::string notResultsBecause(const fs::path& dir) {
    std::error_code ec;
    if (!fs::is_regular_file(dir / "summary.json", ec)) return "it has no summary.json";
    // A batch holds batch.csv, batch.h5, summary.json and one results directory per pose.
    const bool batch = fs::is_regular_file(dir / "batch.csv", ec);
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        if (batch && it->is_directory(ec)) {
            if (std::string why = notResultsBecause(it->path()); !why.empty())
                return "its subdirectory \"" + name + "\" is not a pose's results: " + why;
            continue;
        }
        bool known = false;
        if (batch) known = name == "batch.csv" || name == "batch.h5" || name == "summary.json";
        else
            for (const char* f : kContractFiles) known = known || name == f;
        if (!known || !it->is_regular_file(ec))
            return "it holds \"" + name + "\", which is not a file rsim writes";
    }
    if (ec) return "it cannot be listed: " + ec.message();
    std::ifstream in(dir / "summary.json");
    const nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
    if (j.is_discarded() || !j.is_object()) return "its summary.json is not JSON";
    if (!(j.contains("rsim_version") && j["rsim_version"].is_string() && j.contains("backend") &&
          j.contains("counts")))
        return "its summary.json was not written by rsim";
    return {};
}

// Creates and removes a probe directory in `parent`, where the results will be written: an
// unwritable place (permissions, a read-only or immutable folder, /proc) fails now, before the
// simulation, not after it.
void probeWritable(const fs::path& parent, const fs::path& dir) {
    const fs::path probe = parent / (".rsim-probe-" + std::to_string(::getpid()));
    std::error_code ec;
    fs::create_directory(probe, ec);
    if (ec)
        throw InputError(dir.string() + ": cannot be written (creating a folder in " + parent.string() +
                         " failed: " + ec.message() + "). Choose another --output or [output] dir");
    fs::remove(probe, ec);
}

// Replacing a directory deletes it, so only directories rsim wrote (or empty ones) qualify.
void checkReplaceable(const fs::path& dir) {
    std::error_code ec;
    const fs::file_status st = fs::status(dir, ec);
    if (!fs::exists(st)) {
        // It will be created: the nearest existing ancestor must be a directory.
        for (fs::path p = dir.parent_path(); !p.empty(); p = p.parent_path()) {
            const fs::file_status ps = fs::status(p, ec);
            if (fs::exists(ps)) {
                if (!fs::is_directory(ps))
                    throw InputError(dir.string() + ": cannot be created: " + p.string() +
                                     " is a file, not a directory");
                probeWritable(p, dir);
                break;
            }
            if (p == p.parent_path()) break;
        }
        return;
    }
    if (!fs::is_directory(st))
        throw InputError(dir.string() + ": exists and is not an rsim results directory (it is "
                                        "not a directory); refusing to overwrite it");
    probeWritable(dir.parent_path(), dir); // the new results are written beside it
    if (fs::is_empty(dir, ec) && !ec) return;
    if (std::string why = notResultsBecause(dir); !why.empty())
        throw InputError(dir.string() + ": exists and is not an rsim results directory (" + why +
                         "); refusing to overwrite it. Choose another --output or [output] dir, "
                         "or remove it yourself");
}

fs::path withSuffix(const fs::path& dir, const std::string& suffix) {
    fs::path p = dir;
    p += suffix;
    return p;
}

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
    files.push_back({atOnce, timed("triangles.csv", [&] { writeTrianglesCsv(tmp / "triangles.csv", view); })});
    files.push_back({atOnce, timed("mesh_error.ply", [&] { writeErrorPly(tmp / "mesh_error.ply", view); })});
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

void checkOutputDirectory(const fs::path& dir) { checkReplaceable(normalised(dir)); }

namespace {

// Removes DIR.partial-PID and DIR.old-PID left by processes that no longer run (killed while
// writing: SIGKILL cannot be caught).
void removeStaleSiblings(const fs::path& dir) {
    const std::string base = dir.filename().string();
    std::error_code ec;
    for (fs::directory_iterator it(dir.parent_path(), ec), end; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        for (const char* tag : {".partial-", ".old-"}) {
            const std::string prefix = base + tag;
            if (name.rfind(prefix, 0) != 0) continue;
            const std::string digits = name.substr(prefix.size());
            if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos) continue;
            const long pid = std::strtol(digits.c_str(), nullptr, 10);
            if (pid > 0 && pid != long(::getpid()) && ::kill(pid_t(pid), 0) == -1 && errno == ESRCH) {
                std::error_code rm;
                fs::remove_all(it->path(), rm);
            }
        }
    }
}

// Writes into a sibling of `dir` with `write(tmp)`, then puts it in place: an atomic exchange
// with a previous results directory where the file system offers one (renameat2
// RENAME_EXCHANGE), else two renames. Nothing is left behind on failure.
void writeAtomically(const fs::path& dir, const std::function<void(const fs::path&)>& write) {
    const std::string pid = std::to_string(::getpid());
    // Siblings of `dir`, so that the final renames stay within one file system.
    const fs::path tmp = withSuffix(dir, ".partial-" + pid);
    const fs::path old = withSuffix(dir, ".old-" + pid);
    try {
        fs::create_directories(dir.parent_path());
        removeStaleSiblings(dir);
        fs::remove_all(tmp); // left by an earlier crash of a process with our pid
        fs::create_directory(tmp);
        write(tmp);
        checkCancel(); // stopped while writing: the partial directory goes, nothing is replaced

        // Checked again: another process may have created `dir` while we were writing.
        checkReplaceable(dir);
        if (fs::exists(dir) &&
            ::renameat2(AT_FDCWD, tmp.c_str(), AT_FDCWD, dir.c_str(), RENAME_EXCHANGE) == 0) {
            std::error_code ec;
            fs::remove_all(tmp, ec); // now the previous results
        } else if (fs::exists(dir)) {
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

} // namespace

void writeResultsDirectory(const fs::path& dirIn, const ResultsView& view, PhaseTimes& times) {
    const Stopwatch sw;
    const fs::path dir = normalised(dirIn);
    checkReplaceable(dir);
    writeAtomically(dir, [&](const fs::path& tmp) { writeAll(tmp, view, times, sw, true); });
}

void writeResultsFiles(const fs::path& dir, const ResultsView& view, PhaseTimes& times) {
    const Stopwatch sw;
    fs::create_directory(dir);
    writeAll(dir, view, times, sw, false);
}

void writeBatchDirectory(const fs::path& dirIn, const std::function<void(const fs::path&)>& write) {
    const fs::path dir = normalised(dirIn);
    checkReplaceable(dir);
    writeAtomically(dir, write);
}

} // namespace rsim
