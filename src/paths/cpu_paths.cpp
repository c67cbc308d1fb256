// SPDX-License-Identifier: MIT
// Camera paths on the CPU (paths/cpu_paths.h). A pixel's signal is pi times the mean over its
// paths of the deposits beta_k f cos_k I V / r^2 at the path's whole length (MODEL.md §10.2), so
// that on a Lambertian surface it is the radiosity B the radiosity pipeline's pixel would see.
#include "paths/cpu_paths.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include <glm/geometric.hpp>

#include "paths/path_pixels.h"
#include "rsim/shared/bsdf.h"
#include "rsim/shared/paths.h"
#include "transport/sources.h"
#include "util/parallel.h"
#include "util/progress.h"

namespace rsim {
namespace {

class CpuPathTracer {
  public:
    CpuPathTracer(const PreparedScene& s, const SimConfig& c, const EmbreeScene& rays, const PathPixels& pixels)
        : s_(s), c_(c), rays_(rays), pixels_(pixels), window_(c.cdtM * double(c.timesteps)),
          perPath_(shared::RSIM_PI / float(c.pixelSampling.perPixel)), bsdfs_(bsdfsOf(s.materialModels)) {}

    // Pixel p's signal (`total`) and its first vertices' part (`direct`), T values each, zeroed
    // by the caller.
    // Returns the rays it cast.
    std::uint64_t tracePixel(std::uint32_t px, std::uint32_t py, float* total, float* direct) const {
        const std::uint32_t pixel = py * c_.width + px;
        std::uint64_t rays = 0;
        for (std::uint32_t j = 0; j < c_.pixelSampling.perPixel; ++j) rays += tracePath(px, py, pixel, j, total, direct);
        return rays;
    }

  private:
    std::uint64_t tracePath(std::uint32_t px, std::uint32_t py, std::uint32_t pixel, std::uint32_t sample,
                            float* total, float* direct) const;
    // The next-event estimate at vertex x (normal n facing the path): beta f cos I V / r^2,
    // deposited at the path's whole length through the light.
    // Returns the rays it cast (0 or 1).
    std::uint64_t connectToLight(const shared::MaterialBsdf& m, const glm::vec3& x, const glm::vec3& n,
                                 const shared::ShadingFrame& frame, const glm::vec3& wo, float beta,
                                 double cameraLength, float* total, float* direct) const;

