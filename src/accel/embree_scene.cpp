// SPDX-License-Identifier: MIT
#include "accel/embree_scene.h"

#include <string>

#include <spdlog/spdlog.h>

#include "util/error.h"

namespace rsim {
namespace {
void onEmbreeError(void*, RTCError code, const char* message) {
    spdlog::error("Embree error {}: {}", int(code), message ? message : "");
}
bool onMemory(void* user, ssize_t bytes, bool) {
    auto* total = static_cast<std::size_t*>(user);
    *total = std::size_t(ssize_t(*total) + bytes);
    return true;
}
} // namespace

EmbreeScene::EmbreeScene(const PreparedScene& s) {
    device_ = rtcNewDevice("threads=0");
    if (!device_) throw Error("Embree: cannot create a device (error " +
                              std::to_string(int(rtcGetDeviceError(nullptr))) + ")");
    rtcSetDeviceErrorFunction(device_, onEmbreeError, nullptr);
    rtcSetDeviceMemoryMonitorFunction(device_, onMemory, &bytes_);
    scene_ = rtcNewScene(device_);
    // Robust: watertight traversal, like the GPUs' hardware intersection.
    rtcSetSceneFlags(scene_, RTC_SCENE_FLAG_ROBUST);
    rtcSetSceneBuildQuality(scene_, RTC_BUILD_QUALITY_HIGH);

    const std::size_t n = s.size();
    RTCGeometry geom = rtcNewGeometry(device_, RTC_GEOMETRY_TYPE_TRIANGLE);
    auto* vertices = static_cast<float*>(rtcSetNewGeometryBuffer(
        geom, RTC_BUFFER_TYPE_VERTEX, 0, RTC_FORMAT_FLOAT3, 3 * sizeof(float), 3 * n));
    auto* indices = static_cast<unsigned*>(rtcSetNewGeometryBuffer(
        geom, RTC_BUFFER_TYPE_INDEX, 0, RTC_FORMAT_UINT3, 3 * sizeof(unsigned), n));
    for (std::size_t i = 0; i < n; ++i) {
        const glm::vec3* v[3] = {&s.v0[i], &s.v1[i], &s.v2[i]};
        for (int k = 0; k < 3; ++k) {
            vertices[9 * i + 3 * std::size_t(k) + 0] = v[k]->x;
            vertices[9 * i + 3 * std::size_t(k) + 1] = v[k]->y;
            vertices[9 * i + 3 * std::size_t(k) + 2] = v[k]->z;
            indices[3 * i + std::size_t(k)] = unsigned(3 * i + std::size_t(k));
        }
    }
    rtcCommitGeometry(geom);
    rtcAttachGeometry(scene_, geom);
    rtcReleaseGeometry(geom);
    rtcCommitScene(scene_);
    if (rtcGetDeviceError(device_) != RTC_ERROR_NONE)
        throw Error("Embree: building the BVH failed (out of memory?)");
}

EmbreeScene::~EmbreeScene() {
    if (scene_) rtcReleaseScene(scene_);
    if (device_) rtcReleaseDevice(device_);
}

bool EmbreeScene::occluded(const glm::vec3& o, const glm::vec3& d, float tmin, float tmax) const {
    RTCIntersectContext ctx;
    rtcInitIntersectContext(&ctx);
    RTCRay ray;
    ray.org_x = o.x;
    ray.org_y = o.y;
    ray.org_z = o.z;
    ray.dir_x = d.x;
    ray.dir_y = d.y;
    ray.dir_z = d.z;
    ray.tnear = tmin;
    ray.tfar = tmax;
    ray.time = 0.0f;
    ray.mask = 0xffffffffu;
    ray.id = 0;
    ray.flags = 0;
    rtcOccluded1(scene_, &ctx, &ray);
    return ray.tfar < 0.0f; // Embree sets tfar = -inf on a hit
}

void EmbreeScene::occluded16(const shared::RaySegment* seg, int count, bool* occluded) const {
    RTCIntersectContext ctx;
    rtcInitIntersectContext(&ctx);
    ctx.flags = RTC_INTERSECT_CONTEXT_FLAG_COHERENT;
    alignas(64) int valid[16];
    alignas(64) RTCRay16 rays;
    for (int k = 0; k < 16; ++k) {
        const bool use = k < count;
        valid[k] = use ? -1 : 0;
        const shared::RaySegment& s = seg[use ? k : 0];
        rays.org_x[k] = s.origin.x;
        rays.org_y[k] = s.origin.y;
        rays.org_z[k] = s.origin.z;
        rays.dir_x[k] = s.dir.x;
        rays.dir_y[k] = s.dir.y;
        rays.dir_z[k] = s.dir.z;
        rays.tnear[k] = s.tmin;
        rays.tfar[k] = s.tmax;
        rays.time[k] = 0.0f;
        rays.mask[k] = 0xffffffffu;
        rays.id[k] = unsigned(k);
        rays.flags[k] = 0;
    }
    rtcOccluded16(valid, scene_, &ctx, &rays);
    for (int k = 0; k < count; ++k) occluded[k] = rays.tfar[k] < 0.0f;
}

EmbreeScene::Hit EmbreeScene::intersect(const glm::vec3& o, const glm::vec3& d, float tmin,
                                        float tmax) const {
    RTCIntersectContext ctx;
    rtcInitIntersectContext(&ctx);
    RTCRayHit rh;
    rh.ray.org_x = o.x;
    rh.ray.org_y = o.y;
    rh.ray.org_z = o.z;
    rh.ray.dir_x = d.x;
    rh.ray.dir_y = d.y;
    rh.ray.dir_z = d.z;
    rh.ray.tnear = tmin;
    rh.ray.tfar = tmax;
    rh.ray.time = 0.0f;
    rh.ray.mask = 0xffffffffu;
    rh.ray.id = 0;
    rh.ray.flags = 0;
    rh.hit.geomID = RTC_INVALID_GEOMETRY_ID;
    rh.hit.primID = RTC_INVALID_GEOMETRY_ID;
    rtcIntersect1(scene_, &ctx, &rh);
    Hit h;
    if (rh.hit.geomID != RTC_INVALID_GEOMETRY_ID) {
        h.triangle = std::int32_t(rh.hit.primID);
        h.t = rh.ray.tfar;
    }
    return h;
}

} // namespace rsim
