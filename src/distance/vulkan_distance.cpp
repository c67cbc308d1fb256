// SPDX-License-Identifier: MIT
// Distances, sensor signals and the sensor image on a Vulkan device (distance/vulkan_distance.h).
#include "distance/vulkan_distance.h"

#include <algorithm>
#include <cstring>

#include "distance/cpu_distance.h"
#include "rsim/shared/estimators.h"
#include "rsim/shared/primary_hit.h"
#include "util/error.h"

#include <cmath>
#include <limits>

#include "vulkan/pass.h"
#include "vulkan/ray_pass.h"
#include "vulkan/shaders.h"

namespace rsim {
namespace {
vk::PipelineRecipe distancesRecipe() {
    return vk::passRecipe<shared::DistancePush>(vk::shaders::distances(), {}, "distances");
}
vk::PipelineRecipe primaryRecipe(vk::Device& device) {
    return rayPassRecipe(device, &vk::shaders::primary, sizeof(shared::PrimaryPush), true, "primary rays");
}
vk::PipelineRecipe signalsRecipe() {
    return vk::passRecipe<shared::SignalPush>(vk::shaders::sensorSignals(), {}, "sensor signals");
}
vk::PipelineRecipe pixelsRecipe() { return vk::passRecipe<shared::PixelPush>(vk::shaders::pixels(), {}, "pixels"); }
} // namespace

std::vector<vk::PipelineRecipe> poseOutputRecipes(vk::Device& device, bool distances, bool image, bool primaryRays) {
    std::vector<vk::PipelineRecipe> r;
    // The longest to compile first, so that the others compile beside it: on a cold driver cache
    // the pixel pass takes about ten times as long as the distances'.
    if (image) r.push_back(pixelsRecipe());
    if (distances) r.push_back(distancesRecipe());
    if (distances) r.push_back(signalsRecipe()); // unless the histories are on the host then
    if (image && primaryRays) r.push_back(primaryRecipe(device));
    return r;
}

TriangleDistances computeTriangleDistancesVulkan(vk::Device& device, const GpuPose& pose, vk::PosePasses& passes,
                                                 const DeviceHistoryView& history, std::uint32_t n,
                                                 const SimConfig& c) {
    if (!passes.distances)
        passes.distances = std::make_unique<vk::Pass<shared::DistancePush>>(device, distancesRecipe());
    const auto& pass = *passes.distances;
    const std::uint64_t outBytes = std::uint64_t(n) * sizeof(glm::vec4);
    const vk::Buffer& out =
        passes.distancesOut.get(device, outBytes, vk::kStorageUsage, vk::MemoryKind::Device, "distances");
    shared::DistancePush push{};
    push.tris = history.records;
    push.history = history.history;
    push.pulse = pose.pulse.address();
    push.results = out.address();
    const AmcwOmegas w = amcwOmegas(c);
    push.omegaLo = w.lo;
    push.omegaHi = w.hi;
    push.frequencies = w.count;
    push.lightToSensor = glm::vec4(c.sensor.position - c.light.position, float(c.cdtM));
    push.n = n;
    push.timesteps = c.timesteps;
    push.pulseLength = std::uint32_t(c.pulse.size());
    push.mode = sensorModeId(c.mode);
    vk::HostReadback back(device, passes.readback, outBytes);
    std::uint64_t at = 0;
    device.submitAndWait([&](VkCommandBuffer cmd) {
        pass.bind(cmd);
        pass.dispatchLinear(cmd, push, n, shared::RSIM_WG_LINEAR);
        at = back.add(cmd, out, outBytes);
    });
    const glm::vec4* values = back.at<glm::vec4>(at);
    const double nan = std::numeric_limits<double>::quiet_NaN();
    TriangleDistances r;
    r.pathLength.assign(n, nan);
    r.distance.assign(n, nan);
    r.totalEnergy.resize(n);
    for (std::uint32_t i = 0; i < n; ++i) {
        r.totalEnergy[i] = double(values[i].z);
        if (values[i].x == shared::RSIM_ECHO_CUT_OFF) ++r.echoesCutOff;
        if (values[i].x < 0.0f) continue;
        r.pathLength[i] = double(values[i].x) * c.cdtM;
        r.distance[i] = double(values[i].y);
    }
    return r;
}

void sensorSignalsVulkan(vk::Device& device, const GpuPose& pose, vk::PosePasses& passes,
                         const DeviceHistoryView& history, std::uint32_t n, const SimConfig& c,
                         std::vector<double>& fwd, std::vector<double>& adj) {
    if (!passes.signals)
        passes.signals = std::make_unique<vk::Pass<shared::SignalPush>>(device, signalsRecipe());
    // Enough slices of the triangles to give the GPU work when T is short.
    const std::uint32_t slices = std::clamp(n / 256u, 1u, 64u);
    const std::uint64_t outBytes = std::uint64_t(slices) * c.timesteps * sizeof(glm::vec2);
    const vk::Buffer& out =
        passes.signalsOut.get(device, outBytes, vk::kStorageUsage, vk::MemoryKind::Device, "sensor signals");
    shared::SignalPush push{};
    push.tris = history.records;
    push.history = history.history;
    push.pulse = pose.pulse.address();
    push.results = out.address();
    push.n = n;
    push.timesteps = c.timesteps;
    push.pulseLength = std::uint32_t(c.pulse.size());
    push.slices = slices;
    vk::HostReadback back(device, passes.readback, outBytes);
    std::uint64_t at = 0;
    device.submitAndWait([&](VkCommandBuffer cmd) {
        passes.signals->bind(cmd);
        vk::forEachLaunch(c.timesteps, vk::maxLinearLaunch(device, shared::RSIM_WG_LINEAR),
                          [&](std::uint32_t begin, std::uint32_t end) {
                              push.begin = begin;
                              push.end = end;
                              passes.signals->dispatch(cmd, push, (end - begin + shared::RSIM_WG_LINEAR - 1) /
                                                                      shared::RSIM_WG_LINEAR, slices);
                          });
        at = back.add(cmd, out, outBytes);
    });
    const glm::vec2* values = back.at<glm::vec2>(at);
    fwd.assign(c.timesteps, 0.0);
    adj.assign(c.timesteps, 0.0);
    for (std::uint32_t s = 0; s < slices; ++s)
        for (std::uint32_t t = 0; t < c.timesteps; ++t) {
            fwd[t] += double(values[std::size_t(s) * c.timesteps + t].x);
            adj[t] += double(values[std::size_t(s) * c.timesteps + t].y);
        }
}

namespace {

// The primary rays' push constants: a ray per pixel from the sensor, its hit written to `hits`.
shared::PrimaryPush primaryPush(const GpuGeometry& scene, const GpuPose& pose, const vk::Buffer& hits,
                                const PreparedScene& prepared, const SimConfig& c) {
    shared::PrimaryPush pp{};
    pp.triangles = scene.triangles.address();
    pp.lightSensor = pose.lightSensor.address();
    pp.results = hits.address();
    pp.rayEps = prepared.rayEps;
    pp.invCdt = float(1.0 / c.cdtM);
    pp.raysPerPixel = c.primaryRaysPerPixel();
    pp.seed = c.seed;
    return pp;
}

// The pixel pass's push constants, but for its further outputs (PixelOutputBuffers): each
// pixel's signal from its hit and the history, its estimates written to `out`.
shared::PixelPush pixelPush(const DeviceHistoryView& history, const GpuPose& pose, const vk::Buffer& hits,
                            const vk::Buffer& out, const AmcwOmegas& w, float invCdt, const SimConfig& c) {
    shared::PixelPush px{};
    px.tris = history.records;
    px.history = history.history;
    px.pulse = pose.pulse.address();
    px.hits = hits.address();
    px.results = out.address();
    px.lightSensor = pose.lightSensor.address();
    px.omegaLo = w.lo;
    px.omegaHi = w.hi;
    px.frequencies = w.count;
    px.invCdt = invCdt;
    px.cdt = float(c.cdtM);
    px.timesteps = c.timesteps;
    px.pulseLength = std::uint32_t(c.pulse.size());
    px.mode = pixelModeId(c.mode);
    px.gateStart = c.gateStart;
    px.gates = c.gates;
    return px;
}

// The pixel pass's further outputs on the device, when the run has them: the AMCW and gated raw
// data and the transient (images.h5), with the table that names them and the pulsed mode's noise
// (the other modes' noise is drawn on their raw data on the host: distance/camera_readout.h).
struct PixelOutputBuffers {
    std::uint64_t amcwFloats = 0, transientFloats = 0, gateFloats = 0;
    vk::Buffer amcw, transient, directTransient, gates, table;
};

// PixelOutputBuffers allocated and named in px.outputs (left 0 where there are none).
PixelOutputBuffers allocatePixelOutputs(vk::Device& device, const SimConfig& c, std::uint32_t pixels,
                                        const AmcwOmegas& w, shared::PixelPush& px) {
    PixelOutputBuffers b;
    const bool amcw = c.mode == SensorMode::Amcw;
    const SimConfig::Transient& tr = c.transient;
    b.amcwFloats = amcw ? std::uint64_t(pixels) * w.count * (c.taps + 3) : 0;
    b.transientFloats = std::uint64_t(tr.w) * tr.h * tr.bins;
    b.gateFloats = c.mode == SensorMode::Gated ? std::uint64_t(pixels) * c.gates : 0;
    const bool binNoise = pulsedNoise(c);
    if (b.amcwFloats || b.transientFloats || b.gateFloats || binNoise || c.primaryRaysPerPixel() > 1) {
        shared::PixelOutputs o{};
        o.raysPerPixel = c.primaryRaysPerPixel();
        o.taps = c.taps;
        o.waveform = c.waveform;
        o.transientStart = tr.start;
        o.transientBins = tr.bins;
        o.roi = glm::uvec4(tr.x0, tr.y0, tr.w, tr.h);
        if (binNoise) {
            float seed;
            std::memcpy(&seed, &c.noise.seed, sizeof seed);
            o.noise = glm::vec4(float(c.noise.electronsPerUnit), float(c.noise.ambientPerReadout),
                                float(c.noise.readSigma), seed);
        }
        if (b.amcwFloats) {
            b.amcw = vk::Buffer(device, b.amcwFloats * 4, vk::kStorageUsage, vk::MemoryKind::Device, "pixel AMCW data");
            o.amcw = b.amcw.address();
        }
        if (b.transientFloats) {
            b.transient = vk::Buffer(device, b.transientFloats * 4, vk::kStorageUsage, vk::MemoryKind::Device,
                                     "pixel transients");
            o.transient = b.transient.address();
            if (tr.direct) {
                b.directTransient = vk::Buffer(device, b.transientFloats * 4, vk::kStorageUsage,
                                               vk::MemoryKind::Device, "pixel direct transients");
                o.directTransient = b.directTransient.address();
            }
        }
        if (b.gateFloats) {
            b.gates = vk::Buffer(device, b.gateFloats * 4, vk::kStorageUsage, vk::MemoryKind::Device, "pixel gates");
            o.gates = b.gates.address();
        }
        b.table = vk::makeStorage(device, std::vector<shared::PixelOutputs>{o}, "pixel outputs");
        px.outputs = b.table.address();
    }
    return b;
}

// The image's per-pixel values from the primary hits `h` (R records per pixel, the centre's
// first) and the pixel pass's estimates `o`.
void readPixelValues(const glm::vec4* hits, std::uint32_t R, const glm::vec4* o, std::uint32_t pixels, bool noise,
                     SensorImage& img) {
    const float nan = std::numeric_limits<float>::quiet_NaN();
    img.depth.resize(pixels);
    img.trueDepth.resize(pixels);
    img.amplitude.resize(pixels);
    img.directDepth.resize(pixels);
    img.triangle.resize(pixels);
    for (std::uint32_t p = 0; p < pixels; ++p) {
        const glm::vec4 h = hits[std::size_t(p) * R];
        img.triangle[p] = std::int32_t(h.x); // -1: nothing hit
        img.trueDepth[p] = shared::rsimPrimaryHits(h) ? h.y : nan;
        img.depth[p] = o[p].x;
        img.amplitude[p] = o[p].y;
        img.directDepth[p] = o[p].z;
    }
    if (noise) {
        img.noisyDepth.resize(pixels);
        for (std::uint32_t p = 0; p < pixels; ++p) img.noisyDepth[p] = o[p].w;
    }
}

// The AMCW phasors, taps and taps' phase of F frequencies and K taps, downloaded from `amcw`.
void readAmcwData(vk::Device& device, const vk::Buffer& amcw, std::uint64_t amcwFloats, std::size_t F,
                  std::size_t K, std::uint32_t pixels, SensorImage& img) {
    // [pixels][F][K + 3] on the device; [F][pixels][...] in the image.
    const auto a = vk::download<float>(device, amcw, amcwFloats);
    const std::size_t stride = K + 3;
    img.phasor.resize(F * pixels * 2);
    img.taps.resize(F * pixels * K);
    img.tapsPhase.resize(F * pixels);
    for (std::size_t p = 0; p < pixels; ++p)
        for (std::size_t f = 0; f < F; ++f) {
            const float* v = &a[(p * F + f) * stride];
            img.phasor[(f * pixels + p) * 2] = v[0];
            img.phasor[(f * pixels + p) * 2 + 1] = v[1];
            std::copy_n(v + 2, K, &img.taps[(f * pixels + p) * K]);
            img.tapsPhase[f * pixels + p] = v[2 + K];
        }
}

} // namespace

PrimaryHits primaryHitsVulkan(vk::Device& device, const GpuGeometry& scene, const GpuPose& pose,
                              const vk::SceneAccel& accel, vk::PosePasses& passes, const PreparedScene& prepared,
                              const SimConfig& c) {
    const std::uint32_t R = c.primaryRaysPerPixel(), pixels = c.width * c.height;
    if (!passes.primary) passes.primary = makeRayPassPipeline(device, primaryRecipe(device), accel);
    const std::uint64_t hitBytes = std::uint64_t(pixels) * R * sizeof(glm::vec4);
    const vk::Buffer& hits =
        passes.pixelHits.get(device, hitBytes, vk::kStorageUsage, vk::MemoryKind::Device, "pixel hits");
    const shared::PrimaryPush pp = primaryPush(scene, pose, hits, prepared, c);
    vk::HostReadback back(device, passes.readback, vk::HostReadback::rounded(hitBytes));
    std::uint64_t at = 0;
    device.submitAndWait([&](VkCommandBuffer cmd) {
        passes.primary->bind(cmd, nullptr);
        launchRayPassLinear(device, *passes.primary, cmd, pp, std::uint64_t(pixels) * R);
        at = back.add(cmd, hits, hitBytes);
    });
    PrimaryHits out;
    out.rays = std::uint64_t(pixels) * R;
    const float* v = back.at<float>(at);
    out.values.assign(v, v + out.rays * 4);
    return out;
}

SensorImage renderSensorImageVulkan(vk::Device& device, const GpuGeometry& scene, const GpuPose& pose,
                                    const vk::SceneAccel* accel, const PrimaryHits* given, vk::PosePasses& passes,
                                    const DeviceHistoryView& history, const PreparedScene& prepared,
                                    const SimConfig& c) {
    const std::uint32_t pixels = c.width * c.height;
    SensorImage img;
    img.width = c.width;
    img.height = c.height;
    const std::uint32_t R = c.primaryRaysPerPixel();
    img.rays = std::uint64_t(pixels) * R; // primary rays; shadow rays are not counted here
    if (given && given->values.size() != std::size_t(pixels) * R * 4)
        throw Error("internal: primary hits of another image size");
    if (!given && !accel) throw Error("internal: the sensor image without primary rays or hits");
    if (!given && !passes.primary)
        passes.primary = makeRayPassPipeline(device, primaryRecipe(device), *accel);
    if (!passes.pixels) passes.pixels = std::make_unique<vk::Pass<shared::PixelPush>>(device, pixelsRecipe());
    const vk::Pipeline* primary = passes.primary.get();
    const auto& signal = *passes.pixels;
    const std::uint64_t pixelBytes = std::uint64_t(pixels) * sizeof(glm::vec4), hitBytes = pixelBytes * R;
    const vk::Buffer& hits =
        passes.pixelHits.get(device, hitBytes, vk::kStorageUsage, vk::MemoryKind::Device, "pixel hits");
    const vk::Buffer& out =
        passes.pixelOut.get(device, pixelBytes, vk::kStorageUsage, vk::MemoryKind::Device, "pixel depth");
    const shared::PrimaryPush pp = primaryPush(scene, pose, hits, prepared, c);
    const AmcwOmegas w = amcwOmegas(c);
    shared::PixelPush px = pixelPush(history, pose, hits, out, w, pp.invCdt, c);
    const PixelOutputBuffers outputs = allocatePixelOutputs(device, c, pixels, w, px);
    vk::HostReadback back(device, passes.readback,
                          vk::HostReadback::rounded(hitBytes) + vk::HostReadback::rounded(pixelBytes));
    std::uint64_t hitsAt = 0, outAt = 0;
    if (given) vk::uploadBytes(device, hits, given->values.data(), hitBytes);
    device.submitAndWait([&](VkCommandBuffer cmd) {
        if (!given) {
            primary->bind(cmd, nullptr);
            launchRayPassLinear(device, *primary, cmd, pp, pixels * R);
        }
        vk::computeBarrier(device, cmd);
        signal.bind(cmd);
        signal.dispatchLinear(cmd, px, pixels, shared::RSIM_WG_LINEAR);
        hitsAt = back.add(cmd, hits, hitBytes);
        outAt = back.add(cmd, out, pixelBytes);
    });
    readPixelValues(back.at<glm::vec4>(hitsAt), R, back.at<glm::vec4>(outAt), pixels, pulsedNoise(c), img);
    if (outputs.amcwFloats) readAmcwData(device, outputs.amcw, outputs.amcwFloats, w.count, c.taps, pixels, img);
    if (outputs.gateFloats) {
        // [pixels][G] on the device; [G][pixels] in the image.
        const auto g = vk::download<float>(device, outputs.gates, outputs.gateFloats);
        img.gates.resize(outputs.gateFloats);
        for (std::size_t p = 0; p < pixels; ++p)
            for (std::size_t k = 0; k < c.gates; ++k) img.gates[k * pixels + p] = g[p * c.gates + k];
    }
    if (outputs.transientFloats)
        img.transient = vk::download<float>(device, outputs.transient, outputs.transientFloats);
    if (c.transient.direct && outputs.transientFloats)
        img.directTransient = vk::download<float>(device, outputs.directTransient, outputs.transientFloats);
    return img;
}

} // namespace rsim