    const PreparedScene& s_;
    const SimConfig& c_;
    const EmbreeScene& rays_;
    const PathPixels& pixels_; // its facing()
    const double window_; // c dt T: no deposit of a longer camera sub-path lands in the window
    const float perPath_; // pi / n
    const std::vector<shared::MaterialBsdf> bsdfs_;
};

std::uint64_t CpuPathTracer::tracePath(std::uint32_t px, std::uint32_t py, std::uint32_t pixel, std::uint32_t sample,
                                       float* total, float* direct) const {
    std::uint64_t rays = 0;
    const std::uint32_t seed = c_.seed;
    const glm::vec2 offset = shared::rsimPixelOffset(seed, pixel, sample, c_.pixelSampling.boxFilter);
    glm::vec3 dir = shared::rsimImagePointDirection(c_.sensor, glm::vec2(float(px), float(py)) + offset, c_.width,
                                                    c_.height);
    glm::vec3 origin = c_.sensor.position;
    float tmin = 0.0f, beta = 1.0f;
    double cameraLength = 0.0; // |x_1 - p_S| + sum |x_{m+1} - x_m|
    for (std::uint32_t vertex = 1;; ++vertex) {
        const EmbreeScene::Hit hit = rays_.intersect(origin, dir, tmin, INFINITY);
        ++rays;
        if (hit.triangle < 0) return rays;
        const std::int64_t i = pixels_.facing(std::uint32_t(hit.triangle), dir);
        if (i < 0) return rays; // a back face blocks and reflects nothing
        cameraLength += double(hit.t);
        if (cameraLength > window_) return rays;
        const glm::vec3 x = origin + hit.t * dir, n = s_.normal[std::size_t(i)];
        const shared::MaterialBsdf& m = bsdfs_[s_.materialOfId[s_.id[std::size_t(i)]]];
        const shared::ShadingFrame frame = shared::rsimFrameFromNormal(n);
        const glm::vec3 wo = shared::rsimToLocal(frame, -dir);
        if (shared::rsimHasNonDeltaLobe(m))
            rays += connectToLight(m, x, n, frame, wo, beta, cameraLength, total, vertex == 1 ? direct : nullptr);
        if (c_.paths.maxBounces > 0 && vertex >= c_.paths.maxBounces) return rays;
        const glm::vec3 u(shared::rsimPathSample(seed, pixel, sample, vertex, shared::RSIM_DIM_LOBE),
                          shared::rsimPathSample(seed, pixel, sample, vertex, shared::RSIM_DIM_DIRECTION_U),
                          shared::rsimPathSample(seed, pixel, sample, vertex, shared::RSIM_DIM_DIRECTION_V));
        const shared::BsdfSample b = shared::rsimBsdfSample(m, wo, u.x, u.y, u.z);
        if (!(b.weight > 0.0f)) return rays;
        beta = shared::rsimRoulette(beta * b.weight, vertex,
                                    shared::rsimPathSample(seed, pixel, sample, vertex, shared::RSIM_DIM_ROULETTE));
        if (!(beta > 0.0f)) return rays;
        dir = shared::rsimToWorld(frame, b.wi);
        origin = x;
        tmin = s_.rayEps;
    }
}

std::uint64_t CpuPathTracer::connectToLight(const shared::MaterialBsdf& m, const glm::vec3& x, const glm::vec3& n,
                                            const shared::ShadingFrame& frame, const glm::vec3& wo, float beta,
                                            double cameraLength, float* total, float* direct) const {
    const shared::RaySegment l = shared::rsimLightSample(c_.light, x, n, s_.rayEps);
    if (!(l.weight > 0.0f)) return 0;
    if (rays_.occluded(l.origin, l.dir, l.tmin, l.tmax)) return 1;
    const float f = shared::rsimBsdfEval(m, wo, shared::rsimToLocal(frame, l.dir));
    const float amount = perPath_ * beta * f * l.weight;
    if (!(amount > 0.0f)) return 1;
    const float t0 = float(c_.steps(cameraLength + double(glm::length(c_.light.position - x))));
    depositPulse(amount, t0, c_.pulse, c_.timesteps, total);
    if (direct) depositPulse(amount, t0, c_.pulse, c_.timesteps, direct);
    return 1;
}

} // namespace

SensorImage pathTracedImageCpu(const PreparedScene& s, const SimConfig& c, const EmbreeScene& rays) {
    PathPixels out(s, c);
    const CpuPathTracer tracer(s, c, rays, out);
    std::vector<std::uint64_t> cast(threadCount(), 0);
    const std::size_t T = c.timesteps;
    std::vector<std::vector<float>> totals(threadCount(), std::vector<float>(T)),
        directs(threadCount(), std::vector<float>(T)), noisy(threadCount());
    Progress progress("paths", c.height, "rows");
    parallelFor(c.height, 1, [&](std::size_t begin, std::size_t end, unsigned w) {
        float* total = totals[w].data();
        float* direct = directs[w].data();
        for (std::size_t py = begin; py < end; ++py)
            for (std::uint32_t px = 0; px < c.width; ++px) {
                // The pixel's centre ray: the surface it shows (paths/path_pixels.h).
                const glm::vec3 centre = shared::rsimPixelDirection(c.sensor, px, std::uint32_t(py), c.width, c.height);
                const EmbreeScene::Hit hit = rays.intersect(c.sensor.position, centre, 0.0f, INFINITY);
                std::fill_n(total, T, 0.0f);
                std::fill_n(direct, T, 0.0f);
                cast[w] += 1 + tracer.tracePixel(px, std::uint32_t(py), total, direct);
                out.finish(py * c.width + px, hit.triangle, hit.t, total, direct, noisy[w]);
            }
        progress.add(end - begin);
    });
    progress.finish();
    SensorImage image = out.take();
    for (std::uint64_t r : cast) image.rays += r;
    return image;
}

} // namespace rsim
