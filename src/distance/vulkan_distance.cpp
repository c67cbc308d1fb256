// SPDX-License-Identifier: MIT
#include "distance/vulkan_distance.h"

#include <algorithm>
#include <cstring>

#include "distance/estimators.h"
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
    // The longest to compile first (on the H100's cold driver: pixels 1.6 s, distances 0.16 s).
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

SensorImage renderSensorImageVulkan(vk::Device& device, const GpuGeometry& scene, const GpuPose& pose,
                                    const vk::SceneAccel* accel, const PrimaryHits* given, vk::PosePasses& passes,
                                    const DeviceHistoryView& history, const PreparedScene& prepared,
                                    const SimConfig& c) {
    const std::uint32_t pixels = c.width * c.height;
    SensorImage img;
    img.width = c.width;
    img.height = c.height;
    img.rays = pixels; // primary rays; shadow rays are not counted here
    if (given && given->values.size() != std::size_t(pixels) * 4)
        throw Error("internal: primary hits of another image size");
    if (!given && !accel) throw Error("internal: the sensor image without primary rays or hits");
    if (!given && !passes.primary)
        passes.primary = makeRayPassPipeline(device, primaryRecipe(device), *accel);
    if (!passes.pixels) passes.pixels = std::make_unique<vk::Pass<shared::PixelPush>>(device, pixelsRecipe());
    const vk::Pipeline* primary = passes.primary.get();
    const auto& signal = *passes.pixels;
    const std::uint64_t pixelBytes = std::uint64_t(pixels) * sizeof(glm::vec4);
    const vk::Buffer& hits =
        passes.pixelHits.get(device, pixelBytes, vk::kStorageUsage, vk::MemoryKind::Device, "pixel hits");
    const vk::Buffer& out =
        passes.pixelOut.get(device, pixelBytes, vk::kStorageUsage, vk::MemoryKind::Device, "pixel depth");
    shared::PrimaryPush pp{};
    pp.triangles = scene.triangles.address();
    pp.lightSensor = pose.lightSensor.address();
    pp.results = hits.address();
    pp.rayEps = prepared.rayEps;
    pp.invCdt = float(1.0 / c.cdtM);
    shared::PixelPush px{};
    px.tris = history.records;
    px.history = history.history;
    px.pulse = pose.pulse.address();
    px.hits = hits.address();
    px.results = out.address();
    px.lightSensor = pose.lightSensor.address();
    const AmcwOmegas w = amcwOmegas(c);
    px.omegaLo = w.lo;
    px.omegaHi = w.hi;
    px.frequencies = w.count;
    px.invCdt = pp.invCdt;
    px.cdt = float(c.cdtM);
    px.timesteps = c.timesteps;
    px.pulseLength = std::uint32_t(c.pulse.size());
    px.mode = pixelModeId(c.mode);
    px.gateStart = c.gateStart;
    px.gates = c.gates;
    // The AMCW raw data and the transient (images.h5), when the run has them.
    const bool amcw = c.mode == SensorMode::Amcw;
    const SimConfig::Transient& tr = c.transient;
    const std::uint64_t amcwFloats = amcw ? std::uint64_t(pixels) * w.count * (c.taps + 3) : 0,
                        transientFloats = std::uint64_t(tr.w) * tr.h * tr.bins;
    vk::Buffer amcwOut, transientOut, outputs;
    if (amcwFloats || transientFloats || c.noise.on) {
        shared::PixelOutputs o{};
        o.taps = c.taps;
        o.waveform = c.waveform;
        o.transientStart = tr.start;
        o.transientBins = tr.bins;
        o.roi = glm::uvec4(tr.x0, tr.y0, tr.w, tr.h);
        if (c.noise.on) {
            float seed;
            std::memcpy(&seed, &c.noise.seed, sizeof seed);
            o.noise = glm::vec4(float(c.noise.electronsPerUnit), float(c.noise.ambientPerBin),
                                float(c.noise.readSigmaPerBin), seed);
        }
        if (amcwFloats) {
            amcwOut = vk::Buffer(device, amcwFloats * 4, vk::kStorageUsage, vk::MemoryKind::Device, "pixel AMCW data");
            o.amcw = amcwOut.address();
        }
        if (transientFloats) {
            transientOut = vk::Buffer(device, transientFloats * 4, vk::kStorageUsage, vk::MemoryKind::Device,
                                      "pixel transients");
            o.transient = transientOut.address();
        }
        outputs = vk::makeStorage(device, std::vector<shared::PixelOutputs>{o}, "pixel outputs");
        px.outputs = outputs.address();
    }
    vk::HostReadback back(device, passes.readback, 2 * vk::HostReadback::rounded(pixelBytes));
    std::uint64_t hitsAt = 0, outAt = 0;
    if (given) vk::uploadBytes(device, hits, given->values.data(), pixelBytes);
    device.submitAndWait([&](VkCommandBuffer cmd) {
        if (!given) {
            primary->bind(cmd, nullptr);
            launchRayPassLinear(device, *primary, cmd, pp, pixels);
        }
        vk::computeBarrier(device, cmd);
        signal.bind(cmd);
        signal.dispatchLinear(cmd, px, pixels, shared::RSIM_WG_LINEAR);
        hitsAt = back.add(cmd, hits, pixelBytes);
        outAt = back.add(cmd, out, pixelBytes);
    });
    const glm::vec4* h = back.at<glm::vec4>(hitsAt);
    const glm::vec4* o = back.at<glm::vec4>(outAt);
    const float nan = std::numeric_limits<float>::quiet_NaN();
    img.depth.resize(pixels);
    img.trueDepth.resize(pixels);
    img.amplitude.resize(pixels);
    img.directDepth.resize(pixels);
    img.triangle.resize(pixels);
    for (std::uint32_t p = 0; p < pixels; ++p) {
        img.triangle[p] = std::int32_t(h[p].x); // -1: nothing hit
        img.trueDepth[p] = shared::rsimPrimaryHits(h[p]) ? h[p].y : nan;
        img.depth[p] = o[p].x;
        img.amplitude[p] = o[p].y;
        img.directDepth[p] = o[p].z;
    }
    if (c.noise.on) {
        img.noisyDepth.resize(pixels);
        for (std::uint32_t p = 0; p < pixels; ++p) img.noisyDepth[p] = o[p].w;
    }
    if (amcwFloats) {
        // [pixels][F][K + 3] on the device; [F][pixels][...] in the image.
        const auto a = vk::download<float>(device, amcwOut, amcwFloats);
        const std::size_t F = w.count, K = c.taps, stride = K + 3;
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
    if (transientFloats) img.transient = vk::download<float>(device, transientOut, transientFloats);
    return img;
}

} // namespace rsim
