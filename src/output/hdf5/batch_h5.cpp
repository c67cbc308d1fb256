// SPDX-License-Identifier: MIT
// batch.h5 (output/batch_h5.h): its tables, and a virtual dataset over the poses' images.h5 for
// every per-pixel array of the first pose's.
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "output/hdf5/h5_files.h"
#include "output/hdf5/h5_writer.h"

namespace rsim {
namespace {

using output::H5Id;
using output::H5Writer;

// A per-pixel array of images.h5, as the first pose's file has it.
struct PixelSeries {
    std::string name; // its path there ("range_m", "amcw/phasor")
    std::vector<hsize_t> shape;
    bool integer = false;
    std::string units, meaning;
};

// A pose's images.h5 holds these besides its pixel arrays; batch.h5 has them once, or not
// (the transient is not viewed: its region and bins are attributes of each pose's file).
bool isPixelArray(const std::string& name) {
    return name.rfind("camera/", 0) != 0 && name != "mesh_names" && name != "material_names" && name != "transient" &&
           name != "amcw/frequencies_mhz" && name != "amcw/tap_phases_rad";
}

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

// File access without HDF5's file locks, as every file rsim writes (a shared file system may
// have none).
H5Id unlockedAccess(const H5Writer& h5) {
    H5Id fapl(h5.check(H5Pcreate(H5P_FILE_ACCESS), "H5Pcreate"), H5Pclose);
#if H5_VERSION_GE(1, 10, 7)
    h5.check(H5Pset_file_locking(fapl.get(), false, true), "H5Pset_file_locking");
#endif
    return fapl;
}

// The per-pixel arrays of `imagesH5`, with their shapes, types and units.
std::vector<PixelSeries> pixelSeriesOf(const H5Writer& h5, const std::filesystem::path& imagesH5) {
    H5Id fapl = unlockedAccess(h5);
    H5Id f(h5.check(H5Fopen(imagesH5.c_str(), H5F_ACC_RDONLY, fapl.get()), "H5Fopen"), H5Fclose);
    std::vector<std::string> names;
    h5.check(H5Ovisit2(
                 f.get(), H5_INDEX_NAME, H5_ITER_INC,
                 [](hid_t, const char* name, const H5O_info_t* info, void* out) -> herr_t {
                     if (info->type == H5O_TYPE_DATASET) static_cast<std::vector<std::string>*>(out)->push_back(name);
                     return 0;
                 },
                 &names, H5O_INFO_BASIC),
             "H5Ovisit2");
    std::vector<PixelSeries> out;
    for (const std::string& name : names) {
        if (!isPixelArray(name)) continue;
        H5Id ds(h5.check(H5Dopen2(f.get(), name.c_str(), H5P_DEFAULT), "H5Dopen2"), H5Dclose);
        H5Id space(h5.check(H5Dget_space(ds.get()), "H5Dget_space"), H5Sclose);
        PixelSeries s;
        s.name = name;
        s.shape.resize(std::size_t(H5Sget_simple_extent_ndims(space.get())));
        H5Sget_simple_extent_dims(space.get(), s.shape.data(), nullptr);
        H5Id type(h5.check(H5Dget_type(ds.get()), "H5Dget_type"), H5Tclose);
        s.integer = H5Tget_class(type.get()) == H5T_INTEGER;
        s.units = stringAttribute(ds.get(), "units");
        s.meaning = stringAttribute(ds.get(), "meaning");
        out.push_back(std::move(s));
    }
    return out;
}

H5Id groupOf(const H5Writer& h5, hid_t root, const std::string& name) {
    if (H5Lexists(root, name.c_str(), H5P_DEFAULT) > 0)
        return H5Id(h5.check(H5Gopen2(root, name.c_str(), H5P_DEFAULT), "H5Gopen2"), H5Gclose);
    return h5.group(root, name.c_str());
}

// `s` over every pose: slice p is POSE/images.h5's dataset of the same name, found relative to
// batch.h5's folder. A slice whose file is missing reads as NaN (-1 for integers).
void writeVirtualSeries(const H5Writer& h5, hid_t root, const PixelSeries& s, const std::vector<std::string>& poses) {
    const hsize_t P = poses.size();
    std::vector<hsize_t> dims = {P};
    dims.insert(dims.end(), s.shape.begin(), s.shape.end());
    H5Id space = h5.space(dims), source = h5.space(s.shape);
    H5Id dcpl(h5.check(H5Pcreate(H5P_DATASET_CREATE), "H5Pcreate"), H5Pclose);
    const hid_t fileType = s.integer ? H5T_STD_I32LE : H5T_IEEE_F32LE;
    if (s.integer) {
        const std::int32_t none = -1;
        h5.check(H5Pset_fill_value(dcpl.get(), H5T_NATIVE_INT32, &none), "H5Pset_fill_value");
    } else {
        const float none = std::numeric_limits<float>::quiet_NaN();
        h5.check(H5Pset_fill_value(dcpl.get(), H5T_NATIVE_FLOAT, &none), "H5Pset_fill_value");
    }
    std::vector<hsize_t> start(dims.size(), 0), count = dims;
    count[0] = 1;
    for (hsize_t p = 0; p < P; ++p) {
        start[0] = p;
        h5.check(H5Sselect_hyperslab(space.get(), H5S_SELECT_SET, start.data(), nullptr, count.data(), nullptr),
                 "H5Sselect_hyperslab");
        const std::string file = poses[std::size_t(p)] + "/images.h5", path = "/" + s.name;
        h5.check(H5Pset_virtual(dcpl.get(), space.get(), file.c_str(), path.c_str(), source.get()), "H5Pset_virtual");
    }
    h5.check(H5Sselect_all(space.get()), "H5Sselect_all");
    const std::size_t slash = s.name.find('/');
    std::optional<H5Id> group;
    if (slash != std::string::npos) group.emplace(groupOf(h5, root, s.name.substr(0, slash)));
    const hid_t where = group ? group->get() : root;
    const std::string leaf = slash == std::string::npos ? s.name : s.name.substr(slash + 1);
    H5Id ds(h5.check(H5Dcreate2(where, leaf.c_str(), fileType, space.get(), H5P_DEFAULT, dcpl.get(), H5P_DEFAULT),
                     "H5Dcreate2"),
            H5Dclose);
    if (!s.units.empty()) h5.attribute(ds.get(), "units", s.units);
    if (!s.meaning.empty()) h5.attribute(ds.get(), "meaning", s.meaning);
    h5.check(ds.close(), "H5Dclose");
    if (group) h5.check(group->close(), "H5Gclose");
}

void writeTables(const H5Writer& h5, hid_t root, const BatchTables& t) {
    const hsize_t P = t.names.size();
    h5.strings(root, "pose_names", t.names);
    h5.writeAll(root, "poses", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, {P, 6}, t.poses.data(), t.poses.size());
    const std::vector<hsize_t> perTriangle = {P, hsize_t(t.triangles)}, perStep = {P, hsize_t(t.timesteps)};
    h5.writeF64(root, "distance_m", perTriangle, t.distance);
    h5.datasetAttribute(root, "distance_m", "units", "m");
    h5.writeF64(root, "true_distance_m", perTriangle, t.trueDistance);
    h5.datasetAttribute(root, "true_distance_m", "units", "m");
    h5.writeF64(root, "signal", perStep, t.signal);
    h5.datasetAttribute(root, "signal", "meaning", "s_fwd(t), the sensor signal of MODEL.md section 5");
    H5Id cam = h5.group(root, "camera");
    h5.writeF64(cam.get(), "K", {3, 3}, t.cameraK);
    h5.writeF64(cam.get(), "distortion", {5}, t.cameraDistortion);
    h5.writeF64(cam.get(), "world_from_camera", {P, 4, 4}, t.worldFromCamera);
    h5.writeF64(cam.get(), "position", {P, 3}, t.cameraPosition);
    h5.writeF64(cam.get(), "light_position", {P, 3}, t.lightPosition);
    h5.check(cam.close(), "H5Gclose");
    h5.strings(root, "mesh_names", t.meshNames);
    h5.strings(root, "material_names", t.materialNames);
}

} // namespace

void writeBatchH5(const std::filesystem::path& file, const BatchTables& t) {
    const H5Writer h5(file.string());
    H5Id f = h5.createFile();
    const hid_t root = f.get();
    const int schema = 2;
    h5.attribute(root, "schema", H5T_STD_I32LE, H5T_NATIVE_INT32, &schema);
    h5.attribute(root, "conventions",
                 "Every array has a leading pose axis [P] in the order of pose_names. The arrays of a pose's "
                 "images.h5 keep their names, shapes (after the pose axis), units and meaning: they are HDF5 "
                 "virtual datasets over the poses' own images.h5 (POSE/images.h5 beside this file; move the "
                 "batch's folder whole). distance_m, true_distance_m [P][N] by stable triangle id and signal "
                 "[P][T] are those of `import rsim`'s run(). camera/K and camera/distortion are shared; camera/world_from_camera "
                 "[P][4][4], camera/position and camera/light_position [P][3]. MODEL.md section 8.");
    writeTables(h5, root, t);
    if (t.images && !t.names.empty()) {
        const std::filesystem::path folder = file.parent_path();
        // The first pose's file names the arrays; the AMCW group's per-frequency tables come
        // from it too (they are the same for every pose).
        for (const PixelSeries& s : pixelSeriesOf(h5, folder / t.names.front() / "images.h5"))
            writeVirtualSeries(h5, root, s, t.names);
        H5Id fapl = unlockedAccess(h5);
        H5Id first(h5.check(H5Fopen((folder / t.names.front() / "images.h5").c_str(), H5F_ACC_RDONLY, fapl.get()),
                            "H5Fopen"),
                   H5Fclose);
        for (const char* table : {"amcw/frequencies_mhz", "amcw/tap_phases_rad"})
            if (H5Lexists(first.get(), "amcw", H5P_DEFAULT) > 0 && H5Lexists(first.get(), table, H5P_DEFAULT) > 0)
                h5.check(H5Ocopy(first.get(), table, root, table, H5P_DEFAULT, H5P_DEFAULT), "H5Ocopy");
        h5.check(first.close(), "H5Fclose");
    }
    h5.check(f.close(), "H5Fclose");
}

} // namespace rsim
