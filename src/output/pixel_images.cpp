// SPDX-License-Identifier: MIT
#include "output/pixel_images.h"

#include <cmath>
#include <limits>
#include <utility>

#include "distance/cpu_distance.h"
#include "output/output_util.h"
#include "output/pixel_camera.h"
#include "rsim/shared/pixel_outputs.h"
#include "rsim/shared/sensor_noise.h"

namespace rsim::output {
namespace {

// AMCW, per modulation frequency: the phasor's phase (the estimator's, with the emitted
// pulse's own phase) and its modulus, [F][pixels].
void addAmcw(std::vector<PixelArray>& out, SensorImage& img, const SimConfig& c) {
    const std::uint64_t H = img.height, W = img.width, pixels = H * W, F = img.phasor.size() / (2 * pixels),
                        K = c.taps;
    requireSize(img.taps.size(), F * pixels * K, "taps");
    requireSize(img.tapsPhase.size(), F * pixels, "tapsPhase");
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
    out.push_back({"amcw/phasor", {F, H, W, 2}, std::move(img.phasor)});
    out.push_back({"amcw/phase_rad", {F, H, W}, std::move(phase)});
    out.push_back({"amcw/amplitude", {F, H, W}, std::move(amplitude)});
    out.push_back({"amcw/taps", {F, H, W, K}, std::move(img.taps)});
    out.push_back({"amcw/phase_from_taps_rad", {F, H, W}, std::move(img.tapsPhase)});
}

// AMCW, per modulation frequency: the range of the taps' phase (MODEL.md §8).
void addTapsRanges(std::vector<PixelArray>& out, SensorImage& img) {
    const std::uint64_t H = img.height, W = img.width, F = img.readout.tapsRange.size() / (H * W);
    out.push_back({"amcw/range_from_taps_m", {F, H, W}, std::move(img.readout.tapsRange), "m",
                   "the range of phase_from_taps_rad: the path c phase / w seen by the pixel, modulo the "
                   "frequency's ambiguity (square waves' wiggling included)"});
}

// A gated camera's raw gates and the pixels whose echo came after the gates' range.
void addGated(std::vector<PixelArray>& out, SensorImage& img) {
    const std::uint64_t H = img.height, W = img.width, G = img.gates.size() / (H * W);
    out.push_back({"gated/gates", {G, H, W}, std::move(img.gates), "W m-2 (summed over the gate's time bins)",
                   "gate k's sum of the pixel's signal over bins [start + k W, start + (k + 1) W), noise-free"});
    out.push_back({"gated/out_of_range", {H, W}, std::move(img.readout.outOfRangeMask), nullptr,
                   "1 where the echo came after the gates' range (the pair's first gate empty): range_m is NaN"});
}

// The sensor model: the raw data as noisy electrons (taps, gates), the estimate from noisy
// electrons, its error, and the mean electrons of a frame (signal) and of a readout (ambient).
void addNoise(std::vector<PixelArray>& out, SensorImage& img, const SimConfig& c) {
    const std::uint64_t H = img.height, W = img.width, pixels = H * W;
    CameraReadout& r = img.readout;
    requireSize(img.noisyDepth.size(), pixels, "noisyDepth");
    requireSize(r.electronsPerUnit.size(), pixels, "electronsPerUnit");
    std::vector<float> signal(pixels, 0.0f), error(pixels);
    for (std::size_t p = 0; p < pixels; ++p) {
        error[p] = img.noisyDepth[p] - img.trueDepth[p];
        signal[p] = img.amplitude[p] * r.electronsPerUnit[p];
    }
    out.push_back({"noise/range_m", {H, W}, std::move(img.noisyDepth), "m",
                   c.mode == SensorMode::Amcw    ? "the pixel's estimator from the noisy taps (noise/taps), unwrapped "
                                                   "over the frequencies (MODEL.md section 8)"
                   : c.mode == SensorMode::Gated ? "the pixel's estimator from the noisy gates (noise/gates) "
                                                   "(MODEL.md section 8)"
                                                 : "the pixel's estimator on its histogram of noisy electrons, bin by "
                                                   "bin (MODEL.md section 8)"});
    out.push_back({"noise/range_error_m", {H, W}, std::move(error), "m", "noise/range_m - range_true_m"});
    out.push_back({"noise/signal_electrons", {H, W}, std::move(signal), nullptr,
                   "mean signal electrons of one frame (all bins)"});
    out.push_back({"noise/ambient_electrons", {H, W}, std::move(r.ambientElectrons), nullptr,
                   "mean ambient electrons of one readout: a histogram bin (pulsed), a gate (gated), a tap's "
                   "exposure (AMCW)"});
    out.push_back({"noise/electrons_per_unit", {H, W}, std::move(r.electronsPerUnit), nullptr,
                   "electrons of one frame per unit of the pixel's signal (W m-2 per bin): amcw/taps and "
                   "gated/gates times it are the noise-free electrons"});
    if (!r.noisyTaps.empty()) {
        const std::uint64_t F = r.noisyTapsRange.size() / pixels, K = c.taps;
        out.push_back({"noise/taps", {F, H, W, K}, std::move(r.noisyTaps), "electrons",
                       "each tap as a difference of two noisy buckets: its mean is amcw/taps x electrons_per_unit"});
        out.push_back({"noise/range_from_taps_m", {F, H, W}, std::move(r.noisyTapsRange), "m",
                       "amcw/range_from_taps_m from the noisy taps"});
    }
    if (!r.noisyGates.empty()) {
        const std::uint64_t G = c.gates;
        out.push_back({"noise/gates", {G, H, W}, std::move(r.noisyGates), "electrons",
                       "each gate's noisy electrons minus the ambient's mean: its mean is gated/gates x "
                       "electrons_per_unit"});
    }
}

} // namespace

std::vector<PixelArray> pixelArrays(SensorImage img, const SimConfig& c, const PreparedScene& ps) {
    const std::uint64_t W = img.width, H = img.height, pixels = W * H;
    for (auto [v, name] : {std::pair{&img.depth, "depth"}, {&img.trueDepth, "trueDepth"},
                           {&img.directDepth, "directDepth"}, {&img.amplitude, "amplitude"}})
        requireSize(v->size(), pixels, name);
    requireSize(img.triangle.size(), pixels, "triangle");
    requireSize(ps.materialOfId.size(), ps.size(), "materialOfId");

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
    std::vector<float> zDepth = alongAxis(img.depth, c), zDepthTrue = alongAxis(img.trueDepth, c);
    // AMCW and noise first: the noise arrays read the true range and amplitude moved below.
    std::vector<PixelArray> amcw, noise;
    if (!img.phasor.empty()) addAmcw(amcw, img, c);
    if (!img.readout.tapsRange.empty()) addTapsRanges(amcw, img);
    if (!img.gates.empty()) addGated(amcw, img);
    if (c.noise.on) addNoise(noise, img, c);

    std::vector<PixelArray> out;
    out.push_back({"range_m", {H, W}, std::move(img.depth), "m",
                   "estimated distance from the sensor along the pixel's ray (depth.pfm)"});
    out.push_back({"range_true_m", {H, W}, std::move(img.trueDepth), "m",
                   "distance from the sensor to the first surface the pixel's ray hits"});
    out.push_back({"range_error_m", {H, W}, std::move(rangeError), "m", "range_m - range_true_m"});
    out.push_back({"range_direct_m", {H, W}, std::move(img.directDepth), "m",
                   "the same estimator on the pixel's direct signal alone (no multipath): range_m - range_direct_m "
                   "is the multipath error, range_direct_m - range_true_m the estimator's own"});
    out.push_back({"z_depth_m", {H, W}, std::move(zDepth), "m", "range_m projected on the optical axis (camera z)"});
    out.push_back({"z_depth_true_m", {H, W}, std::move(zDepthTrue), "m",
                   "range_true_m projected on the optical axis (camera z)"});
    out.push_back({"amplitude", {H, W}, std::move(img.amplitude), "W m-2 (summed over the time bins)",
                   "sum over t of the pixel's signal"});
    out.push_back({"triangle_id", {H, W}, std::move(triangle), nullptr,
                   "id of the triangle seen (triangles.csv), -1: none"});
    out.push_back({"mesh_id", {H, W}, std::move(mesh), nullptr, "index into mesh_names of the triangle seen, -1: none"});
    out.push_back({"material_id", {H, W}, std::move(material), nullptr,
                   "index into material_names of the triangle seen, -1: none"});
    out.push_back({"normal", {H, W, 3}, std::move(normal), nullptr,
                   "unit front-side normal of the triangle seen, world frame (pointing away from the sensor: the "
                   "back of a one-sided surface)"});
    for (auto* extra : {&amcw, &noise})
        for (PixelArray& a : *extra) out.push_back(std::move(a));
    return out;
}

std::vector<PixelArray> pixelArraysOf(const SensorImage& img, const SimConfig& c, const PreparedScene& ps) {
    SensorImage pixels;
    pixels.width = img.width;
    pixels.height = img.height;
    pixels.depth = img.depth;
    pixels.trueDepth = img.trueDepth;
    pixels.amplitude = img.amplitude;
    pixels.directDepth = img.directDepth;
    pixels.noisyDepth = img.noisyDepth;
    pixels.triangle = img.triangle;
    pixels.phasor = img.phasor;
    pixels.taps = img.taps;
    pixels.tapsPhase = img.tapsPhase;
    pixels.gates = img.gates;
    pixels.readout = img.readout;
    static_assert(sizeof(SensorImage) == 2 * sizeof(std::uint32_t) + 12 * sizeof(std::vector<float>) +
                      sizeof(CameraReadout) + sizeof(std::uint64_t),
                  "a field added to SensorImage: copy it here if pixelArrays() uses it");
    return pixelArrays(std::move(pixels), c, ps);
}

} // namespace rsim::output
