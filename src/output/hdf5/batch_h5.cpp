// SPDX-License-Identifier: MIT
// batch.h5 (output/batch_h5.h): the poses' pixel arrays written into their slices as the poses
// end, the tables when the batch ends.
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "output/hdf5/h5_files.h"
#include "output/hdf5/h5_writer.h"

namespace rsim {
namespace {

using output::H5Id;
using output::H5Writer;

// One array of batch.h5 with a leading pose axis: [P][shape...].
struct PoseSeries {
    H5Id dataset;
    std::vector<hsize_t> shape; // without the pose axis
    bool integer = false;
};

// The string attribute `key` of `obj`, or "" (images.h5 writes variable-length UTF-8).
std::string stringAttribute(hid_t obj, const char* key) {
    if (H5Aexists(obj, key) <= 0) return {};
    H5Id attr(H5Aopen(obj, key, H5P_DEFAULT), H5Aclose);
    H5Id type(H5Aget_type(attr.get()), H5Tclose);
    if (attr.get() < 0 || type.get() < 0 || H5Tis_variable_str(type.get()) <= 0) return {};
    char* text = nullptr;
    if (H5Aread(attr.get(), type.get(), &text) < 0 || !text) return {};
    std::string out = text;
    H5free_memory(text);
    return out;
}

class H5BatchFile final : public BatchH5 {
public:
    H5BatchFile(const std::filesystem::path& file, std::size_t poses)
        : h5_(file.string()), file_(h5_.createFile()), poses_(poses) {
        const int schema = 2;
        h5_.attribute(file_.get(), "schema", H5T_STD_I32LE, H5T_NATIVE_INT32, &schema);
        h5_.attribute(file_.get(), "conventions",
                      "Every array has a leading pose axis [P] in the order of pose_names. The arrays of a pose's "
                      "images.h5 keep their names, shapes (after the pose axis), units and meaning; "
                      "distance_m, true_distance_m [P][N] by stable triangle id and signal [P][T] are those of "
                      "`import rsim`'s run(). camera/K is shared; camera/world_from_camera [P][4][4], "
                      "camera/position and camera/light_position [P][3]. MODEL.md section 8.");
    }

    void addPose(std::size_t pose, const std::vector<output::PixelArray>& arrays) override {
        const std::lock_guard lock(mutex_);
        for (const output::PixelArray& a : arrays) {
            const bool integer = std::holds_alternative<std::vector<std::int32_t>>(a.values);
            const void* data = integer ? static_cast<const void*>(std::get<std::vector<std::int32_t>>(a.values).data())
                                       : static_cast<const void*>(std::get<std::vector<float>>(a.values).data());
            writeSlice(a.name, std::vector<hsize_t>(a.shape.begin(), a.shape.end()), integer, pose, data,
                       a.units ? a.units : "", a.meaning ? a.meaning : "");
        }
    }

    void addPoseFrom(std::size_t pose, const std::filesystem::path& imagesH5) override {
        const std::lock_guard lock(mutex_);
        // Without file locks, as every file rsim writes (a shared file system may have none).
        H5Id fapl(h5_.check(H5Pcreate(H5P_FILE_ACCESS), "H5Pcreate"), H5Pclose);
#if H5_VERSION_GE(1, 10, 7)
        h5_.check(H5Pset_file_locking(fapl.get(), false, true), "H5Pset_file_locking");
#endif
        H5Id f(h5_.check(H5Fopen(imagesH5.c_str(), H5F_ACC_RDONLY, fapl.get()), "H5Fopen"), H5Fclose);
        std::vector<std::string> names;
        h5_.check(H5Ovisit2(
            f.get(), H5_INDEX_NAME, H5_ITER_INC,
            [](hid_t, const char* name, const H5O_info_t* info, void* out) -> herr_t {
                if (info->type == H5O_TYPE_DATASET) static_cast<std::vector<std::string>*>(out)->push_back(name);
                return 0;
            },
            &names, H5O_INFO_BASIC), "H5Ovisit2");
        for (const std::string& name : names) {
            if (!isPixelArray(name)) continue;
            H5Id ds(h5_.check(H5Dopen2(f.get(), name.c_str(), H5P_DEFAULT), "H5Dopen2"), H5Dclose);
            H5Id space(h5_.check(H5Dget_space(ds.get()), "H5Dget_space"), H5Sclose);
            std::vector<hsize_t> shape(std::size_t(H5Sget_simple_extent_ndims(space.get())));
            H5Sget_simple_extent_dims(space.get(), shape.data(), nullptr);
            H5Id type(h5_.check(H5Dget_type(ds.get()), "H5Dget_type"), H5Tclose);
            const bool integer = H5Tget_class(type.get()) == H5T_INTEGER;
            std::size_t count = 1;
            for (hsize_t d : shape) count *= std::size_t(d);
            std::vector<std::uint32_t> buffer(count); // 4 bytes: float32 or int32
            h5_.check(H5Dread(ds.get(), integer ? H5T_NATIVE_INT32 : H5T_NATIVE_FLOAT, output::kAllOfSpace,
                              output::kAllOfSpace, H5P_DEFAULT, buffer.data()),
                      "H5Dread");
            writeSlice(name, shape, integer, pose, buffer.data(), stringAttribute(ds.get(), "units"),
                       stringAttribute(ds.get(), "meaning"));
        }
    }

