// SPDX-License-Identifier: MIT
// Where a results directory goes, and how it is put there without touching anything of the
// user's (README.md, "What a run writes"; docs/reliability.md, "Files rsim writes").
#pragma once
#include <filesystem>
#include <functional>
#include <string>

namespace rsim {

// The folder `dir` names, as the system resolves it: symbolic links followed (a link to a
// folder means its target, so the link stays), ".." after a link taken as the system takes it.
// InputError, before any work, when it cannot be a results directory: an empty name, a link
// loop, a link that points nowhere, a name longer than the file system allows (with rsim's
// temporary suffix), or a mount point (rsim renames the results into place, which a mount
// point does not allow).
std::filesystem::path resolveOutputFolder(const std::filesystem::path& dir);

// Why the non-empty directory `dir` is not one rsim wrote, or "" when it is (its summary.json
// is rsim's and it holds only files of the output contract, or, a batch, its files and poses).
std::string notResultsBecause(const std::filesystem::path& dir);

// Throws InputError unless the resolved `dir` can become a results directory: it does not
// exist (and its nearest existing ancestor is a writable folder), is empty, or is a results
// directory rsim wrote.
void checkReplaceable(const std::filesystem::path& dir);

// Writes into a new locked sibling of the resolved `dir` with `write(tmp)`, then puts it in
// place: an atomic exchange with previous results where the file system offers one, else two
// renames. Removes abandoned siblings of earlier runs first (only rsim's, only when their
// writer has ended). Nothing is left behind when `write` throws.
void writeAtomically(const std::filesystem::path& dir, const std::function<void(const std::filesystem::path&)>& write);

} // namespace rsim
