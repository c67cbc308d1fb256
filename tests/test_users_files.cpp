// SPDX-License-Identifier: MIT
// Nothing rsim did not create is ever deleted, replaced or written through a link (issue 57,
// items 4-9 and 11): each test plants a kind of foreign file or link next to a path rsim writes
// and checks it is still there, unchanged, and that rsim's own leftovers are cleaned up only when
// their writer has ended (docs/reliability.md, "Files rsim writes").
#include <chrono>
#include <string>
#include <vector>

#include <catch2/catch_test_macros.hpp>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <csignal>
#include <unistd.h>

#include "support/run_command.h"
#include "support/test_scenes.h"
#include "util/owned_files.h"

using namespace rsim::test;
namespace fs = std::filesystem;

namespace {

const std::string kTinyRoom = std::string(RSIM_SOURCE_DIR) + "/scenes/tiny-room/scene.toml";

std::string q(const fs::path& p) { return "'" + p.string() + "'"; }

// A short run of the tiny room into `out` with `extra` options.
CommandResult run(const fs::path& out, const std::string& extra = "") {
    return runRsim("run " + q(kTinyRoom) + " --backend cpu --timesteps 200 --samples 2 -q --no-k-cache --no-timeseries -o " +
                   q(out) + " " + extra);
}

// A partial results folder of a writer in another process, as rsim makes it (util/owned_files.h):
// the child makes it and either ends at once (the folder is abandoned: its lock goes with the
// process) or holds it until killed. Returns the child's pid (0 when it has ended) and the folder.
struct Writer {
    pid_t pid = 0;
    fs::path folder;
};
Writer writerOf(const fs::path& target, bool stays) {
    int fds[2];
    REQUIRE(::pipe(fds) == 0);
    const pid_t child = ::fork();
    REQUIRE(child >= 0);
    if (child == 0) {
        ::close(fds[0]);
        const rsim::TempDirectory* dir = new rsim::TempDirectory(target); // never destroyed: not removed
        const std::string name = dir->path().string() + "\n";
        if (::write(fds[1], name.data(), name.size()) < 0) ::_exit(1);
        ::close(fds[1]);
        if (stays) ::pause();
        ::_exit(0);
    }
    ::close(fds[1]);
    std::string name;
    char c = 0;
    while (::read(fds[0], &c, 1) == 1 && c != '\n') name += c;
    ::close(fds[0]);
    if (!stays) {
        int status = 0;
        ::waitpid(child, &status, 0);
        return {0, name};
    }
    return {child, name};
}

void endWriter(Writer& w) {
    ::kill(w.pid, SIGKILL);
    int status = 0;
    ::waitpid(w.pid, &status, 0);
    w.pid = 0;
}

} // namespace

TEST_CASE("a run deletes none of the user's folders beside its output, only its own abandoned ones",
          "[users-files][output]") {
    TempDir dir;
    // The user's backups and folders that merely look like rsim's names.
    fs::create_directories(dir / "results.old-20241129");
    writeFile(dir / "results.old-20241129" / "keep.txt", "mine");
    fs::create_directories(dir / "results.partial-1");
    writeFile(dir / "results.partial-1" / "keep.txt", "mine");
    fs::create_directories(dir / "results.partial-7-abcdef"); // rsim's pattern, but no lock file: not proven rsim's
    // A folder of rsim's pattern with a lock file that holds no owner's record (the moment before
    // its owner wrote it, or someone else's): not proven abandoned.
    fs::create_directories(dir / "results.partial-8-abcdef");
    writeFile(dir / "results.partial-8-abcdef" / rsim::TempDirectory::kLockName, "");
    // rsim's own leftover of a run that ended (its lock is free), and a live one (locked).
    const Writer dead = writerOf(dir / "results", false);
    Writer live = writerOf(dir / "results", true);
    REQUIRE(run(dir / "results").exitCode == 0);
    CHECK(readFile(dir / "results.old-20241129" / "keep.txt") == "mine");
    CHECK(readFile(dir / "results.partial-1" / "keep.txt") == "mine");
    CHECK(fs::exists(dir / "results.partial-7-abcdef"));
    CHECK(fs::exists(dir / "results.partial-8-abcdef"));
    CHECK_FALSE(fs::exists(dead.folder));
    CHECK(fs::exists(live.folder / rsim::TempDirectory::kLockName));
    // Replacing the results leaves nothing new beside them.
    REQUIRE(run(dir / "results").exitCode == 0);
    std::size_t siblings = 0;
    for (const auto& e : fs::directory_iterator(dir.path())) siblings += e.path().filename().string().rfind("results", 0) == 0;
    CHECK(siblings == 6); // results, the four foreign folders and the live partial
    endWriter(live);
}

