// SPDX-License-Identifier: MIT
// images.h5 (MODEL.md §8, "images.h5"): every per-pixel output as float or integer arrays
// [H][W] with row 0 at the top, ground truth beside the estimates, and the camera that made
// them, so that a depth pipeline can be scored without a ray caster of its own.
#include <algorithm>
#include <cmath>
#include <limits>

#include <glm/geometric.hpp>

#include "distance/estimators.h"
#include "output/h5_writer.h"
#include "output/pixel_camera.h"
#include "output/output_util.h"
#include "output/results_writer.h"
#include "rsim/shared/pixel_outputs.h"
#include "rsim/shared/sensor_noise.h"

namespace rsim {

using output::H5Id;
using output::H5Writer;

namespace {

// images.h5's `amcw` group: per modulation frequency, the phasor, its phase and amplitude, the
// taps and the phase a K-tap camera computes from them, as [F][H][W](...) arrays.
void writeAmcw(const H5Writer& h5, hid_t root, const ResultsView& view) {
    const SensorImage& img = view.result.image;
    const SimConfig& c = view.config;
    const std::size_t pixels = std::size_t(img.width) * img.height, F = img.phasor.size() / (2 * pixels),
                      K = c.taps;
    output::requireSize(img.taps.size(), F * pixels * K, "taps");
    output::requireSize(img.tapsPhase.size(), F * pixels, "tapsPhase");
    const hsize_t hf = F, hh = img.height, hw = img.width, hk = K;
    std::vector<float> phase(F * pixels), amplitude(F * pixels);
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const AmcwOmegas w = amcwOmegas(c);
    auto noSignal = [](std::uint32_t) { return 0.0f; };
    auto pulse = [&c](std::uint32_t k) { return c.pulse[k]; };
    for (std::size_t f = 0; f < F; ++f) {
        // The emitted pulse's own phase, as the estimator adds it (rsimAmcwPath).
        const float pulsePhase = shared::rsimPulsePhase(std::uint32_t(c.pulse.size()),
                                                        f < 4 ? w.lo[int(f)] : w.hi[int(f - 4)], noSignal, pulse);
        for (std::size_t p = 0; p < pixels; ++p) {
            const float x = img.phasor[(f * pixels + p) * 2], y = img.phasor[(f * pixels + p) * 2 + 1];
            amplitude[f * pixels + p] = std::hypot(x, y);
            phase[f * pixels + p] =
                x == 0.0f && y == 0.0f ? nan : shared::rsimWrapPhase(-std::atan2(y, x) + pulsePhase);
        }
    }
    H5Id g = h5.group(root, "amcw");
    std::vector<float> mhz(c.modulationMhz.begin(), c.modulationMhz.begin() + std::ptrdiff_t(F));
    h5.writeF32(g.get(), "frequencies_mhz", {hf}, mhz);
    h5.writeF32(g.get(), "phasor", {hf, hh, hw, 2}, img.phasor);
    h5.writeF32(g.get(), "phase_rad", {hf, hh, hw}, phase);
    h5.writeF32(g.get(), "amplitude", {hf, hh, hw}, amplitude);
    h5.writeF32(g.get(), "taps", {hf, hh, hw, hk}, img.taps);
    h5.writeF32(g.get(), "phase_from_taps_rad", {hf, hh, hw}, img.tapsPhase);
    std::vector<float> tapPhases(K);
    for (std::size_t k = 0; k < K; ++k) tapPhases[k] = shared::rsimTapPhase(std::uint32_t(k), std::uint32_t(K));
    h5.writeF32(g.get(), "tap_phases_rad", {hk}, tapPhases);
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

// images.h5's `noise` group: the sensor model's estimate and its mean electrons per frame.
void writeNoise(const H5Writer& h5, hid_t root, const ResultsView& view) {
    const SensorImage& img = view.result.image;
    const SimConfig& c = view.config;
    const PreparedScene& ps = view.prepared;
    const std::size_t W = img.width, H = img.height, pixels = W * H;
    output::requireSize(img.noisyDepth.size(), pixels, "noisyDepth");
    std::vector<float> signal(pixels, 0.0f), ambient(pixels, 0.0f), error(pixels);
    for (std::size_t p = 0; p < pixels; ++p) {
        error[p] = img.noisyDepth[p] - img.trueDepth[p];
        if (img.triangle[p] < 0) continue;
        const glm::vec2 k = shared::rsimPixelElectrons(float(c.noise.electronsPerUnit), float(c.noise.ambientPerBin),
                                                       ps.reflectance[std::size_t(img.triangle[p])],
                                                       output::axisCosine(c, p));
        signal[p] = img.amplitude[p] * k.x;
        ambient[p] = k.y * float(c.timesteps);
    }
    const hsize_t hh = H, hw = W;
    H5Id g = h5.group(root, "noise");
    h5.writeF32(g.get(), "range_m", {hh, hw}, img.noisyDepth);
    h5.datasetAttribute(g.get(), "range_m", "meaning",
                        "the pixel's estimator on its signal as noisy electrons, bin by bin (MODEL.md section 8)");
    h5.writeF32(g.get(), "range_error_m", {hh, hw}, error);
    h5.writeF32(g.get(), "signal_electrons", {hh, hw}, signal);
    h5.datasetAttribute(g.get(), "signal_electrons", "meaning", "mean signal electrons of one frame (all bins)");
    h5.writeF32(g.get(), "ambient_electrons", {hh, hw}, ambient);
    h5.datasetAttribute(g.get(), "ambient_electrons", "meaning", "mean ambient electrons of one frame (all bins)");
    const double perUnit = c.noise.electronsPerUnit, perBin = c.noise.ambientPerBin, read = c.noise.readSigmaPerBin;
    h5.attribute(g.get(), "electrons_per_unit_signal_on_axis", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &perUnit);
    h5.attribute(g.get(), "ambient_electrons_per_bin_on_axis_per_reflectance", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &perBin);
    h5.attribute(g.get(), "read_noise_electrons_per_bin", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &read);
    h5.check(g.close(), "H5Gclose");
}

} // namespace

void writeImagesH5(const std::filesystem::path& file, const ResultsView& view) {
    const PreparedScene& ps = view.prepared;
    const SensorImage& img = view.result.image;
    const SimConfig& c = view.config;
    const std::size_t W = img.width, H = img.height, pixels = W * H;
    for (auto [v, name] : {std::pair{&img.depth, "depth"}, {&img.trueDepth, "trueDepth"},
                           {&img.directDepth, "directDepth"}, {&img.amplitude, "amplitude"}})
        output::requireSize(v->size(), pixels, name);
    output::requireSize(img.triangle.size(), pixels, "triangle");
    output::requireSize(ps.materialOfId.size(), ps.size(), "materialOfId");

    const float nan = std::numeric_limits<float>::quiet_NaN();
    std::vector<float> rangeError(pixels), normal(3 * pixels, nan);
    std::vector<std::int32_t> triangle(pixels, -1), mesh(pixels, -1), material(pixels, -1);
    for (std::size_t p = 0; p < pixels; ++p) {
        rangeError[p] = img.depth[p] - img.trueDepth[p];
        if (img.triangle[p] < 0) continue;
        const std::size_t i = std::size_t(img.triangle[p]);
        const std::uint32_t id = ps.id[i];
        triangle[p] = std::int32_t(id);
        mesh[p] = std::int32_t(ps.sourceMeshOfId[id]);
        material[p] = std::int32_t(ps.materialOfId[id]);
        for (int k = 0; k < 3; ++k) normal[3 * p + std::size_t(k)] = ps.normal[i][k];
    }

    const H5Writer h5(file.string());
    H5Id f = h5.createFile();
    const hid_t root = f.get();
    const hsize_t hh = H, hw = W;
    h5.attribute(root, "rsim_version", view.info.version);
    h5.attribute(root, "conventions",
                 "Arrays are [row][column] = [y][x] with row 0 at the top of the image (depth.pfm stores the "
                 "bottom row first). Pixel (x, y) is seen along the ray from the sensor through its centre. "
                 "camera/K and camera/world_from_camera use OpenCV's camera frame (x right, y down, z "
                 "forward) with pixel centres at integer coordinates. NaN or -1: no value. MODEL.md §8.");
    auto f32 = [&](const char* name, const std::vector<float>& v, const char* units, const char* meaning) {
        h5.writeF32(root, name, {hh, hw}, v);
        h5.datasetAttribute(root, name, "units", units);
        h5.datasetAttribute(root, name, "meaning", meaning);
    };
    auto i32 = [&](const char* name, const std::vector<std::int32_t>& v, const char* meaning) {
        h5.writeAll(root, name, H5T_STD_I32LE, H5T_NATIVE_INT32, {hh, hw}, v.data(), v.size());
        h5.datasetAttribute(root, name, "meaning", meaning);
    };
    f32("range_m", img.depth, "m", "estimated distance from the sensor along the pixel's ray (depth.pfm)");
    f32("range_true_m", img.trueDepth, "m", "distance from the sensor to the first surface the pixel's ray hits");
    f32("range_error_m", rangeError, "m", "range_m - range_true_m");
    f32("range_direct_m", img.directDepth, "m",
        "the same estimator on the pixel's direct signal alone (no multipath): range_m - range_direct_m is "
        "the multipath error, range_direct_m - range_true_m the estimator's own");
    f32("z_depth_m", output::alongAxis(img.depth, c), "m", "range_m projected on the optical axis (camera z)");
    f32("z_depth_true_m", output::alongAxis(img.trueDepth, c), "m", "range_true_m projected on the optical axis (camera z)");
    f32("amplitude", img.amplitude, "W m-2 (summed over the time bins)", "sum over t of the pixel's signal");
    i32("triangle_id", triangle, "id of the triangle seen (triangles.csv), -1: none");
    i32("mesh_id", mesh, "index into mesh_names of the triangle seen, -1: none");
    i32("material_id", material, "index into material_names of the triangle seen, -1: none");
    h5.writeF32(root, "normal", {hh, hw, 3}, normal);
    h5.datasetAttribute(root, "normal", "meaning",
                        "unit front-side normal of the triangle seen, world frame (pointing away from the sensor: "
                        "the back of a one-sided surface)");
    h5.strings(root, "mesh_names", ps.meshNames);
    h5.strings(root, "material_names", ps.materialNames);
    if (!img.phasor.empty()) writeAmcw(h5, root, view);
    if (c.noise.on) writeNoise(h5, root, view);
    if (!img.transient.empty()) {
        const SimConfig::Transient& tr = c.transient;
        output::requireSize(img.transient.size(), std::size_t(tr.w) * tr.h * tr.bins, "transient");
        // Chunks of one image row, compressed on all cores (the transient cube is the largest file).
        H5Id ds = h5.dataset(root, "transient", H5T_IEEE_F32LE, {tr.h, tr.w, tr.bins}, 1);
        const std::size_t rowFloats = std::size_t(tr.w) * tr.bins;
        if (H5Zfilter_avail(H5Z_FILTER_DEFLATE) > 0)
            h5.writeCompressedChunks(ds.get(), tr.h, rowFloats, 1, [&](std::size_t y, float* out) {
                std::copy_n(img.transient.begin() + std::ptrdiff_t(y * rowFloats), rowFloats, out);
            });
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
    h5.writeF32(cam.get(), "K", {3, 3}, std::vector<float>(K.begin(), K.end()));
    h5.writeF32(cam.get(), "world_from_camera", {4, 4}, std::vector<float>(M.begin(), M.end()));
    h5.writeF32(cam.get(), "position", {3}, {s.position.x, s.position.y, s.position.z});
    h5.writeF32(cam.get(), "light_position", {3}, {c.light.position.x, c.light.position.y, c.light.position.z});
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
