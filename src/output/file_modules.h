// SPDX-License-Identifier: MIT
// The output files written by modules (util/modules.h): the HDF5 files (timeseries.h5,
// images.h5, batch.h5, and the check that a results directory's .h5 files read back) by
// rsim-hdf5.so, output/hdf5/; images.exr by rsim-openexr.so, output/openexr/.
#pragma once
#include <filesystem>
#include <future>

#include "output/batch_h5.h"
#include "output/results_writer.h"
#include "util/error.h"
#include "util/modules.h"

namespace rsim {

struct Hdf5Calls {
    // Whether the library may be called from several threads at once (Debian's is built so).
    bool (*threadSafe)();
    void (*writeTimeseries)(const std::filesystem::path& file, const ResultsView& view);
    void (*writeImages)(const std::filesystem::path& file, const ResultsView& view);
    // batch.h5 (output/batch_h5.h), once every pose's files are in the batch's folder.
    void (*writeBatch)(const std::filesystem::path& file, const BatchTables& tables);
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

// A run writes HDF5 files with time series, K (timeseries.h5) or images (images.h5); a batch
// always (batch.h5). images.exr comes with the images.
inline bool writesHdf5(const OutputDesc& output, bool batch) {
    return batch || output.timeseries || output.kij || output.images;
}

// Stops a run before its work when a module its output files need is missing.
inline void checkWriters(const OutputDesc& output, bool batch) {
    if (writesHdf5(output, batch)) modules::checkPresent("hdf5");
    if (output.images) modules::checkPresent("openexr");
}

// Opens the modules the output files need on a thread of its own; the future is ready when they
// are open. Called when the transport's time loop is under way (RunOptions::loopStarted), where
// the host mostly waits: opened beside the devices' creation or their first work, or as the
// transport set up its near lists, they made runs slower, presumably by holding the dynamic
// loader's or the kernel's memory-map lock that the driver takes too (docs/benchmarks.md at
// c8397db, "The binary without HDF5, OpenEXR and assimp linked"). A module that cannot be opened
// is reported by the writer that needs it.
inline std::future<void> openWriters(const OutputDesc& output, bool batch) {
#if defined(__SANITIZE_ADDRESS__)
    // Under the sanitizers (scripts/sanitize.sh) the writers open them, as before: with a thread
    // that had opened them and ended, LeakSanitizer's tracer crashed at the process's exit in 2
    // of 10 runs ("Tracer caught signal 11"), a fault of the sanitizer runtime, not of the run.
    (void)output;
    (void)batch;
    return {};
#else
    return std::async(std::launch::async, [hdf5Files = writesHdf5(output, batch), exr = output.images] {
        try {
            if (hdf5Files) hdf5();
            if (exr) openExr();
        } catch (const Error&) {
        }
    });
#endif
}

} // namespace rsim
