// SPDX-License-Identifier: MIT
// images.h5 (MODEL.md §8, "images.h5"): every per-pixel output as float or integer arrays
// [H][W] with row 0 at the top, ground truth beside the estimates, and the camera that made
// them, so that a depth pipeline can be scored without a ray caster of its own.
#include <cmath>
#include <optional>
#include <string>
#include <variant>


#include "output/hdf5/h5_writer.h"
#include "output/pixel_camera.h"
#include "output/pixel_images.h"
#include "output/output_util.h"
#include "output/hdf5/h5_files.h"
#include "output/results_writer.h"
#include "rsim/shared/pixel_outputs.h"

namespace rsim {

using output::H5Id;
using output::H5Writer;

namespace {

// The AMCW group's arrays that do not depend on the pixel, and what its arrays mean.
void writeAmcwMetadata(const H5Writer& h5, hid_t root, const ResultsView& view) {
    const SensorImage& img = view.result.image;
    const SimConfig& c = view.config;
    const std::size_t pixels = std::size_t(img.width) * img.height, F = img.phasor.size() / (2 * pixels), K = c.taps;
    H5Id g(h5.check(H5Gopen2(root, "amcw", H5P_DEFAULT), "H5Gopen2"), H5Gclose);
    std::vector<float> mhz(c.modulationMhz.begin(), c.modulationMhz.begin() + std::ptrdiff_t(F));
    h5.writeF32(g.get(), "frequencies_mhz", {hsize_t(F)}, mhz);
    std::vector<float> tapPhases(K);
    for (std::size_t k = 0; k < K; ++k) tapPhases[k] = shared::rsimTapPhase(std::uint32_t(k), std::uint32_t(K));
    h5.writeF32(g.get(), "tap_phases_rad", {hsize_t(K)}, tapPhases);
    h5.attribute(g.get(), "waveform", c.waveform == shared::RSIM_WAVEFORM_SQUARE ? "square" : "sinusoidal");
    h5.attribute(g.get(), "meaning",
                 "phasor[f] = sum_t s(t) exp(-i w_f t) as (re, im), w_f = 2 pi f dt, s the pixel's signal (the "
                 "transient); phase_rad = -arg(phasor) + the emitted pulse's phase, wrapped to [0, 2 pi) (the "
                 "estimator's phase: range = c phase / (4 pi f) for co-located light and sensor); amplitude = "
                 "|phasor|; taps[f][..][k] = sum_t s(t) g(w_f t / 2 pi - k / K) with g the waveform's correlation "
                 "(cos 2 pi x, or the triangle wave of two square waves); phase_from_taps_rad = atan2(sum_k taps_k "
                 "sin theta_k, sum_k taps_k cos theta_k) + the pulse's phase, wrapped (theta_k = tap_phases_rad). "
                 "MODEL.md section 8.");
    h5.check(g.close(), "H5Gclose");
}

// The sensor model's constants, as attributes of the noise group.
void writeNoiseMetadata(const H5Writer& h5, hid_t root, const SimConfig& c) {
    H5Id g(h5.check(H5Gopen2(root, "noise", H5P_DEFAULT), "H5Gopen2"), H5Gclose);
    const double perUnit = c.noise.electronsPerUnit, ambient = c.noise.ambientPerReadout, read = c.noise.readSigma;
    h5.attribute(g.get(), "electrons_per_unit_signal_on_axis", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &perUnit);
    h5.attribute(g.get(), "ambient_electrons_per_readout_on_axis_per_reflectance", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE,
                 &ambient);
    h5.attribute(g.get(), "read_noise_electrons_per_readout", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &read);
    h5.check(g.close(), "H5Gclose");
}

} // namespace

void writeImagesH5(const std::filesystem::path& file, const ResultsView& view) {
    const PreparedScene& ps = view.prepared;
    const SensorImage& img = view.result.image;
    const SimConfig& c = view.config;
    const std::size_t W = img.width, H = img.height;
    // Derived from a copy: the other writers read the image after this one.
    const std::vector<output::PixelArray> arrays = output::pixelArraysOf(img, c, ps);

    const H5Writer h5(file.string());
    H5Id f = h5.createFile();
    const hid_t root = f.get();
    h5.attribute(root, "rsim_version", view.info.version);
    h5.attribute(root, "conventions",
                 "Arrays are [row][column] = [y][x] with row 0 at the top of the image (depth.pfm stores the "
                 "bottom row first). Pixel (x, y) is seen along the ray from the sensor through its centre. "
                 "camera/K and camera/world_from_camera use OpenCV's camera frame (x right, y down, z "
                 "forward) with pixel centres at integer coordinates. NaN or -1: no value. MODEL.md §8.");
    for (const output::PixelArray& a : arrays) {
        const std::string name = a.name;
        const std::size_t slash = name.find('/');
        std::optional<H5Id> group; // "amcw/", "noise/"
        hid_t where = root;
        if (slash != std::string::npos) {
            const std::string g = name.substr(0, slash);
            if (H5Lexists(root, g.c_str(), H5P_DEFAULT) > 0)
                group.emplace(h5.check(H5Gopen2(root, g.c_str(), H5P_DEFAULT), "H5Gopen2"), H5Gclose);
            else
                group.emplace(h5.group(root, g.c_str()));
            where = group->get();
        }
        const std::string leaf = slash == std::string::npos ? name : name.substr(slash + 1);
        const std::vector<hsize_t> dims(a.shape.begin(), a.shape.end());
        if (const auto* v = std::get_if<std::vector<float>>(&a.values))
            h5.writeF32(where, leaf.c_str(), dims, *v);
        else {
            const auto& ints = std::get<std::vector<std::int32_t>>(a.values);
            h5.writeAll(where, leaf.c_str(), H5T_STD_I32LE, H5T_NATIVE_INT32, dims, ints.data(), ints.size());
        }
        if (a.units) h5.datasetAttribute(where, leaf.c_str(), "units", a.units);
        if (a.meaning) h5.datasetAttribute(where, leaf.c_str(), "meaning", a.meaning);
        if (group) h5.check(group->close(), "H5Gclose");
    }
    h5.strings(root, "mesh_names", ps.meshNames);
    h5.strings(root, "material_names", ps.materialNames);
    if (!img.phasor.empty()) writeAmcwMetadata(h5, root, view);
    if (c.noise.on) writeNoiseMetadata(h5, root, c);
    if (!img.transient.empty()) {
        const SimConfig::Transient& tr = c.transient;
        output::requireSize(img.transient.size(), std::size_t(tr.w) * tr.h * tr.bins, "transient");
        // Chunks of one image row, compressed on all cores (the transient cube is the largest file).
        H5Id ds = h5.dataset(root, "transient", H5T_IEEE_F32LE, {tr.h, tr.w, tr.bins}, 1);
        const std::size_t rowFloats = std::size_t(tr.w) * tr.bins;
        if (H5Zfilter_avail(H5Z_FILTER_DEFLATE) > 0)
            h5.writeChunks({{ds.get(), tr.h, rowFloats, 1, [&](std::size_t y, float* out) {
                                 std::copy_n(img.transient.begin() + std::ptrdiff_t(y * rowFloats), rowFloats, out);
                             }}});
        else
            h5.check(H5Dwrite(ds.get(), H5T_NATIVE_FLOAT, output::kAllOfSpace, output::kAllOfSpace, H5P_DEFAULT,
                              img.transient.data()),
                     "H5Dwrite");
        h5.check(ds.close(), "H5Dclose");
        h5.datasetAttribute(root, "transient", "units", "W m-2 per time bin");
        h5.datasetAttribute(root, "transient", "meaning",
                            "[y - y0][x - x0][t - start]: the pixel's signal s(t) (MODEL.md §6), for the pixels of "
                            "roi = (x0, y0, width, height) and the bins from start_bin");
        H5Id t(h5.check(H5Dopen2(root, "transient", H5P_DEFAULT), "H5Dopen2"), H5Dclose);
        const std::uint32_t roi[4] = {tr.x0, tr.y0, tr.w, tr.h};
        for (int k = 0; k < 4; ++k) {
            static const char* const names[4] = {"roi_x0", "roi_y0", "roi_width", "roi_height"};
            h5.attribute(t.get(), names[k], H5T_STD_U32LE, H5T_NATIVE_UINT32, &roi[k]);
        }
        h5.attribute(t.get(), "start_bin", H5T_STD_U32LE, H5T_NATIVE_UINT32, &tr.start);
        h5.attribute(t.get(), "dt_ns", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &c.dtNs);
        h5.check(t.close(), "H5Dclose");
    }

    // The camera: intrinsics and pose of the pinhole of shared::rsimPixelDirection.
    H5Id cam = h5.group(root, "camera");
    const shared::PinholeSensor& s = c.sensor;
    const auto K = output::cameraMatrix(c);
    const auto M = output::worldFromCamera(s);
    // float64, as `import rsim` returns them (a calibration's numbers keep their digits).
    h5.writeF64(cam.get(), "K", {3, 3}, std::vector<double>(K.begin(), K.end()));
    const auto D = output::distortionCoefficients(c);
    h5.writeF64(cam.get(), "distortion", {5}, std::vector<double>(D.begin(), D.end()));
    h5.writeF64(cam.get(), "world_from_camera", {4, 4}, std::vector<double>(M.begin(), M.end()));
    h5.writeF64(cam.get(), "position", {3}, {double(s.position.x), double(s.position.y), double(s.position.z)});
    h5.writeF64(cam.get(), "light_position", {3},
                {double(c.light.position.x), double(c.light.position.y), double(c.light.position.z)});
    const std::uint32_t width = std::uint32_t(W), height = std::uint32_t(H);
    h5.attribute(cam.get(), "width", H5T_STD_U32LE, H5T_NATIVE_UINT32, &width);
    h5.attribute(cam.get(), "height", H5T_STD_U32LE, H5T_NATIVE_UINT32, &height);
    const double fovH = 2.0 * std::atan(double(s.tanHalfFovH)) * 180.0 / M_PI,
                 fovV = 2.0 * std::atan(double(s.tanHalfFovV)) * 180.0 / M_PI;
    h5.attribute(cam.get(), "fov_h_deg", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &fovH);
    h5.attribute(cam.get(), "fov_v_deg", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &fovV);
    h5.check(cam.close(), "H5Gclose");
    h5.check(f.close(), "H5Fclose");
}

} // namespace rsim
