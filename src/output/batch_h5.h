// SPDX-License-Identifier: MIT
// batch.h5 (README.md, "What a run writes"): a batch's poses with a leading pose axis, under the
// names a pose's images.h5 and `import rsim`'s run() use, so that one reader serves all three:
// every per-pixel array of images.h5 [P][...] with its units, the cameras, and per triangle
// and time step what run() returns. Written pose by pose as the poses end, so that a batch of
// thousands holds one pose's images at a time; the rest when the batch ends.
#pragma once
#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

#include "output/pixel_images.h"

namespace rsim {

// What batch.h5 holds besides the pixel arrays, for every pose (P) of the batch.
struct BatchTables {
    std::vector<std::string> names;                   // [P]
    std::vector<double> poses;                        // [P][6]: sensor position, look-at point
    std::size_t triangles = 0, timesteps = 0;         // N, T
    std::vector<double> distance, trueDistance;       // [P][N] by stable id (m; NaN: none)
    std::vector<double> signal;                       // [P][T]: s_fwd(t)
    std::vector<double> cameraK;                      // [3][3], the same for every pose
    std::vector<double> worldFromCamera;              // [P][4][4]
    std::vector<double> cameraPosition, lightPosition; // [P][3]
    std::vector<std::string> meshNames, materialNames;
    std::vector<float> frequenciesMhz, tapPhasesRad;  // AMCW (empty otherwise)
    std::string waveform;
};

class BatchH5 {
public:
    virtual ~BatchH5() = default;
    // Pose `pose`'s pixel arrays (output/pixel_images.h), each into its slice of the array of
    // its name, created with the first pose's shape. Safe from several threads at once.
    virtual void addPose(std::size_t pose, const std::vector<output::PixelArray>& arrays) = 0;
    // The same from the pose's images.h5 (another MPI rank wrote it).
    virtual void addPoseFrom(std::size_t pose, const std::filesystem::path& imagesH5) = 0;
    // The tables, then the file is closed; errors are thrown (rsim::Error naming the file).
    virtual void finish(const BatchTables& tables) = 0;
};

} // namespace rsim