TEST_CASE("a live run's partial folder survives another run, and goes once its writer is killed",
          "[users-files][output]") {
    // The lock decides, not a PID (a writer in another PID namespace may have any PID).
    TempDir dir;
    Writer other = writerOf(dir / "results", true);
    REQUIRE(run(dir / "results").exitCode == 0);
    CHECK(fs::exists(other.folder / rsim::TempDirectory::kLockName));
    endWriter(other); // killed: SIGKILL cannot be caught, its folder stays behind
    REQUIRE(fs::exists(other.folder));
    REQUIRE(run(dir / "results").exitCode == 0);
    CHECK_FALSE(fs::exists(other.folder));
}

TEST_CASE("an output folder through a symbolic link is written where the link points, and the link kept",
          "[users-files][output]") {
    TempDir dir;
    fs::create_directories(dir / "disk");
    fs::create_directories(dir / "other" / "sub");
    fs::create_directory_symlink(dir / "disk", dir / "link");
    REQUIRE(run(dir / "link").exitCode == 0);
    CHECK(fs::is_symlink(dir / "link"));
    CHECK(fs::exists(dir / "disk" / "summary.json"));
    // link/../res is where the system puts it: beside the link's target, not beside the link.
    fs::create_directory_symlink(dir / "other" / "sub", dir / "deep");
    REQUIRE(run(dir / "deep" / ".." / "res").exitCode == 0);
    CHECK(fs::exists(dir / "other" / "res" / "summary.json"));
    CHECK_FALSE(fs::exists(dir / "res"));
    // A link that points nowhere, a link loop and an over-long name fail before any work.
    fs::create_directory_symlink(dir / "nowhere", dir / "dangling");
    const CommandResult dangling = run(dir / "dangling");
    CHECK(dangling.exitCode == 2);
    CHECK(dangling.output.find("symbolic link") != std::string::npos);
    CHECK(fs::is_symlink(dir / "dangling"));
    fs::create_directory_symlink(dir / "loop2", dir / "loop1");
    fs::create_directory_symlink(dir / "loop1", dir / "loop2");
    const CommandResult loop = run(dir / "loop1" / "out");
    CHECK(loop.exitCode == 2);
    CHECK(loop.output.find("visibility") == std::string::npos);
    const CommandResult longName = run(dir / std::string(240, 'n'));
    CAPTURE(longName.output);
    CHECK(longName.exitCode == 2);
    CHECK(longName.output.find("bytes") != std::string::npos);
    CHECK(longName.output.find("visibility") == std::string::npos);
    // An empty name is refused, not taken as the scene's [output] dir.
    CHECK(runRsim("run " + q(kTinyRoom) + " --backend cpu -q -o ''").exitCode == 2);
}

TEST_CASE("a batch pose name longer than a file name may be fails before any work", "[users-files][batch]") {
    TempDir dir;
    writeFile(dir / "poses.csv", "name,x,y,z,look_x,look_y,look_z\n" + std::string(300, 'p') + ",1,1.5,1.5,4,1.5,1\n");
    const CommandResult r = run(dir / "out", "--poses " + q(dir / "poses.csv"));
    CAPTURE(r.output);
    CHECK(r.exitCode == 2);
    CHECK(r.output.find("300 bytes") != std::string::npos);
    CHECK(r.output.find("visibility") == std::string::npos);
}

