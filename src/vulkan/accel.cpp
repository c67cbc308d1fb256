// SPDX-License-Identifier: MIT
#include "vulkan/accel.h"

#include "rsim/shared/gpu_layout.h"
#include "util/error.h"
#include "vulkan/pipeline.h"

#include <spdlog/spdlog.h>

namespace rsim::vk {
namespace {
std::uint64_t alignUp(std::uint64_t v, std::uint64_t a) { return (v + a - 1) / a * a; }

constexpr VkBufferUsageFlags kAsInput =
    VK_BUFFER_USAGE_ACCELERATION_STRUCTURE_BUILD_INPUT_READ_ONLY_BIT_KHR |
    VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
constexpr VkBufferUsageFlags kAsStorage =
    VK_BUFFER_USAGE_ACCELERATION_STRUCTURE_STORAGE_BIT_KHR | VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT;
constexpr VkBufferUsageFlags kScratch =
    VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT;

VkAccelerationStructureKHR createAs(Device& d, const Buffer& storage,
                                    VkAccelerationStructureTypeKHR type, std::uint64_t size) {
    VkAccelerationStructureCreateInfoKHR ci{VK_STRUCTURE_TYPE_ACCELERATION_STRUCTURE_CREATE_INFO_KHR};
    ci.buffer = storage.handle();
    ci.size = size;
    ci.type = type;
    VkAccelerationStructureKHR as;
    VK_CHECK(d.vk().vkCreateAccelerationStructureKHR(d.handle(), &ci, nullptr, &as));
    return as;
}

VkDeviceAddress asAddress(Device& d, VkAccelerationStructureKHR as) {
    VkAccelerationStructureDeviceAddressInfoKHR ai{VK_STRUCTURE_TYPE_ACCELERATION_STRUCTURE_DEVICE_ADDRESS_INFO_KHR};
    ai.accelerationStructure = as;
    return d.vk().vkGetAccelerationStructureDeviceAddressKHR(d.handle(), &ai);
}
} // namespace

SceneAccel::SceneAccel(Device& d, const std::vector<shared::RayBvhNode>& nodes,
                       const std::vector<glm::vec4>& leafTriangles)
    : device_(d) {
    if (!d.rays() || usesAccelerationStructures(d.rayPath()))
        throw Error("internal: rsim's BVH for rays on " + d.label() + ", which does not trace by it");
    bvhNodes_ = makeStorage(d, nodes, "ray BVH nodes");
    bvhTriangles_ = makeStorage(d, leafTriangles, "ray BVH triangles");
    bvhHeader_ = makeStorage(d, std::vector<shared::RayBvhHeader>{{bvhNodes_.address(), bvhTriangles_.address()}},
                             "ray BVH header");
    spdlog::info("{}: rsim's BVH for rays {:.1f} MiB ({} nodes)", d.label(),
                 double(bvhNodes_.size() + bvhTriangles_.size()) / 1048576.0, nodes.size());
}

void SceneAccel::bindTo(Pipeline& p) const {
    if (tlas_) p.bindTlas(tlas_);
    else p.bindStorage(bvhHeader_);
}

SceneAccel::SceneAccel(Device& d, const std::vector<glm::vec3>& vertices) : device_(d) {
    if (!d.accelerationStructures()) throw Error("internal: an acceleration structure on " + d.label() + ", created without ray tracing");
    const auto& vk = d.vk();
    const std::uint32_t triangles = std::uint32_t(vertices.size() / 3);
    Buffer vbuf = makeStorage(d, vertices, "BLAS vertices", kAsInput);

    // --- BLAS: all triangles, opaque (no any-hit), built for fast trace, compactable.
    VkAccelerationStructureGeometryKHR geom{VK_STRUCTURE_TYPE_ACCELERATION_STRUCTURE_GEOMETRY_KHR};
    geom.geometryType = VK_GEOMETRY_TYPE_TRIANGLES_KHR;
    geom.flags = VK_GEOMETRY_OPAQUE_BIT_KHR;
    auto& tri = geom.geometry.triangles;
    tri.sType = VK_STRUCTURE_TYPE_ACCELERATION_STRUCTURE_GEOMETRY_TRIANGLES_DATA_KHR;
    tri.vertexFormat = VK_FORMAT_R32G32B32_SFLOAT;
    tri.vertexData.deviceAddress = vbuf.address();
    tri.vertexStride = sizeof(glm::vec3);
    tri.maxVertex = std::uint32_t(vertices.size() - 1);
    tri.indexType = VK_INDEX_TYPE_NONE_KHR;
    VkAccelerationStructureBuildGeometryInfoKHR build{VK_STRUCTURE_TYPE_ACCELERATION_STRUCTURE_BUILD_GEOMETRY_INFO_KHR};
    build.type = VK_ACCELERATION_STRUCTURE_TYPE_BOTTOM_LEVEL_KHR;
    build.flags = VK_BUILD_ACCELERATION_STRUCTURE_PREFER_FAST_TRACE_BIT_KHR |
                  VK_BUILD_ACCELERATION_STRUCTURE_ALLOW_COMPACTION_BIT_KHR;
    build.mode = VK_BUILD_ACCELERATION_STRUCTURE_MODE_BUILD_KHR;
    build.geometryCount = 1;
    build.pGeometries = &geom;
    VkAccelerationStructureBuildSizesInfoKHR sizes{VK_STRUCTURE_TYPE_ACCELERATION_STRUCTURE_BUILD_SIZES_INFO_KHR};
    vk.vkGetAccelerationStructureBuildSizesKHR(d.handle(), VK_ACCELERATION_STRUCTURE_BUILD_TYPE_DEVICE_KHR,
                                               &build, &triangles, &sizes);
    const std::uint64_t scratchAlign = d.asProperties().minAccelerationStructureScratchOffsetAlignment;
    Buffer blasTmp(d, sizes.accelerationStructureSize, kAsStorage, MemoryKind::Device, "BLAS (uncompacted)");
    VkAccelerationStructureKHR blasTmpAs = createAs(d, blasTmp, build.type, sizes.accelerationStructureSize);
    Buffer scratch(d, sizes.buildScratchSize + scratchAlign, kScratch, MemoryKind::Device, "BLAS scratch");
    build.dstAccelerationStructure = blasTmpAs;
    build.scratchData.deviceAddress = alignUp(scratch.address(), scratchAlign);
    VkAccelerationStructureBuildRangeInfoKHR range{triangles, 0, 0, 0};
    const VkAccelerationStructureBuildRangeInfoKHR* ranges = &range;

    VkQueryPoolCreateInfo qi{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
    qi.queryType = VK_QUERY_TYPE_ACCELERATION_STRUCTURE_COMPACTED_SIZE_KHR;
    qi.queryCount = 1;
    VkQueryPool query;
    VK_CHECK(vk.vkCreateQueryPool(d.handle(), &qi, nullptr, &query));
    d.submitAndWait([&](VkCommandBuffer cmd) {
        vk.vkCmdResetQueryPool(cmd, query, 0, 1);
        vk.vkCmdBuildAccelerationStructuresKHR(cmd, 1, &build, &ranges);
        VkMemoryBarrier mb{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
        mb.srcAccessMask = VK_ACCESS_ACCELERATION_STRUCTURE_WRITE_BIT_KHR;
        mb.dstAccessMask = VK_ACCESS_ACCELERATION_STRUCTURE_READ_BIT_KHR;
        vk.vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_ACCELERATION_STRUCTURE_BUILD_BIT_KHR,
                                VK_PIPELINE_STAGE_ACCELERATION_STRUCTURE_BUILD_BIT_KHR, 0, 1, &mb, 0,
                                nullptr, 0, nullptr);
        vk.vkCmdWriteAccelerationStructuresPropertiesKHR(
            cmd, 1, &blasTmpAs, VK_QUERY_TYPE_ACCELERATION_STRUCTURE_COMPACTED_SIZE_KHR, query, 0);
    });
    VkDeviceSize compacted = 0;
    VK_CHECK(vk.vkGetQueryPoolResults(d.handle(), query, 0, 1, sizeof compacted, &compacted,
                                      sizeof compacted, VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT));
    vk.vkDestroyQueryPool(d.handle(), query, nullptr);
    blasUncompacted_ = sizes.accelerationStructureSize;
    blasBuffer_ = Buffer(d, compacted, kAsStorage, MemoryKind::Device, "BLAS");
    blas_ = createAs(d, blasBuffer_, build.type, compacted);
    d.name(blas_, VK_OBJECT_TYPE_ACCELERATION_STRUCTURE_KHR, "BLAS (all triangles)");
    d.submitAndWait([&](VkCommandBuffer cmd) {
        VkCopyAccelerationStructureInfoKHR ci{VK_STRUCTURE_TYPE_COPY_ACCELERATION_STRUCTURE_INFO_KHR};
        ci.src = blasTmpAs;
        ci.dst = blas_;
        ci.mode = VK_COPY_ACCELERATION_STRUCTURE_MODE_COMPACT_KHR;
        vk.vkCmdCopyAccelerationStructureKHR(cmd, &ci);
    });
    vk.vkDestroyAccelerationStructureKHR(d.handle(), blasTmpAs, nullptr);
    blasBytes_ = compacted;

    // --- TLAS: one instance, identity transform; both faces of every triangle occlude.
    VkAccelerationStructureInstanceKHR inst{};
    inst.transform.matrix[0][0] = inst.transform.matrix[1][1] = inst.transform.matrix[2][2] = 1.0f;
    inst.mask = 0xff;
    inst.flags = VK_GEOMETRY_INSTANCE_TRIANGLE_FACING_CULL_DISABLE_BIT_KHR |
                 VK_GEOMETRY_INSTANCE_FORCE_OPAQUE_BIT_KHR;
    inst.accelerationStructureReference = asAddress(d, blas_);
    Buffer instances = makeStorage(d, std::vector<VkAccelerationStructureInstanceKHR>{inst},
                                   "TLAS instances", kAsInput);
    VkAccelerationStructureGeometryKHR tgeom{VK_STRUCTURE_TYPE_ACCELERATION_STRUCTURE_GEOMETRY_KHR};
    tgeom.geometryType = VK_GEOMETRY_TYPE_INSTANCES_KHR;
    tgeom.flags = VK_GEOMETRY_OPAQUE_BIT_KHR;
    tgeom.geometry.instances.sType = VK_STRUCTURE_TYPE_ACCELERATION_STRUCTURE_GEOMETRY_INSTANCES_DATA_KHR;
    tgeom.geometry.instances.data.deviceAddress = instances.address();
    VkAccelerationStructureBuildGeometryInfoKHR tbuild{VK_STRUCTURE_TYPE_ACCELERATION_STRUCTURE_BUILD_GEOMETRY_INFO_KHR};
    tbuild.type = VK_ACCELERATION_STRUCTURE_TYPE_TOP_LEVEL_KHR;
    tbuild.flags = VK_BUILD_ACCELERATION_STRUCTURE_PREFER_FAST_TRACE_BIT_KHR;
    tbuild.mode = VK_BUILD_ACCELERATION_STRUCTURE_MODE_BUILD_KHR;
    tbuild.geometryCount = 1;
    tbuild.pGeometries = &tgeom;
    const std::uint32_t one = 1;
    VkAccelerationStructureBuildSizesInfoKHR tsizes{VK_STRUCTURE_TYPE_ACCELERATION_STRUCTURE_BUILD_SIZES_INFO_KHR};
    vk.vkGetAccelerationStructureBuildSizesKHR(d.handle(), VK_ACCELERATION_STRUCTURE_BUILD_TYPE_DEVICE_KHR,
                                               &tbuild, &one, &tsizes);
    tlasBuffer_ = Buffer(d, tsizes.accelerationStructureSize, kAsStorage, MemoryKind::Device, "TLAS");
    tlas_ = createAs(d, tlasBuffer_, tbuild.type, tsizes.accelerationStructureSize);
    d.name(tlas_, VK_OBJECT_TYPE_ACCELERATION_STRUCTURE_KHR, "TLAS");
    Buffer tscratch(d, tsizes.buildScratchSize + scratchAlign, kScratch, MemoryKind::Device, "TLAS scratch");
    tbuild.dstAccelerationStructure = tlas_;
    tbuild.scratchData.deviceAddress = alignUp(tscratch.address(), scratchAlign);
    VkAccelerationStructureBuildRangeInfoKHR trange{1, 0, 0, 0};
    const VkAccelerationStructureBuildRangeInfoKHR* tranges = &trange;
    d.submitAndWait([&](VkCommandBuffer cmd) {
        vk.vkCmdBuildAccelerationStructuresKHR(cmd, 1, &tbuild, &tranges);
    });
    spdlog::info("{}: BLAS {:.1f} MiB (compacted from {:.1f} MiB), TLAS {:.2f} MiB", d.label(),
                 double(blasBytes_) / 1048576.0, double(blasUncompacted_) / 1048576.0,
                 double(tlasBuffer_.size()) / 1048576.0);
}

SceneAccel::~SceneAccel() {
    const auto& vk = device_.vk();
    if (tlas_) vk.vkDestroyAccelerationStructureKHR(device_.handle(), tlas_, nullptr);
    if (blas_) vk.vkDestroyAccelerationStructureKHR(device_.handle(), blas_, nullptr);
}

} // namespace rsim::vk
