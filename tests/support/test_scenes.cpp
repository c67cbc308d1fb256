// SPDX-License-Identifier: MIT
#include "support/test_scenes.h"

#include <cmath>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>

#include <spdlog/spdlog.h>

#include "backends/backend_choice.h"
#include "util/progress.h"
#include "vulkan/instance.h"

namespace rsim::test {
namespace {
// Test output stays readable: only warnings and errors, no progress lines.
const bool kQuietLogs = [] {
    spdlog::set_level(spdlog::level::warn);
    setProgressEnabled(false);
    return true;
}();
} // namespace

std::uint32_t SceneBuilder::material(const std::string& name, float reflectance, bool twoSided) {
    geometry.materials.push_back(ResolvedMaterial::diffuse(name, reflectance, twoSided));
    return std::uint32_t(geometry.materials.size() - 1);
}

std::uint32_t SceneBuilder::material(const std::string& name, const MaterialModel& model, bool twoSided) {
    geometry.materials.push_back(ResolvedMaterial::of(name, model, twoSided));
    return std::uint32_t(geometry.materials.size() - 1);
}

void SceneBuilder::triangle(glm::dvec3 a, glm::dvec3 b, glm::dvec3 c, std::uint32_t m) {
    while (geometry.meshNames.size() <= group)
        geometry.meshNames.push_back("group" + std::to_string(geometry.meshNames.size()));
    geometry.v0.push_back(a);
    geometry.v1.push_back(b);
    geometry.v2.push_back(c);
    geometry.material.push_back(m);
    geometry.sourceMesh.push_back(group);
    ++geometry.loaded;
}

void SceneBuilder::rectangle(glm::dvec3 o, glm::dvec3 u, glm::dvec3 v, int nu, int nv,
                             std::uint32_t m) {
    for (int a = 0; a < nu; ++a)
        for (int b = 0; b < nv; ++b) {
            auto p = [&](int da, int db) {
                return o + u * (double(a + da) / nu) + v * (double(b + db) / nv);
            };
            const glm::dvec3 p00 = p(0, 0), p10 = p(1, 0), p11 = p(1, 1), p01 = p(0, 1);
            triangle(p00, p10, p11, m);
            triangle(p00, p11, p01, m);
        }
}

void SceneBuilder::roomShell(glm::dvec3 lo, glm::dvec3 hi, int n, std::uint32_t m) {
    const glm::dvec3 d = hi - lo;
    const glm::dvec3 X(d.x, 0, 0), Y(0, d.y, 0), Z(0, 0, d.z);
    rectangle(lo, X, Y, n, n, m);     // floor, normal +z
    rectangle(lo + Z, Y, X, n, n, m); // ceiling, normal -z
    rectangle(lo, Z, X, n, n, m);     // y = lo, normal +y
    rectangle(lo + Y, X, Z, n, n, m); // y = hi, normal -y
    rectangle(lo, Y, Z, n, n, m);     // x = lo, normal +x
    rectangle(lo + X, Z, Y, n, n, m); // x = hi, normal -x
}

void SceneBuilder::box(glm::dvec3 lo, glm::dvec3 hi, int n, std::uint32_t m) {
    const glm::dvec3 d = hi - lo;
    const glm::dvec3 X(d.x, 0, 0), Y(0, d.y, 0), Z(0, 0, d.z);
    rectangle(lo, Y, X, n, n, m);     // bottom, normal -z
    rectangle(lo + Z, X, Y, n, n, m); // top, normal +z
    rectangle(lo, X, Z, n, n, m);     // y = lo, normal -y
    rectangle(lo + Y, Z, X, n, n, m); // y = hi, normal +y
    rectangle(lo, Z, Y, n, n, m);     // x = lo, normal -x
    rectangle(lo + X, Y, Z, n, n, m); // x = hi, normal +x
}

void SceneBuilder::disk(glm::dvec3 c, glm::dvec3 u, glm::dvec3 v, double radius, int rings, int segments,
                       std::uint32_t m) {
    const double step = 2.0 * M_PI / segments;
    const double scaled = radius * std::sqrt(step / std::sin(step)); // polygon area = disk area
    auto p = [&](int ring, int k) {
        const double r = scaled * ring / rings, a = step * k;
        return c + r * (std::cos(a) * u + std::sin(a) * v);
    };
    auto add = [&](glm::dvec3 a, glm::dvec3 b, glm::dvec3 d) { triangle(a, b, d, m); };
    for (int k = 0; k < segments; ++k) {
        add(c, p(1, k), p(1, k + 1));
        for (int ring = 1; ring < rings; ++ring) {
            add(p(ring, k), p(ring + 1, k), p(ring + 1, k + 1));
            add(p(ring, k), p(ring + 1, k + 1), p(ring, k + 1));
        }
    }
}

PreparedScene SceneBuilder::prepare(double maxEdgeM) const {
    return prepareScene(geometry, maxEdgeM);
}

SceneDesc basicScene(glm::dvec3 eye, glm::dvec3 lookAt) {
    SceneDesc s;
    s.light.position = eye;
    s.light.direction = glm::normalize(lookAt - eye);
    s.sensor.look_at = lookAt;
    s.sensor.width = 32;
    s.sensor.height = 24;
    s.sim.timesteps = 400;
    s.sim.samples = 16;
    s.sim.direct_samples = 16;
    return s;
}

BoxRoom::BoxRoom() {
    SceneBuilder b;
    b.roomShell({0, 0, 0}, {4, 3, 2.5}, 4, b.material("walls", 0.6f));
    b.box({2.4, 1.0, 0}, {3.0, 1.8, 1.0}, 2, b.material("box", 0.4f));
    scene = b.prepare();
    desc = basicScene({0.3, 1.5, 1.4}, {4, 1.4, 0.9});
    desc.sim.timesteps = 300;
}

std::unique_ptr<Backend> makeTestBackend(const std::string& backend,
                                         const std::function<void(BackendChoice&)>& tune) {
    if (backend == "cpu") return makeCpuBackend();
    // "vulkan-ray-query" / "vulkan-pipeline" / "vulkan-bvh", always under the validation layer.
    BackendChoice choice;
    choice.backend = "vulkan";
    choice.visibility = backend.substr(std::string("vulkan-").size());
    choice.validation = true;
    if (tune) tune(choice);
    return makeVulkanBackend(choice);
}

SimulationResult simulateOn(const PhaseBackends& backends, const PreparedScene& scene, const SimConfig& config,
                            bool keepK, bool images, RunMetadata* meta) {
    PhaseTimes times;
    RunOptions opt;
    opt.keepK = keepK;
    opt.images = images;
    RunMetadata m;
    SimulationResult r = rsim::simulate(backends, scene, config, opt, times, m);
    if (m.validationErrors != 0)
        throw std::runtime_error(m.backend + ": " + std::to_string(m.validationErrors) +
                                 " Vulkan validation error(s); see the log above");
    if (meta) *meta = m;
    return r;
}

SimulationResult simulate(const std::string& backend, const PreparedScene& scene, const SimConfig& config,
                          bool keepK, bool images, RunMetadata* meta) {
    const std::unique_ptr<Backend> b = makeTestBackend(backend);
    return simulateOn(PhaseBackends::all(*b), scene, config, keepK, images, meta);
}

const vk::PhysicalDeviceInfo* firstUsableDevice(const vk::Instance& instance) {
    for (const auto& d : instance.devices())
        if (d.usable) return &d;
    return nullptr;
}

vk::Device makeFirstDevice(vk::Instance& instance) {
    const vk::PhysicalDeviceInfo* info = firstUsableDevice(instance);
    if (!info) throw std::runtime_error("no usable Vulkan device");
    return vk::Device(instance, *info, info->rayQuery ? vk::RayPath::RayQuery : vk::RayPath::Pipeline, "test");
}

std::vector<std::string> vulkanPathsAvailable() {
    static const std::vector<std::string> paths = [] {
        std::vector<std::string> out;
        if (!vk::Instance::loaderAvailable()) return out;
        try {
            vk::Instance instance(false);
            bool rq = false, rt = false;
            for (const auto& d : instance.devices()) {
                rq |= d.usable && d.rayQuery;
                rt |= d.usable && d.rayTracingPipeline;
            }
            if (rq) out.push_back("vulkan-ray-query");
            if (rt) out.push_back("vulkan-pipeline");
            if (rq || rt) out.push_back("vulkan-bvh"); // rsim's own BVH: compute shaders only
        } catch (const std::exception&) {
        }
        return out;
    }();
    return paths;
}

std::vector<std::string> backendsUnderTest() {
    std::vector<std::string> all{"cpu"};
    for (const auto& p : vulkanPathsAvailable()) all.push_back(p);
    return all;
}

TempDir::TempDir() {
    static std::mt19937_64 rng(std::random_device{}());
    for (;;) {
        path_ = std::filesystem::temp_directory_path() /
                ("rsim-test-" + std::to_string(rng() % 1000000000ULL));
        if (std::filesystem::create_directory(path_)) break;
    }
}

TempDir::~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
}