    void finish(const BatchTables& t) override {
        const std::lock_guard lock(mutex_);
        const hid_t root = file_.get();
        const hsize_t P = t.names.size();
        h5_.strings(root, "pose_names", t.names);
        h5_.writeAll(root, "poses", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, {P, 6}, t.poses.data(), t.poses.size());
        const std::vector<hsize_t> perTriangle = {P, hsize_t(t.triangles)}, perStep = {P, hsize_t(t.timesteps)};
        h5_.writeF64(root, "distance_m", perTriangle, t.distance);
        h5_.datasetAttribute(root, "distance_m", "units", "m");
        h5_.writeF64(root, "true_distance_m", perTriangle, t.trueDistance);
        h5_.datasetAttribute(root, "true_distance_m", "units", "m");
        h5_.writeF64(root, "signal", perStep, t.signal);
        h5_.datasetAttribute(root, "signal", "meaning", "s_fwd(t), the sensor signal of MODEL.md section 5");
        {
            H5Id cam = h5_.group(root, "camera");
            h5_.writeF64(cam.get(), "K", {3, 3}, t.cameraK);
            h5_.writeF64(cam.get(), "world_from_camera", {P, 4, 4}, t.worldFromCamera);
            h5_.writeF64(cam.get(), "position", {P, 3}, t.cameraPosition);
            h5_.writeF64(cam.get(), "light_position", {P, 3}, t.lightPosition);
            h5_.check(cam.close(), "H5Gclose");
        }
        h5_.strings(root, "mesh_names", t.meshNames);
        h5_.strings(root, "material_names", t.materialNames);
        if (!t.frequenciesMhz.empty()) {
            H5Id amcw = groupOf("amcw");
            h5_.writeF32(amcw.get(), "frequencies_mhz", {hsize_t(t.frequenciesMhz.size())}, t.frequenciesMhz);
            h5_.writeF32(amcw.get(), "tap_phases_rad", {hsize_t(t.tapPhasesRad.size())}, t.tapPhasesRad);
            h5_.attribute(amcw.get(), "waveform", t.waveform);
            h5_.check(amcw.close(), "H5Gclose");
        }
        for (auto& [name, series] : series_) h5_.check(series.dataset.close(), "H5Dclose");
        series_.clear();
        h5_.check(file_.close(), "H5Fclose");
    }

private:
    // A pose's images.h5 holds these besides its pixel arrays; batch.h5 has them once, or not
    // (the transient stays in the poses' files: it can be large).
    static bool isPixelArray(const std::string& name) {
        return name.rfind("camera/", 0) != 0 && name != "mesh_names" && name != "material_names" && name != "transient" &&
               name != "amcw/frequencies_mhz" && name != "amcw/tap_phases_rad";
    }

    H5Id groupOf(const std::string& name) {
        if (H5Lexists(file_.get(), name.c_str(), H5P_DEFAULT) > 0)
            return H5Id(h5_.check(H5Gopen2(file_.get(), name.c_str(), H5P_DEFAULT), "H5Gopen2"), H5Gclose);
        return h5_.group(file_.get(), name.c_str());
    }

    // The series `name` ([P][shape]), created on first use.
    PoseSeries& series(const std::string& name, const std::vector<hsize_t>& shape, bool integer, const std::string& units,
                       const std::string& meaning) {
        if (auto it = series_.find(name); it != series_.end()) {
            if (it->second.shape != shape || it->second.integer != integer)
                throw Error(h5_.file() + ": pose arrays of \"" + name + "\" differ in shape or type between poses");
            return it->second;
        }
        const std::size_t slash = name.find('/');
        std::optional<H5Id> group;
        if (slash != std::string::npos) group.emplace(groupOf(name.substr(0, slash)));
        const hid_t where = group ? group->get() : file_.get();
        const std::string leaf = slash == std::string::npos ? name : name.substr(slash + 1);
        std::vector<hsize_t> dims = {hsize_t(poses_)};
        dims.insert(dims.end(), shape.begin(), shape.end());
        // Uncompressed, as in images.h5: a pose's slice is written as it ends, beside the
        // transport of the next poses, and deflating it would cost more than the write.
        H5Id ds = h5_.dataset(where, leaf.c_str(), integer ? H5T_STD_I32LE : H5T_IEEE_F32LE, dims);
        if (!units.empty()) h5_.attribute(ds.get(), "units", units);
        if (!meaning.empty()) h5_.attribute(ds.get(), "meaning", meaning);
        if (group) h5_.check(group->close(), "H5Gclose");
        return series_.emplace(name, PoseSeries{std::move(ds), shape, integer}).first->second;
    }

    void writeSlice(const std::string& name, const std::vector<hsize_t>& shape, bool integer, std::size_t pose,
                    const void* data, const std::string& units, const std::string& meaning) {
        if (pose >= poses_) throw Error(h5_.file() + ": pose " + std::to_string(pose) + " of a batch of " + std::to_string(poses_));
        PoseSeries& s = series(name, shape, integer, units, meaning);
        std::vector<hsize_t> start(shape.size() + 1, 0), count = {1};
        start[0] = hsize_t(pose);
        count.insert(count.end(), shape.begin(), shape.end());
        H5Id fileSpace(h5_.check(H5Dget_space(s.dataset.get()), "H5Dget_space"), H5Sclose);
        h5_.check(H5Sselect_hyperslab(fileSpace.get(), H5S_SELECT_SET, start.data(), nullptr, count.data(), nullptr),
                  "H5Sselect_hyperslab");
        H5Id memSpace = h5_.space(count);
        h5_.check(H5Dwrite(s.dataset.get(), integer ? H5T_NATIVE_INT32 : H5T_NATIVE_FLOAT, memSpace.get(),
                           fileSpace.get(), H5P_DEFAULT, data),
                  "H5Dwrite");
    }

    std::mutex mutex_;
    H5Writer h5_;
    H5Id file_;
    std::size_t poses_;
    std::map<std::string, PoseSeries> series_;
};

} // namespace

std::unique_ptr<BatchH5> openBatchH5(const std::filesystem::path& file, std::size_t poses) {
    return std::make_unique<H5BatchFile>(file, poses);
}

} // namespace rsim
