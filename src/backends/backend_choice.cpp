// SPDX-License-Identifier: MIT
#include "backends/backend_choice.h"

#include "k/k_plan.h"

#include <algorithm>
#include <sstream>

#include <spdlog/spdlog.h>

#include "backends/vulkan_backend.h"
#include "util/error.h"
#include "util/parallel.h"
#include "util/ranks.h"
#include "vulkan/instance.h"

namespace rsim {
namespace {

int rank(const vk::PhysicalDeviceInfo& d) {
    switch (d.type) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return 4;
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return 3;
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return 2;
    case VK_PHYSICAL_DEVICE_TYPE_CPU: return 1;
    default: return 0;
    }
}

// Indices (positions in `rsim devices`) of the devices a --devices value names.
std::vector<std::uint32_t> parseDevices(const std::string& spec, const std::vector<vk::PhysicalDeviceInfo>& all) {
    std::vector<std::uint32_t> out;
    if (spec == "auto" || spec == "all") {
        std::vector<const vk::PhysicalDeviceInfo*> usable;
        for (const auto& d : all)
            if (d.usable) usable.push_back(&d);
        std::stable_sort(usable.begin(), usable.end(),
                         [](auto* a, auto* b) { return rank(*a) > rank(*b); });
        if (usable.empty()) return out;
        // all: every device of the best kind (every GPU, or every software device).
        for (auto* d : usable)
            if (spec == "all" ? rank(*d) == rank(*usable.front()) : out.empty()) out.push_back(d->index);
        return out;
    }
    if (spec.empty()) {
        throw InputError("--devices: expected auto, all or indices like 0,1 (see 'rsim devices')");
    }
    std::stringstream ss(spec);
    std::string item;
    while (std::getline(ss, item, ',')) {
        char* end = nullptr;
        const unsigned long v = std::strtoul(item.c_str(), &end, 10);
        if (item.empty() || *end != '\0')
            throw InputError("--devices " + spec + ": expected auto, all or indices like 0,1 (see 'rsim devices')");
        if (v >= all.size())
            throw InputError("--devices " + spec + ": there is no Vulkan device " + item + " (" +
                             std::to_string(all.size()) + " found; see 'rsim devices')");
        if (!all[v].usable)
            throw InputError("--devices " + spec + ": device " + item + " (" + all[v].name +
                             ") cannot run rsim: " + all[v].unusableReason);
        out.push_back(std::uint32_t(v));
    }
    return out;
}

} // namespace

namespace {

std::shared_ptr<vk::Instance> makeInstance(const BackendChoice& choice) {
    std::string why;
    if (!vk::Instance::loaderAvailable(&why)) throw Error("Vulkan backend: " + why);
    return std::make_shared<vk::Instance>(choice.validation);
}

VulkanSelection selectOn(std::shared_ptr<vk::Instance> instance, const BackendChoice& choice) {
    const auto picked = parseDevices(choice.devices, instance->devices());
    if (picked.empty()) {
        std::string list;
        for (const auto& d : instance->devices()) list += "\n  " + d.name + ": " + d.unusableReason;
        throw Error("Vulkan backend: no usable Vulkan device was found" +
                    (list.empty() ? std::string(" (no Vulkan devices at all)") : ":" + list));
    }
    VulkanSelection out;
    for (std::size_t k = 0; k < picked.size(); ++k) {
        const auto& info = instance->devices()[picked[k]];
        const vk::RayPath p = rayPathFor(info, choice.visibility);
        // One ray path for all devices: pipelines and counts are then comparable. When the
        // devices' own choices differ, the bvh path, which every device has.
        if (k > 0 && p != out.path) out.path = vk::RayPath::Bvh;
        else if (k == 0) out.path = p;
        out.devices.push_back(&info);
        spdlog::info("backend: vulkan device {}: {} ({})", k, info.name, info.typeName());
    }
    for (const auto* info : out.devices)
        if (out.path == vk::RayPath::Pipeline && !info->rayTracingPipeline)
            throw InputError("--devices " + choice.devices + ": the devices share no ray path");
    spdlog::info("backend: {} device(s), {} visibility path", out.devices.size(), vk::rayPathName(out.path));
    out.instance = std::move(instance);
    return out;
}

} // namespace

vk::RayPath rayPathFor(const vk::PhysicalDeviceInfo& d, const std::string& visibility) {
    if (visibility == "ray-query") {
        if (!d.rayQuery)
            throw InputError("--visibility ray-query: " + d.name + " has no VK_KHR_ray_query (--visibility bvh runs on " +
                             "every device" + (d.rayTracingPipeline ? "; it has a ray-tracing pipeline as well)" : ")"));
        return vk::RayPath::RayQuery;
    }
    if (visibility == "pipeline") {
        if (!d.rayTracingPipeline)
            throw InputError("--visibility pipeline: " + d.name +
                             " has no VK_KHR_ray_tracing_pipeline (--visibility bvh runs on every device)");
        return vk::RayPath::Pipeline;
    }
    if (visibility == "bvh") return vk::RayPath::Bvh;
    if (visibility != "auto")
        throw InputError("--visibility " + visibility + ": expected auto, ray-query, pipeline or bvh");
    // A device with a ray-tracing pipeline but no ray queries traverses in software (a GPU
    // without RT cores): rsim's own traversal is faster there, and its device is created 0.2 s
    // sooner (docs/benchmarks.md, "rsim's own BVH instead of the driver's traversal"). So is a
    // device without ray tracing at all.
    return d.accelerationStructure && d.rayQuery ? vk::RayPath::RayQuery : vk::RayPath::Bvh;
}