void writeFile(const std::filesystem::path& file, const std::string& text) {
    std::filesystem::create_directories(file.parent_path());
    std::ofstream(file, std::ios::binary) << text;
}

std::string readFile(const std::filesystem::path& file) {
    std::ifstream in(file, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

std::vector<double> solveDense(std::vector<double> A, std::vector<double> b, std::size_t n) {
    for (std::size_t c = 0; c < n; ++c) {
        std::size_t piv = c;
        for (std::size_t r = c + 1; r < n; ++r)
            if (std::abs(A[r * n + c]) > std::abs(A[piv * n + c])) piv = r;
        for (std::size_t k = 0; k < n; ++k) std::swap(A[c * n + k], A[piv * n + k]);
        std::swap(b[c], b[piv]);
        for (std::size_t r = c + 1; r < n; ++r) {
            const double f = A[r * n + c] / A[c * n + c];
            for (std::size_t k = c; k < n; ++k) A[r * n + k] -= f * A[c * n + k];
            b[r] -= f * b[c];
        }
    }
    std::vector<double> x(n);
    for (std::size_t c = n; c-- > 0;) {
        double s = b[c];
        for (std::size_t k = c + 1; k < n; ++k) s -= A[c * n + k] * x[k];
        x[c] = s / A[c * n + c];
    }
    return x;
}

} // namespace rsim::test
