// SPDX-License-Identifier: MIT
#include "util/owned_files.h"

#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <random>
#include <system_error>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/error.h"

namespace rsim {
namespace {

namespace fs = std::filesystem;

std::string systemError(int err) { return std::strerror(err); }

// `target` + ".partial-PID-XXXXXX" with six random letters and digits.
fs::path partialName(const fs::path& target) {
    static constexpr char kChars[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    thread_local std::mt19937_64 random{std::random_device{}()};
    std::uniform_int_distribution<int> pick(0, int(sizeof kChars) - 2);
    std::string suffix = ".partial-" + std::to_string(::getpid()) + "-";
    for (int k = 0; k < 6; ++k) suffix += kChars[pick(random)];
    fs::path p = target;
    p += suffix;
    return p;
}

// Creates a new file or folder under a fresh partial name of `target`: O_EXCL (and mkdir) fail
// on any existing name, a link included, so nothing planted there is ever followed. The mode
// is the usual one (0666 or 0777, less the umask), as a plain creation would give.
template <class Create> fs::path createExclusive(const fs::path& target, Create create, const char* what) {
    for (int attempt = 0; attempt < 64; ++attempt) {
        const fs::path p = partialName(target);
        if (create(p)) return p;
        if (errno != EEXIST)
            throw Error("cannot create " + std::string(what) + " " + p.string() + ": " + systemError(errno));
    }
    throw Error("cannot create " + std::string(what) + " beside " + target.string() + ": every name tried exists");
}

// Takes an exclusive lock on `fd`, waiting for a cleaner's momentary test lock. False where the
// file system has no locks (ENOLCK, ENOSYS, EOPNOTSUPP, EINVAL: NFS without a lock service,
// Lustre without flock): the writer then goes on unlocked, and nothing it leaves is ever judged
// abandoned, since a cleaner cannot take the lock either.
bool lockExclusive(int fd) {
    for (;;) {
        if (::flock(fd, LOCK_EX) == 0) return true;
        if (errno != EINTR) return false;
    }
}

// Whether nobody holds a lock on the open `fd`: a shared lock (enough on NFS, whose emulation of
// flock wants a file open for writing for an exclusive one) taken and dropped at once.
bool unlockedNow(int fd) { return ::flock(fd, LOCK_SH | LOCK_NB) == 0; }

// The running kernel's boot id: a lock that a file system keeps per node says nothing about a
// writer on another node, so a leftover is judged only on the machine that made it ("" when
// unknown: nothing is judged).
const std::string& bootId() {
    static const std::string id = [] {
        std::string text;
        if (std::FILE* f = std::fopen("/proc/sys/kernel/random/boot_id", "r")) {
            char buf[64] = {};
            if (std::fgets(buf, sizeof buf, f)) text = buf;
            std::fclose(f);
        }
        while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
        return text;
    }();
    return id;
}

// What a folder's owner writes into its lock file once it holds the lock.
std::string ownerRecord() { return "rsim " + std::to_string(::getpid()) + " " + bootId() + "\n"; }

} // namespace

TempFile::TempFile(const fs::path& target) : target_(target) {
    path_ = createExclusive(
        target,
        [this](const fs::path& p) {
            fd_ = ::open(p.c_str(), O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
            return fd_ >= 0;
        },
        "file");
    // Held while it is written: a later cleaner (abandonedFile) leaves a locked file alone. It is
    // empty until the first write, and a cleaner leaves empty files alone too, so the moment
    // between the creation and the lock is safe.
    lockExclusive(fd_);
}

TempFile::~TempFile() {
    if (fd_ >= 0) ::close(fd_);
    if (!path_.empty()) ::unlink(path_.c_str());
}

void TempFile::write(const void* data, std::size_t bytes) {
    const char* p = static_cast<const char*>(data);
    while (bytes > 0) {
        const ssize_t w = ::write(fd_, p, bytes);
        if (w < 0 && errno == EINTR) continue;
        if (w < 0) throw Error("writing " + path_.string() + " failed: " + systemError(errno));
        p += w;
        bytes -= std::size_t(w);
    }
}

void TempFile::commit() {
    // Renamed while still open (and locked), so that no cleaner takes it in between.
    if (::rename(path_.c_str(), target_.c_str()) != 0)
        throw Error("cannot put " + path_.string() + " in place as " + target_.string() + ": " + systemError(errno));
    path_.clear();
    const int fd = fd_;
    fd_ = -1;
    if (::close(fd) != 0) throw Error("writing " + target_.string() + " failed: " + systemError(errno));
}

TempDirectory::TempDirectory(const fs::path& target) {
    path_ = createExclusive(
        target, [](const fs::path& p) { return ::mkdir(p.c_str(), 0777) == 0; }, "folder");
    const fs::path lock = path_ / kLockName;
    lockFd_ = ::open(lock.c_str(), O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    const std::string record = ownerRecord();
    // The record goes in once the lock is held: a cleaner judges only a folder whose lock file
    // holds one (a record of this machine's boot), so the moment before the lock is safe.
    if (lockFd_ < 0 || (lockExclusive(lockFd_) && ::write(lockFd_, record.data(), record.size()) < 0)) {
        const int err = errno;
        if (lockFd_ >= 0) ::close(lockFd_);
        ::unlink(lock.c_str());
        ::rmdir(path_.c_str());
        throw Error("cannot create " + lock.string() + ": " + systemError(err));
    }
}

TempDirectory::~TempDirectory() {
    if (!released_) {
        std::error_code ec;
        fs::remove_all(path_, ec);
    }
    if (lockFd_ >= 0) ::close(lockFd_);
}

void TempDirectory::release() {
    ::unlink((path_ / kLockName).c_str());
    released_ = true;
}

bool isPartialName(const std::string& name, const std::string& base) {
    const std::string prefix = base + ".partial-";
    if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0) return false;
    const std::string rest = name.substr(prefix.size());
    const std::size_t dash = rest.find('-');
    if (dash == 0 || dash == std::string::npos || rest.size() - dash - 1 != 6) return false;
    for (std::size_t k = 0; k < dash; ++k)
        if (rest[k] < '0' || rest[k] > '9') return false;
    for (std::size_t k = dash + 1; k < rest.size(); ++k)
        if (!std::isalnum(static_cast<unsigned char>(rest[k]))) return false;
    return true;
}

bool abandonedFile(const fs::path& file, std::chrono::seconds olderThan) {
    struct stat st {};
    if (::lstat(file.c_str(), &st) != 0 || !S_ISREG(st.st_mode) || st.st_size == 0) return false;
    const auto age = std::chrono::system_clock::now() - std::chrono::system_clock::from_time_t(st.st_mtime);
    if (age < olderThan) return false;
    const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) return false;
    const bool free = unlockedNow(fd);
    ::close(fd);
    return free;
}

bool removeIfAbandonedDirectory(const fs::path& dir) {
    struct stat st {};
    if (::lstat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || bootId().empty()) return false;
    const fs::path lock = dir / TempDirectory::kLockName;
    const int fd = ::open(lock.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) return false;
    char buf[128] = {};
    const ssize_t got = ::read(fd, buf, sizeof buf - 1);
    const std::string record(buf, got > 0 ? std::size_t(got) : 0);
    // Its owner's record, of this machine's boot (a lock kept per node by the file system says
    // nothing about another node), and nobody holds the lock: the owner has ended.
    const std::size_t space = record.rfind(' ');
    const bool ours = record.rfind("rsim ", 0) == 0 && space != std::string::npos &&
                      record.substr(space + 1) == bootId() + "\n";
    const bool abandoned = ours && unlockedNow(fd);
    ::close(fd);
    if (!abandoned) return false;
    std::error_code ec;
    fs::remove_all(dir, ec);
    return !ec;
}

void checkReplaceableFile(const fs::path& target, const std::string& marker, const std::string& writer,
                          const std::vector<fs::path>& inputs, const std::string& advice) {
    if (target.empty()) throw InputError("the output file name is empty");
    struct stat st {};
    if (::lstat(target.c_str(), &st) != 0) {
        if (errno != ENOENT) throw InputError(target.string() + ": cannot be written: " + systemError(errno));
        const fs::path parent = target.has_parent_path() ? target.parent_path() : fs::path(".");
        std::error_code ec;
        if (!fs::is_directory(parent, ec))
            throw InputError(target.string() + ": cannot be written: its folder " + parent.string() + " does not exist");
        return;
    }
    if (S_ISLNK(st.st_mode))
        throw InputError(target.string() + ": is a symbolic link; rsim neither writes through links nor replaces "
                                           "them. Give the path of the file itself, or a new name");
    if (!S_ISREG(st.st_mode)) throw InputError(target.string() + ": exists and is not a regular file");
    for (const fs::path& input : inputs) {
        std::error_code ec;
        if (fs::equivalent(target, input, ec))
            throw InputError(target.string() + ": is an input of this command (" + input.string() +
                             "); refusing to overwrite it");
    }
    const int fd = ::open(target.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    std::string head(4096, '\0');
    ssize_t got = fd < 0 ? -1 : ::read(fd, head.data(), head.size());
    if (fd >= 0) ::close(fd);
    head.resize(got > 0 ? std::size_t(got) : 0);
    // The marker opens the file, or its second line (after an XML declaration, a JSON brace).
    const std::size_t secondLine = head.find('\n');
    const bool ours = head.compare(0, marker.size(), marker) == 0 ||
                      (secondLine != std::string::npos && head.compare(secondLine + 1, marker.size(), marker) == 0);
    if (!ours)
        throw InputError(target.string() + ": exists and was not written by `" + writer +
                         "`; refusing to overwrite it. " + advice);
}

void writeFileAtomically(const fs::path& target, const std::string& text) {
    TempFile tmp(target);
    tmp.write(text);
    tmp.commit();
}

} // namespace rsim
