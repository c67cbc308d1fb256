// SPDX-License-Identifier: MIT
// batch.h5 (README.md, "What a run writes"): a batch's poses with a leading pose axis, under the
// names a pose's images.h5 and `import rsim`'s run() use, so that one reader serves all three.
// Every per-pixel array of images.h5 is a virtual dataset [P][...] over the poses' own images.h5
// (HDF5's virtual datasets, read like any other by h5py and HDF5 1.10 on): batch.h5 adds no copy
// of the images and costs the batch nothing as its poses end. Its tables (names, poses, cameras,
// per triangle and per step) are its own.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

namespace rsim {

// What batch.h5 holds besides the views of the poses' images, for every pose (P) of the batch.
struct BatchTables {
    std::vector<std::string> names;                    // [P]: each pose's folder beside batch.h5
    std::vector<double> poses;                         // [P][6]: sensor position, look-at point
    std::size_t triangles = 0, timesteps = 0;          // N, T
    std::vector<double> distance, trueDistance;        // [P][N] by stable id (m; NaN: none)
    std::vector<double> signal;                        // [P][T]: s_fwd(t)
    std::vector<double> cameraK;                       // [3][3], the same for every pose
    std::vector<double> cameraDistortion;              // [5], the same for every pose
    std::vector<double> worldFromCamera;               // [P][4][4]
    std::vector<double> cameraPosition, lightPosition; // [P][3]
    std::vector<std::string> meshNames, materialNames;
    bool images = false; // the poses wrote images.h5: batch.h5 views their arrays
};

} // namespace rsim
