// SPDX-License-Identifier: MIT
// Registers the HDF5 module's calls (util/modules.h): when rsim-hdf5.so is opened, or at
// start-up where this code is linked in.
#include "output/file_modules.h"
#include "output/hdf5/h5_files.h"
#include "output/hdf5/h5_writer.h"

namespace rsim {
namespace {

const Hdf5Calls kCalls{&output::hdf5ThreadSafe, &writeTimeseriesH5, &writeImagesH5, &writeBatchH5, &readableHdf5};
// HDF5 closes the files still open at the process's exit (an atexit handler). A file whose
// writing failed (disk full) stays half-closed in the library, and closing it again there
// crashes or reports an "infinite loop closing library". Every file rsim writes is closed, and
// its close checked, before the writer returns, so the handler has nothing to do on success:
// it is not installed. (Where the library is already in use, e.g. by h5py, this does nothing.)
const bool kProvided = (H5dont_atexit(), modules::provide("hdf5", &kCalls), true);

} // namespace
} // namespace rsim
