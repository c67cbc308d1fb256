// SPDX-License-Identifier: MIT
// Files and folders rsim makes for itself beside the user's: written under names no one else
// can take over, locked while in use, and cleaned up only when rsim can prove they are its own
// and abandoned. The rules (docs/reliability.md, "Files rsim writes"):
// - a temporary name is created with O_CREAT | O_EXCL (mkstemp, mkdtemp): a file or symbolic
//   link planted at that name makes the creation fail instead of being written through;
// - while rsim writes it, the temporary holds a flock(2) lock; a later run removes a leftover
//   only when it can take that lock (the writer has ended, whatever PID namespace it ran in:
//   the lock is the kernel's, not a PID's), only names of rsim's pattern, and only leftovers of
//   this machine's current boot (a file system may keep locks per node) or old enough;
// - a file is put in place by rename(2), which never follows a link at the target.
#pragma once
#include <chrono>
#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

namespace rsim {

// A new file beside `target`, named TARGET.partial-PID-XXXXXX, exclusively created and locked.
// commit() puts it in place as `target` (rename); otherwise the destructor removes it.
class TempFile {
public:
    explicit TempFile(const std::filesystem::path& target);
    ~TempFile();
    TempFile(const TempFile&) = delete;
    TempFile& operator=(const TempFile&) = delete;

    const std::filesystem::path& path() const { return path_; }
    // Throws Error naming the temporary file and the system's reason (disk full, ...).
    void write(const void* data, std::size_t bytes);
    void write(const std::string& text) { write(text.data(), text.size()); }
    // Flushes, closes and renames onto the target. Throws Error on failure (nothing is left).
    void commit();

private:
    std::filesystem::path target_, path_;
    int fd_ = -1;
};

// The same, for a folder: DIR.partial-PID-XXXXXX, created with mkdtemp, with the lock file
// `kLockName` inside while it is written. release() removes the lock file (before the folder is
// renamed into place); the destructor removes the folder unless released.
class TempDirectory {
public:
    static constexpr const char* kLockName = ".rsim-writing";
    explicit TempDirectory(const std::filesystem::path& target);
    ~TempDirectory();
    TempDirectory(const TempDirectory&) = delete;
    TempDirectory& operator=(const TempDirectory&) = delete;

    const std::filesystem::path& path() const { return path_; }
    // The folder is about to become the results: its lock file goes (the lock itself is held
    // until the destructor), and the destructor no longer removes it.
    void release();

private:
    std::filesystem::path path_;
    int lockFd_ = -1;
    bool released_ = false;
};

// The suffix TempFile and TempDirectory add to a name: ".partial-" + PID + "-XXXXXX" (at most).
inline constexpr std::size_t kPartialSuffixBytes = 9 + 10 + 7;
// Whether `name` is `base` followed by such a suffix (".partial-1234-aB3dE9").
bool isPartialName(const std::string& name, const std::string& base);

// True when `file` (a TempFile's name) is a regular file, not a link, not empty, unchanged for
// `olderThan`, and nobody holds it locked: its writer has ended. Where the file system keeps
// locks per node, a writer on another node shows as unlocked: the age is what keeps its file.
bool abandonedFile(const std::filesystem::path& file, std::chrono::seconds olderThan);

// Removes `dir` (a folder, not a link) when it is an abandoned TempDirectory: its lock file holds
// its owner's record from this machine's current boot, and nobody holds the lock. A folder of
// another machine, or of a file system without locks, is never judged. Returns whether it
// removed it.
bool removeIfAbandonedDirectory(const std::filesystem::path& dir);

// Before a command writes `target`, a file the user named (`rsim poses -o`, `rsim compare
// --json`): InputError unless it does not exist yet (in an existing folder), or is a regular
// file that begins with `marker` (on its first or second line), which only `writer` writes (so
// it is rsim's own, from an earlier call). A link, a folder, any other file and each of `inputs` (the command's own
// input files) are refused with a message naming them.
// `advice` ends the message of a file that is not rsim's.
void checkReplaceableFile(const std::filesystem::path& target, const std::string& marker, const std::string& writer,
                          const std::vector<std::filesystem::path>& inputs = {},
                          const std::string& advice = "Choose another name, or remove it yourself");

// `text` written whole under a TempFile name and renamed onto `target`: a reader sees the old
// file or the new one, never half of one. Throws Error naming the file.
void writeFileAtomically(const std::filesystem::path& target, const std::string& text);

} // namespace rsim
