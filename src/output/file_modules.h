// SPDX-License-Identifier: MIT
// The output files written by modules (util/modules.h): the HDF5 files (timeseries.h5,
// images.h5, batch.h5, and the check that a results directory's .h5 files read back) by
// rsim-hdf5.so, output/hdf5/; images.exr by rsim-openexr.so, output/openexr/.
#pragma once
#include <filesystem>

#include "output/results_writer.h"
#include "util/modules.h"

namespace rsim {

class BatchCollector;

struct Hdf5Calls {
    // Whether the library may be called from several threads at once (Debian's is built so).
    bool (*threadSafe)();
    void (*writeTimeseries)(const std::filesystem::path& file, const ResultsView& view);
    void (*writeImages)(const std::filesystem::path& file, const ResultsView& view);
    void (*writeBatch)(const std::filesystem::path& file, const BatchCollector& batch);
    // True when `file` opens as an HDF5 file and every dataset of its root group reads back
    // (a file cut short keeps its superblock; what it loses is its objects' headers).
    bool (*readable)(const std::filesystem::path& file);
};

struct OpenExrCalls {
    // `threads`: compressed on several threads (OpenEXR's pool), for a run's one directory.
    void (*writeImages)(const std::filesystem::path& file, const ResultsView& view, bool threads);
};

inline const Hdf5Calls& hdf5() { return modules::calls<Hdf5Calls>("hdf5"); }
inline const OpenExrCalls& openExr() { return modules::calls<OpenExrCalls>("openexr"); }

// Stops a run before its work when a module its output files need is missing.
inline void checkWriters(bool hdf5Files, bool exrFile) {
    if (hdf5Files) modules::checkPresent("hdf5");
    if (exrFile) modules::checkPresent("openexr");
}

// Opens the modules of the files a run will write on other threads, while it computes. Call
// once the devices exist (the driver's own libraries are loaded by then, which the loader's
// lock would otherwise make wait) and after the mesh readers' forks.
inline void preloadWriters(bool hdf5Files, bool exrFile) {
    if (hdf5Files) modules::preload("hdf5");
    if (exrFile) modules::preload("openexr");
}

} // namespace rsim