TEST_CASE("the K cache writes through no planted link and evicts only its own files", "[users-files][kcache]") {
    TempDir dir;
    const fs::path cache = dir / "cache";
    fs::create_directories(cache);
    // Someone with write access to a shared cache plants links at every name the old code used
    // (KEY.kcache.partial-PID for any PID): none may be followed. And the user's files.
    writeFile(dir / "victim.txt", "precious");
    writeFile(cache / "notes.kcache", "my notes, not rsim's");
    writeFile(cache / "0123456789abcdef0123456789abcdef.kcache", "not a K cache file at all");
    writeFile(cache / "0123456789abcdef0123456789abcdef.kcache.partial-99-abcdef", "someone's, locked");
    const int fd = ::open((cache / "0123456789abcdef0123456789abcdef.kcache.partial-99-abcdef").c_str(), O_RDONLY);
    REQUIRE(::flock(fd, LOCK_EX) == 0);
    // A leftover whose lock is free and that has not changed for two hours: abandoned. The locked
    // one is as old: the lock keeps it.
    writeFile(cache / "fedcba9876543210fedcba9876543210.kcache.partial-98-abcdef", "abandoned");
    const auto hoursAgo = fs::file_time_type::clock::now() - std::chrono::hours(2);
    fs::last_write_time(cache / "fedcba9876543210fedcba9876543210.kcache.partial-98-abcdef", hoursAgo);
    fs::last_write_time(cache / "0123456789abcdef0123456789abcdef.kcache.partial-99-abcdef", hoursAgo);
    auto rsimFiles = [&] {
        std::vector<std::string> names;
        for (const auto& e : fs::directory_iterator(cache)) {
            const std::string n = e.path().filename().string();
            if (n.size() == 39 && n.find("0123456789abcdef") != 0 && e.path().extension() == ".kcache") names.push_back(n);
        }
        return names;
    };
    REQUIRE(runRsim("run " + q(kTinyRoom) + " --backend cpu --timesteps 200 --samples 2 -q --no-timeseries -o " +
                    q(dir / "a") + " --k-cache " + q(cache)).exitCode == 0);
    const std::vector<std::string> first = rsimFiles();
    REQUIRE(first.size() == 1);
    // A budget of 0.5 MB holds one tiny-room K (0.3 MB): storing the next evicts the first, and
    // nothing that is not rsim's.
    REQUIRE(runRsim("run " + q(kTinyRoom) + " --backend cpu --timesteps 200 --samples 3 -q --no-timeseries -o " +
                    q(dir / "b") + " --k-cache " + q(cache) + " --k-cache-max-gb 0.0005").exitCode == 0);
    const std::vector<std::string> second = rsimFiles();
    REQUIRE(second.size() == 1);
    CHECK(second[0] != first[0]);
    CHECK(readFile(dir / "victim.txt") == "precious");
    CHECK(readFile(cache / "notes.kcache") == "my notes, not rsim's");
    CHECK(readFile(cache / "0123456789abcdef0123456789abcdef.kcache") == "not a K cache file at all");
    CHECK(fs::exists(cache / "0123456789abcdef0123456789abcdef.kcache.partial-99-abcdef"));
    CHECK_FALSE(fs::exists(cache / "fedcba9876543210fedcba9876543210.kcache.partial-98-abcdef"));
    ::close(fd);
}

TEST_CASE("a temporary file is created under a fresh name: a planted link is never written through",
          "[users-files]") {
    TempDir dir;
    writeFile(dir / "victim.txt", "precious");
    // Links at many names of the pattern: creation must never reuse one.
    for (int k = 0; k < 50; ++k) fs::create_symlink(dir / "victim.txt", dir / ("t.partial-" + std::to_string(k)));
    rsim::TempFile tmp(dir / "t");
    tmp.write("new");
    tmp.commit();
    CHECK(readFile(dir / "t") == "new");
    CHECK(readFile(dir / "victim.txt") == "precious");
    CHECK(rsim::isPartialName("t.partial-12-aB3dE9", "t"));
    CHECK_FALSE(rsim::isPartialName("t.partial-12", "t"));
    CHECK_FALSE(rsim::isPartialName("t.partial-x-aB3dE9", "t"));
}