void VulkanSelection::describe(RunMetadata& meta) const {
    meta.backend = "vulkan";
    meta.devices.clear();
    for (const auto* info : devices) meta.devices.push_back(info->described());
    meta.visibilityPath = vk::rayPathName(path);
}

VulkanSelection selectVulkan(const BackendChoice& choice) {
    if (choice.backend == "cpu") return {};
    if (choice.backend == "vulkan") return selectOn(makeInstance(choice), choice);
    if (choice.backend != "auto") throw InputError("--backend " + choice.backend + ": expected auto, cpu or vulkan");
    try {
        auto instance = makeInstance(choice);
        // A software Vulkan device (lavapipe) is several times slower than the CPU backend:
        // auto takes it only when asked for by --devices.
        if (choice.devices == "auto") {
            const auto picked = parseDevices("auto", instance->devices());
            if (!picked.empty() && instance->devices()[picked[0]].isCpu()) {
                spdlog::info("backend: using the CPU: the only Vulkan device, {}, runs on the CPU and is slower "
                             "than the CPU backend (--backend vulkan uses it anyway)",
                             instance->devices()[picked[0]].name);
                return {};
            }
        }
        return selectOn(std::move(instance), choice);
    } catch (const InputError&) {
        throw;
    } catch (const Error& e) {
        spdlog::info("backend: using the CPU ({})", e.what());
        return {};
    }
}

bool needsTransferQueues(const BackendChoice& choice, std::size_t devices, std::uint64_t deviceBytes,
                         std::uint64_t trianglesAtMost) {
    if (devices != 1 || Ranks::world().many() || trianglesAtMost == 0 ||
        parseStreamMode(choice.stream) == StreamMode::Always)
        return true;
    std::uint64_t memory = deviceBytes;
    if (choice.maxDeviceMb > 0.0) memory = std::min(memory, std::uint64_t(choice.maxDeviceMb * 1048576.0));
    const double fp32K = 4.0 * double(trianglesAtMost) * double(trianglesAtMost);
    return fp32K * 8.0 > double(memory);
}

std::unique_ptr<Backend> makeBackend(const BackendChoice& choice, const VulkanSelection& selected, bool rays,
                                     std::uint64_t trianglesAtMost) {
    if (!selected) return makeCpuBackend();
    return makeVulkanBackendOn(selected.instance, selected.devices, selected.path, parseStreamMode(choice.stream),
                               std::uint64_t(choice.maxDeviceMb * 1048576.0),
                               choice.maxHostMb > 0.0 ? std::uint64_t(choice.maxHostMb * 1048576.0)
                                                      : defaultHostBudgetBytes(),
                               TransportTuning{choice.radiositySplit, choice.radiosityUnroll, choice.radiosityPoses,
                                               choice.passBlocks, choice.radiosityLanes == "off",
                                               choice.laneReceivers, choice.radiosityStaged},
                               rays,
                               needsTransferQueues(choice, selected.devices.size(),
                                                   selected.devices.empty() ? 0 : selected.devices[0]->deviceLocalBytes,
                                                   trianglesAtMost));
}

std::unique_ptr<Backend> makeBackend(const BackendChoice& choice) {
    return makeBackend(choice, selectVulkan(choice));
}

std::unique_ptr<Backend> makeVulkanBackend(const BackendChoice& choice) {
    return makeBackend(choice, selectOn(makeInstance(choice), choice));
}

std::string describeDevices() {
    std::ostringstream os;
    std::string why;
    if (!vk::Instance::loaderAvailable(&why)) {
        os << "Vulkan: unavailable (" << why << ")\n";
    } else {
        try {
            vk::Instance instance(false);
            if (instance.devices().empty()) os << "Vulkan: no devices\n";
            for (const auto& d : instance.devices()) {
                os << "vulkan device " << d.index << ": " << d.name << " (" << d.typeName() << ")\n"
                   << "  driver:     " << d.driver << "\n"
                   << "  API:        " << VK_API_VERSION_MAJOR(d.apiVersion) << "." << VK_API_VERSION_MINOR(d.apiVersion)
                   << "." << VK_API_VERSION_PATCH(d.apiVersion) << "\n"
                   << "  memory:     " << (d.deviceLocalBytes >> 20) << " MiB device-local\n"
                   << "  queues:    ";
                for (const auto& q : d.queueFamilies) {
                    os << " [family " << q.index << ": " << q.count << " x";
                    if (q.flags & VK_QUEUE_GRAPHICS_BIT) os << " graphics";
                    if (q.flags & VK_QUEUE_COMPUTE_BIT) os << " compute";
                    if (q.flags & VK_QUEUE_TRANSFER_BIT) os << " transfer";
                    os << "]";
                }
                os << "\n  visibility: ray-query " << (d.accelerationStructure && d.rayQuery ? "yes" : "no")
                   << ", pipeline " << (d.accelerationStructure && d.rayTracingPipeline ? "yes" : "no")
                   << ", bvh " << (d.usable ? "yes" : "no") << "\n"
                   << "  usable:     " << (d.usable ? "yes" : "no (" + d.unusableReason + ")") << "\n";
            }
        } catch (const Error& e) {
            os << "Vulkan: " << e.what() << "\n";
        }
    }
    os << "cpu: " << threadCount() << " threads (backend 'cpu', visibility with Embree)\n";
    return os.str();
}

} // namespace rsim
