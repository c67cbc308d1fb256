// SPDX-License-Identifier: MIT
// Analytic test scenes built in memory (no mesh files), and helpers to run a backend on them.
#pragma once
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include <glm/glm.hpp>

#include "backends/backend.h"
#include "backends/backend_choice.h"
#include "pipeline/simulate.h"
#include "geometry/prepare.h"
#include "scene/scene_config.h"
#include "scene/scene_desc.h"
#include "vulkan/device.h"
#include "vulkan/instance.h"

namespace rsim::test {

// Triangles under construction: each quad/rectangle is split into a grid of triangles.
struct SceneBuilder {
    LoadedGeometry geometry;
    // Source-mesh index given to the triangles added next (tests use it to tell surfaces apart
    // after the Morton reordering).
    std::uint32_t group = 0;

    // Adds a material; returns its index.
    std::uint32_t material(const std::string& name, float reflectance, bool twoSided = false);
    // Adds a material of any type (MODEL.md §10.1); the radiosity pipeline's reflectance is its
    // albedo at normal incidence, and a dielectric sheet is two-sided, as a scene file's.
    std::uint32_t material(const std::string& name, const MaterialModel& model, bool twoSided = false);
    // Rectangle origin + u s + v t (s, t in [0,1]) as nu x nv cells of two triangles each,
    // front side along cross(u, v).
    void rectangle(glm::dvec3 origin, glm::dvec3 u, glm::dvec3 v, int nu, int nv,
                   std::uint32_t material);
    // Closed axis-aligned box seen from inside (normals point inward), each face n x n cells.
    void roomShell(glm::dvec3 lo, glm::dvec3 hi, int n, std::uint32_t material);
    // Closed box seen from outside.
    void box(glm::dvec3 lo, glm::dvec3 hi, int n, std::uint32_t material);
    // Disk of the given radius around `centre` in the plane of the unit vectors u, v (front side
    // along cross(u, v)): a fan and rings - 1 rings of quads, `segments` around. The polygon
    // is scaled to the disk's area.
    void disk(glm::dvec3 centre, glm::dvec3 u, glm::dvec3 v, double radius, int rings, int segments,
              std::uint32_t material);

    // One triangle (front side along cross(b - a, c - a)) in the current group.
    void triangle(glm::dvec3 a, glm::dvec3 b, glm::dvec3 c, std::uint32_t material);

    PreparedScene prepare(double maxEdgeM = 0.0) const;
};

// A SceneDesc with the given light/sensor at `eye` looking along +x, for makeSimConfig.
SceneDesc basicScene(glm::dvec3 eye, glm::dvec3 lookAt);

// A 4 x 3 x 2.5 m room of 0.6 walls with a 0.4 box on its floor, and a camera (32 x 24 pixels, 300
// timesteps) in it looking at the box: the camera tests' scene.
struct BoxRoom {
    PreparedScene scene;
    SceneDesc desc;
    BoxRoom();
};

// The named backend: "cpu", "vulkan-ray-query" or "vulkan-pipeline" (under the validation layer).
// `tune` may change the Vulkan choice (devices, tuning) before the backend is made.
std::unique_ptr<Backend> makeTestBackend(const std::string& backend,
                                         const std::function<void(BackendChoice&)>& tune = {});

// Runs the named backend on a scene; Vulkan runs under the validation layer and throws if it
// reports any error. `meta`, when given, receives the run's description.
SimulationResult simulate(const std::string& backend, const PreparedScene& scene, const SimConfig& config,
                          bool keepK = true, bool images = false, RunMetadata* meta = nullptr);
// The same with each phase on the backend `backends` names (cross-fed phases).
SimulationResult simulateOn(const PhaseBackends& backends, const PreparedScene& scene, const SimConfig& config,
                            bool keepK = true, bool images = false, RunMetadata* meta = nullptr);

// The backends available on this machine: "cpu" and each Vulkan ray path a device supports.
std::vector<std::string> backendsUnderTest();
std::vector<std::string> vulkanPathsAvailable();
// The instance's first usable device (nullptr: none), and a device made on it, on its ray-query
// path where it has one, else its ray-tracing pipeline's: for the tests of single passes.
const vk::PhysicalDeviceInfo* firstUsableDevice(const vk::Instance& instance);
vk::Device makeFirstDevice(vk::Instance& instance);

// A fresh empty folder under the system temp dir, removed on destruction.
class TempDir {
public:
    TempDir();
    ~TempDir();
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
    const std::filesystem::path& path() const { return path_; }
    std::filesystem::path operator/(const std::string& name) const { return path_ / name; }

private:
    std::filesystem::path path_;
};

void writeFile(const std::filesystem::path& file, const std::string& text);
std::string readFile(const std::filesystem::path& file);

// Dense double-precision solve of A x = b (Gaussian elimination with partial pivoting).
std::vector<double> solveDense(std::vector<double> A, std::vector<double> b, std::size_t n);

} // namespace rsim::test
