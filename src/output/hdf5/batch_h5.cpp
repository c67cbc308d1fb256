// SPDX-License-Identifier: MIT
// batch.h5 (README.md, Output): a batch's poses, distances, signals and images with a leading
// pose axis.
#include <algorithm>
#include <string>
#include <vector>

#include "output/hdf5/h5_files.h"
#include "output/hdf5/h5_writer.h"

namespace rsim {

void writeBatchH5(const std::filesystem::path& file, const BatchCollector& batch) {
    using output::H5Id;
    const output::H5Writer h5(file.string());
    H5Id f = h5.createFile();
    const hsize_t P = batch.rows_.size();
    std::vector<std::string> names;
    for (const BatchPoseRow& r : batch.rows_) names.push_back(r.name);
    h5.strings(f.get(), "pose_names", names);
    std::vector<double> pose(P * 6);
    for (std::size_t p = 0; p < P; ++p) {
        const BatchPoseRow& r = batch.rows_[p];
        const double v[6] = {r.position.x, r.position.y, r.position.z, r.lookAt.x, r.lookAt.y, r.lookAt.z};
        std::copy(v, v + 6, &pose[p * 6]);
    }
    h5.writeAll(f.get(), "poses", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, {P, 6}, pose.data(), pose.size());
    h5.writeAll(f.get(), "distance", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, {P, hsize_t(batch.n_)}, batch.distance_.data(),
                batch.distance_.size());
    h5.writeAll(f.get(), "signal", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, {P, hsize_t(batch.T_)}, batch.signal_.data(),
                batch.signal_.size());
    if (batch.images_) {
        const std::vector<hsize_t> dims = {P, hsize_t(batch.height_), hsize_t(batch.width_)};
        h5.writeF32(f.get(), "depth", dims, batch.depth_);
        h5.writeF32(f.get(), "amplitude", dims, batch.amplitude_);
        h5.writeF32(f.get(), "depth_error", dims, batch.error_);
    }
    h5.attribute(f.get(), "layout",
                 "pose_names[P]; poses[P][6]: sensor position, look-at point (m); distance[P][N]: sensor "
                 "distance d_i by stable id (m, NaN: none); signal[P][T]: s_fwd(t); depth, amplitude, "
                 "depth_error[P][H][W] (m; row 0 at the top; NaN: none)");
    h5.check(f.close(), "H5Fclose");
}

} // namespace rsim
