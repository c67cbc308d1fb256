// SPDX-License-Identifier: MIT
// The Vulkan backend: every phase of MODEL.md on one GPU (or software device); only results
// (direct terms, B/Z histories, distances, the sensor image) come back to the host.
#include <cmath>
#include <limits>
#include <memory>

#include <spdlog/spdlog.h>

#include "backends/backend.h"
#include "backends/vulkan_backend.h"
#include "backends/vulkan_scene.h"
#include "direct/vulkan_direct.h"
#include "distance/vulkan_distance.h"
#include "transport/sources.h"
#include "transport/vulkan_transport.h"
#include "util/error.h"
#include "util/parallel.h"
#include "visibility/vulkan_visibility.h"

namespace rsim {
namespace {

class VulkanBackend final : public Backend {
public:
    VulkanBackend(std::shared_ptr<vk::Instance> instance, const vk::PhysicalDeviceInfo& info,
                  vk::RayPath path)
        : instance_(std::move(instance)),
          device_(std::make_unique<vk::Device>(*instance_, info, path, "device 0 (" + info.name + ")")) {}

    std::string name() const override { return "vulkan"; }

    SimulationResult simulate(const PreparedScene& s, const SimConfig& c, const RunOptions& opt,
                              PhaseTimes& times) override {
        const vk::Device& d = *device_;
        SimulationResult r;
        r.n = std::uint32_t(s.size());
        r.timesteps = c.timesteps;
        r.backend = "vulkan";
        r.devices = {d.info().name + " (" + d.info().typeName() + ", " + d.info().driver + ")"};
        r.visibilityPath = vk::rayPathName(d.rayPath());
        const std::uint64_t errorsBefore = instance_->validationErrors();

        Stopwatch sw;
        GpuScene scene(d, s, c);
        std::vector<glm::vec3> vertices(3 * s.size());
        for (std::size_t i = 0; i < s.size(); ++i) {
            vertices[3 * i] = s.v0[i];
            vertices[3 * i + 1] = s.v1[i];
            vertices[3 * i + 2] = s.v2[i];
        }
        vk::SceneAccel accel(d, vertices);
        times.add("accel", sw.seconds());

        sw = Stopwatch();
        r.direct = computeDirectVulkan(d, scene, accel, s, c);
        times.add("direct", sw.seconds());
        checkDirectTerms(r.direct, c);

        std::unique_ptr<GpuKMatrix> K;
        if (c.indirect || opt.keepK) {
            const KFormat format = c.kFormat;
            const std::uint64_t kBytes = std::uint64_t(s.size()) * s.size() * 4; // fp32 while computed
            const std::uint64_t budget = d.deviceLocalBudget();
            if (kBytes > budget * 9 / 10)
                throw Error(d.label() + ": K needs " + std::to_string(kBytes >> 20) + " MiB but the device has " +
                            std::to_string(budget >> 20) + " MiB available; use --backend cpu or a smaller scene");
            sw = Stopwatch();
            K = std::make_unique<GpuKMatrix>(allocateK(d, r.n, format == KFormat::Fp16 ? KFormat::Fp16 : KFormat::Fp32,
                                                       chunkRows(r.n, format, c.chunkBytes)));
            r.visibility = computeVisibilityVulkan(d, scene, accel, s, c, *K);
            const double secs = sw.seconds();
            times.add("visibility", secs);
            r.timingDetails.emplace_back("visibility_rays", r.visibility.raySeconds);
            spdlog::info("visibility: {} candidate pairs, {} non-zero, {} rays in {:.2f} s ({:.1f} Mrays/s)",
                         r.visibility.candidatePairs, r.visibility.nonzeroPairs, r.visibility.raysCast, secs,
                         double(r.visibility.raysCast) / secs * 1e-6);

            if (c.kFormatErrors && format == KFormat::Fp32) {
                std::vector<std::vector<float>> chunks;
                for (std::uint32_t ch = 0; ch < K->chunkCount(); ++ch)
                    chunks.push_back(vk::download<float>(d, K->chunks[ch], std::size_t(K->rowEnd(ch) - K->rowBegin(ch)) * r.n));
                for (const FormatError& f : formatErrors(chunks, std::uint64_t(r.n) * r.n))
                    r.kFormatErrors.push_back({kFormatInfo(f.format).name, f.rms, f.maxAbs});
            }
            sw = Stopwatch();
            const KErrors errors = compressKVulkan(d, *K, format);
            times.add("compress", sw.seconds());
            // fp16 is converted in the shader, which does not report its rounding error.
            r.kRmsError = format == KFormat::Fp16
                              ? std::numeric_limits<double>::quiet_NaN()
                              : std::sqrt(errors.sumSquared / (double(r.n) * double(r.n)));
            r.kMaxAbsError = format == KFormat::Fp16 ? std::numeric_limits<double>::quiet_NaN() : errors.maxAbs;
            r.kFormat = kFormatInfo(format).name;
            r.kBytes = K->bytes();
            r.kChunks = K->chunkCount();
            r.kRowsPerChunk = K->rowsPerChunk;
            const VisibilityStats energy = formFactorDiagnosticsVulkan(d, scene, *K);
            r.visibility.clampedFormFactors = energy.clampedFormFactors;
            r.visibility.maxRowSum = energy.maxRowSum;
            r.visibility.rowsOverOne = energy.rowsOverOne;
            spdlog::info("K: {} in {} chunk(s) of {} rows, {:.1f} MiB{}", r.kFormat, r.kChunks, r.kRowsPerChunk,
                         double(r.kBytes) / 1048576.0,
                         format <= KFormat::Fp16 ? std::string()
                                                  : fmt::format(", compressed in {:.3f} s, RMS error {:.3g}",
                                                                sw.seconds(), r.kRmsError));
        } else {
            times.add("compress", 0.0);
        }

        sw = Stopwatch();
        const vk::Buffer transportTris =
            vk::makeStorage(d, makeTransportRecords(s, c, r.direct), "transport triangles");
        GpuTransport transport = runTransportVulkan(d, scene, c.indirect ? K.get() : nullptr, transportTris, c);
        const vk::Buffer& history = transport.history;
        times.add("radiosity", sw.seconds());
        r.timingDetails.emplace_back("radiosity_setup", transport.setupSeconds);
        r.timingDetails.emplace_back("radiosity_loop", transport.loopSeconds);
        spdlog::info("radiosity: {} timesteps in {:.3f} s ({:.3f} s setup, {:.3f} s time loop, {} near pairs)",
                     c.timesteps, sw.seconds(), transport.setupSeconds, transport.loopSeconds,
                     transport.nearPairs);

        // The results the host needs: B and Z, and E and R rebuilt from the direct terms.
        sw = Stopwatch();
        const auto bz = vk::download<glm::vec2>(d, history, std::size_t(r.n) * c.timesteps);
        const double copied = sw.seconds();
        r.B.resize(bz.size());
        r.Z.resize(bz.size());
        parallelFor(bz.size(), 1 << 16, [&](std::size_t begin, std::size_t end, unsigned) {
            for (std::size_t k = begin; k < end; ++k) {
                r.B[k] = bz[k].x;
                r.Z[k] = bz[k].y;
            }
        });
        const double split = sw.seconds();
        buildSources(s, c, r.direct, r.E, r.R);
        times.add("download", sw.seconds());
        spdlog::debug("download: {:.3f} s copy of {} MiB, {:.3f} s B/Z split, {:.3f} s E/R", copied,
                      (bz.size() * sizeof(glm::vec2)) >> 20, split - copied, sw.seconds() - split);

        sw = Stopwatch();
        finishSignals(s, c, r);
        computeTriangleDistancesVulkan(d, scene, transportTris, history, c, r);
        if (opt.images) r.image = renderSensorImageVulkan(d, scene, accel, transportTris, history, s, c);
        times.add("distance", sw.seconds());
        if (opt.keepK && K) r.K = downloadK(d, *K);
        r.validationErrors = instance_->validationErrors() - errorsBefore;
        if (instance_->validation())
            spdlog::info("Vulkan validation: {} error(s) during the run", r.validationErrors);
        return r;
    }

private:
    std::shared_ptr<vk::Instance> instance_;
    std::unique_ptr<vk::Device> device_;
};

} // namespace

std::unique_ptr<Backend> makeVulkanBackendOn(std::shared_ptr<vk::Instance> instance,
                                             const vk::PhysicalDeviceInfo& info, vk::RayPath path) {
    return std::make_unique<VulkanBackend>(std::move(instance), info, path);
}

} // namespace rsim
