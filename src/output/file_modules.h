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

// Stops a run before its work when a module its output files need is missing. The modules are
// opened when the files are written, on the writers' threads: beside the devices' release
// (0.04 s), where it costs nothing. Opened earlier, on another thread while the devices were
// created or worked, they made runs slower, presumably by holding the dynamic loader's lock that
// the driver takes too (docs/benchmarks.md).
// A run writes HDF5 files with time series, K (timeseries.h5) or images (images.h5); a batch
// always (batch.h5). images.exr comes with the images.
inline void checkWriters(const OutputDesc& output, bool batch) {
    if (batch || output.timeseries || output.kij || output.images) modules::checkPresent("hdf5");
    if (output.images) modules::checkPresent("openexr");
}

} // namespace rsim
