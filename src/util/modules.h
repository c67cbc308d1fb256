// SPDX-License-Identifier: MIT
// rsim's modules: the parts that need large libraries which a run loads but calls late or not
// at all (HDF5, whose network stack alone is some thirty shared libraries, and OpenEXR, for the
// output files; assimp, which only the mesh readers' child processes call). The rsim binary
// does not link them; each is a shared object beside it, rsim-NAME.so, which the process opens
// when it first needs one, so that a run does not pay their loading before main(). The test
// suite and the Python module link the same code instead; it then registers itself at start-up
// and no file is opened. docs/architecture.md, "Modules".
//
// A module's code registers a table of function pointers (its `Calls`, declared in the layer
// that uses them) with provide(); callers get it with calls<Calls>(name).
#pragma once
#include <string>

namespace rsim::modules {

// Called once by a module's code when it is loaded (or at start-up when it is linked in).
void provide(const std::string& name, const void* calls);

// The table module `name` provided: opens rsim-NAME.so beside the running binary on the first
// call (one thread opens it, the others wait). Throws Error naming the file and the reason when it
// cannot be opened.
const void* require(const std::string& name);

// Throws the Error that require() would throw if module `name` is neither linked in nor present
// as a file: for a run to stop before its work rather than when it writes its results.
void checkPresent(const std::string& name);

template <class Calls> const Calls& calls(const std::string& name) {
    return *static_cast<const Calls*>(require(name));
}

} // namespace rsim::modules