TEST_CASE("rsim poses -o and rsim compare --json/--junit replace only their own earlier files",
          "[users-files][cli]") {
    TempDir dir;
    // The scene itself as -o: refused, the scene unchanged.
    fs::copy_file(kTinyRoom, dir / "scene.toml");
    fs::copy_file(fs::path(kTinyRoom).parent_path() / "room.obj", dir / "room.obj");
    const std::string scene = readFile(dir / "scene.toml");
    const CommandResult self = runRsim("poses " + q(dir / "scene.toml") + " --orbit 4 -o " + q(dir / "scene.toml"));
    CHECK(self.exitCode == 2);
    CHECK(self.output.find("input") != std::string::npos);
    CHECK(readFile(dir / "scene.toml") == scene);
    // A file of the user's, and a link: refused.
    writeFile(dir / "mine.csv", "name,x\n");
    CHECK(runRsim("poses " + q(dir / "scene.toml") + " --orbit 4 -o " + q(dir / "mine.csv")).exitCode == 2);
    CHECK(readFile(dir / "mine.csv") == "name,x\n");
    fs::create_symlink(dir / "mine.csv", dir / "link.csv");
    CHECK(runRsim("poses " + q(dir / "scene.toml") + " --orbit 4 -o " + q(dir / "link.csv")).exitCode == 2);
    CHECK(readFile(dir / "mine.csv") == "name,x\n");
    // rsim's words further down a file of the user's do not make it rsim's: the marker opens it.
    writeFile(dir / "notes.txt", "my notes\nabout poses\n# Written by `rsim poses`: orbit 4 of x\n");
    CHECK(runRsim("poses " + q(dir / "scene.toml") + " --orbit 4 -o " + q(dir / "notes.txt")).exitCode == 2);
    CHECK(readFile(dir / "notes.txt").rfind("my notes", 0) == 0);
    // Its own file it writes and replaces.
    REQUIRE(runRsim("poses " + q(dir / "scene.toml") + " --orbit 4 -o " + q(dir / "p.csv")).exitCode == 0);
    REQUIRE(runRsim("poses " + q(dir / "scene.toml") + " --orbit 6 -o " + q(dir / "p.csv")).exitCode == 0);
    CHECK(readFile(dir / "p.csv").find("orbit-005") != std::string::npos);

    // compare: the reports replace only their own.
    REQUIRE(run(dir / "r").exitCode == 0);
    const std::string compare = "compare " + q(dir / "r") + " " + q(dir / "r") + " ";
    CHECK(runRsim(compare + "--json " + q(dir / "mine.csv")).exitCode == 2);
    CHECK(runRsim(compare + "--junit " + q(dir / "link.csv")).exitCode == 2);
    CHECK(readFile(dir / "mine.csv") == "name,x\n");
    const std::string summary = readFile(dir / "r" / "summary.json");
    const CommandResult inside = runRsim(compare + "--json " + q(dir / "r" / "summary.json"));
    CHECK(inside.exitCode == 2);
    CHECK(readFile(dir / "r" / "summary.json") == summary);
    REQUIRE(runRsim(compare + "--json " + q(dir / "c.json") + " --junit " + q(dir / "c.xml")).exitCode == 0);
    REQUIRE(runRsim(compare + "--json " + q(dir / "c.json") + " --junit " + q(dir / "c.xml")).exitCode == 0);
    // Nothing half-written or temporary is left beside them.
    for (const auto& e : fs::directory_iterator(dir.path()))
        CHECK(e.path().filename().string().find(".partial-") == std::string::npos);
}

TEST_CASE("a mount point as --output is refused before any work", "[users-files][output]") {
    // rsim writes beside the output folder and renames into place, which a mount point does not
    // allow: the run used to do all its work and then fail. Needs a tmpfs mount (root).
    TempDir dir;
    fs::create_directories(dir / "mnt");
    if (runCommand("mount -t tmpfs -o size=4m tmpfs " + q(dir / "mnt")).exitCode != 0)
        SKIP("no tmpfs can be mounted here (not root, or no CAP_SYS_ADMIN)");
    const CommandResult r = run(dir / "mnt");
    runCommand("umount " + q(dir / "mnt"));
    CAPTURE(r.output);
    CHECK(r.exitCode == 2);
    CHECK(r.output.find("is a mount point") != std::string::npos);
    CHECK(r.output.find("visibility") == std::string::npos);
}
