// SPDX-License-Identifier: MIT
#include "output/output_folder.h"

#include <fstream>
#include <system_error>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/cancel.h"
#include "util/error.h"
#include "util/owned_files.h"

namespace rsim {
namespace {

namespace fs = std::filesystem;

// Every file rsim may write into a results directory (README.md, "What a run writes").
const char* const kContractFiles[] = {"summary.json",  "triangles.csv",  "timeseries.h5", "images.h5", "images.exr",
                                      "depth.pfm",     "depth.png",      "error.png",     "amplitude.png",
                                      "mesh_error.ply"};

// The longest name of one path component on Linux file systems (NAME_MAX).
constexpr std::size_t kMaxNameBytes = 255;

void checkNameLengths(const fs::path& given, const fs::path& dir) {
    if (dir.native().size() + kPartialSuffixBytes >= PATH_MAX)
        throw InputError(given.string() + ": the output path is " + std::to_string(dir.native().size()) +
                         " bytes long; paths must stay under " + std::to_string(PATH_MAX - kPartialSuffixBytes) +
                         " bytes");
    for (const fs::path& part : dir.relative_path())
        if (part.native().size() > kMaxNameBytes)
            throw InputError(given.string() + ": the folder name \"" + part.string().substr(0, 40) + "...\" is " +
                             std::to_string(part.native().size()) + " bytes; file systems allow " +
                             std::to_string(kMaxNameBytes));
    const std::size_t last = dir.filename().native().size();
    if (last + kPartialSuffixBytes > kMaxNameBytes)
        throw InputError(given.string() + ": the output folder's name is " + std::to_string(last) +
                         " bytes; rsim writes it under a temporary name " + std::to_string(kPartialSuffixBytes) +
                         " bytes longer first, and file systems allow " + std::to_string(kMaxNameBytes) +
                         ": keep it under " + std::to_string(kMaxNameBytes - kPartialSuffixBytes + 1) + " bytes");
}

// Creates and removes a locked probe folder in `parent`, where the results will be written: an
// unwritable place (permissions, a read-only or immutable folder, /proc) fails now, before the
// simulation, not after it.
void probeWritable(const fs::path& parent, const fs::path& dir) {
    try {
        TempDirectory probe(parent / ".rsim-probe");
    } catch (const Error& e) {
        throw InputError(dir.string() + ": cannot be written (" + e.what() + "). Choose another --output or [output] dir");
    }
}

std::string withTag(const fs::path& partial, const std::string& from, const std::string& to) {
    std::string s = partial.string();
    const std::size_t at = s.rfind(from);
    return at == std::string::npos ? s + to : s.replace(at, from.size(), to);
}

// Removes DIR.partial-* folders whose writer has ended (its lock is free), and warns of a
// DIR.old-* left by a run interrupted between its two renames: that one holds the previous
// results (perhaps the only copy), so it is the user's to remove.
void removeAbandonedSiblings(const fs::path& dir) {
    const std::string base = dir.filename().string();
    std::error_code ec;
    for (fs::directory_iterator it(dir.parent_path(), ec), end; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        if (isPartialName(name, base)) {
            if (removeIfAbandonedDirectory(it->path()))
                spdlog::info("removed {}, left by an rsim run that ended before its results were complete",
                             it->path().string());
        } else if (isPartialName(withTag(name, ".old-", ".partial-"), base) && notResultsBecause(it->path()).empty()) {
            spdlog::warn("{} holds earlier results of {}, moved aside by a run that was interrupted while putting "
                         "its own in place; rsim leaves it to you to keep or remove",
                         it->path().string(), dir.string());
        }
    }
}

} // namespace

fs::path resolveOutputFolder(const fs::path& given) {
    if (given.empty()) throw InputError("the output folder is empty: give --output DIR (or [output] dir)");
    std::error_code ec;
    fs::path dir = fs::weakly_canonical(fs::absolute(given), ec);
    if (ec) throw InputError(given.string() + ": the output path cannot be resolved: " + ec.message());
    if (!dir.has_filename()) dir = dir.parent_path(); // "results/" names "results"
    if (dir == dir.root_path()) throw InputError(given.string() + ": the output folder cannot be the root folder");
    struct stat st {};
    if (::lstat(dir.c_str(), &st) == 0 && S_ISLNK(st.st_mode)) { // followed where it leads: nowhere
        std::error_code rl;
        const fs::path to = fs::read_symlink(dir, rl);
        throw InputError(given.string() + ": is a symbolic link to " + (rl ? std::string("?") : to.string()) +
                         ", which does not exist; rsim does not replace links: create the folder it points to, or "
                         "give another --output");
    }
    // A link further up that points nowhere: the folders below it could not be created.
    for (fs::path p = dir.parent_path(); p != p.parent_path(); p = p.parent_path())
        if (::lstat(p.c_str(), &st) == 0 && S_ISLNK(st.st_mode))
            throw InputError(given.string() + ": " + p.string() + " is a symbolic link to " +
                             fs::read_symlink(p, ec).string() + ", which does not exist");
    checkNameLengths(given, dir);
    struct stat parent {};
    if (::stat(dir.c_str(), &st) == 0 && S_ISDIR(st.st_mode) && ::stat(dir.parent_path().c_str(), &parent) == 0 &&
        st.st_dev != parent.st_dev)
        throw InputError(given.string() + ": is a mount point; rsim writes results beside their folder and renames "
                                          "them into place, which a mount point does not allow: give a folder "
                                          "inside it, such as " + (dir / "results").string());
    return dir;
}

std::string notResultsBecause(const fs::path& dir) {
    std::error_code ec;
    if (!fs::is_regular_file(fs::symlink_status(dir / "summary.json", ec))) return "it has no summary.json";
    // A batch holds batch.csv, batch.h5, summary.json and one results directory per pose.
    const bool batch = fs::is_regular_file(fs::symlink_status(dir / "batch.csv", ec));
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        const fs::file_status st = it->symlink_status(ec);
        if (batch && fs::is_directory(st)) {
            if (std::string why = notResultsBecause(it->path()); !why.empty())
                return "its subdirectory \"" + name + "\" is not a pose's results: " + why;
            continue;
        }
        bool known = false;
        if (batch) known = name == "batch.csv" || name == "batch.h5" || name == "summary.json";
        else
            for (const char* f : kContractFiles) known = known || name == f;
        if (!known || !fs::is_regular_file(st)) return "it holds \"" + name + "\", which is not a file rsim writes";
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

void checkReplaceable(const fs::path& dir) {
    std::error_code ec;
    const fs::file_status st = fs::symlink_status(dir, ec);
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

void writeAtomically(const fs::path& dir, const std::function<void(const fs::path&)>& write) {
    std::error_code ec;
    try {
        fs::create_directories(dir.parent_path());
        removeAbandonedSiblings(dir);
        TempDirectory tmp(dir); // a sibling of `dir`, so that the renames stay on one file system
        write(tmp.path());
        checkCancel(); // stopped while writing: the partial directory goes, nothing is replaced

        // Checked again: another process may have created `dir` while we were writing.
        checkReplaceable(dir);
        tmp.release();
        const fs::path written = tmp.path();
        try {
            if (fs::exists(fs::symlink_status(dir)) &&
                ::renameat2(AT_FDCWD, written.c_str(), AT_FDCWD, dir.c_str(), RENAME_EXCHANGE) == 0) {
                fs::remove_all(written, ec); // now the previous results
            } else if (fs::exists(fs::symlink_status(dir))) {
                // No exchange here (NFS, some FUSE file systems): the previous results step aside.
                const fs::path old = withTag(written, ".partial-", ".old-");
                fs::rename(dir, old);
                try {
                    fs::rename(written, dir);
                } catch (...) {
                    fs::rename(old, dir, ec); // put the previous results back
                    throw;
                }
                fs::remove_all(old, ec); // the new results are in place; a leftover is harmless
            } else {
                fs::rename(written, dir);
            }
        } catch (...) {
            fs::remove_all(written, ec); // released: ours to remove
            throw;
        }
    } catch (const fs::filesystem_error& e) {
        throw Error("cannot write results directory " + dir.string() + ": " + e.what());
    }
}

} // namespace rsim
