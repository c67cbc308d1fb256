// SPDX-License-Identifier: MIT
// rsim._rsim, the compiled part of `import rsim` (python/rsim/__init__.py): a scene, a
// simulator over the same pipeline as `rsim run` (pipeline/simulate.h), and numpy arrays out.
// Errors keep the CLI's messages: bad input is ValueError, everything else RuntimeError.
#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>
#include <spdlog/spdlog.h>

#include "backends/backend_choice.h"
#include "geometry/prepare.h"
#include "output/pixel_camera.h"
#include "output/results_writer.h"
#include "pipeline/run_checks.h"
#include "pipeline/run_simulation.h"
#include "pipeline/simulate.h"
#include "python/py_arrays.h"
#include "python/py_poses.h"
#include "python/py_runtime.h"
#include "python/py_scene.h"
#include "scene/mesh_loader.h"
#include "util/cancel.h"
#include "util/error.h"
#include "util/parallel.h"
#include "util/progress.h"
#include "vulkan/instance.h"

namespace py = pybind11;

namespace rsim {
namespace {

using namespace python;

class PySimulator {
public:
    PySimulator(std::shared_ptr<PyScene> scene, const std::string& backend, const std::string& devices,
                std::optional<std::uint32_t> samples, const std::string& kFormat, bool kCache,
                std::optional<std::filesystem::path> kCacheDir, const std::optional<std::string>& transport)
        : scene_(std::move(scene)) {
        if (backend == "cpu" && devices != "auto")
            throw InputError("devices=\"" + devices + "\": only the Vulkan backend uses it; drop it or use backend=\"vulkan\"");
        req_.sceneFile = scene_->file();
        req_.commandLine = "import rsim: Simulator.run"; // summary.json's "command"
        req_.overrides = scene_->overrides();
        req_.backend.backend = backend;
        req_.backend.devices = devices;
        req_.kFormat = kFormat;
        req_.noKCache = !kCache;
        req_.kCacheDir = kCacheDir;
        // The triangles do not depend on S or the transport: the scene's prepared geometry serves.
        SceneDesc desc = scene_->desc();
        if (transport) {
            if (*transport != "radiosity" && *transport != "paths" && *transport != "phasors")
                throw InputError("transport=\"" + *transport +
                                 "\": expected \"radiosity\", \"paths\" or \"phasors\"");
            // Read again with the transport set, so that its defaults (sensor.pixel_samples and
            // pixel_filter) and checks are the scene file's.
            req_.overrides.push_back({"simulation.transport", "\"" + *transport + "\"", "transport=\"" + *transport + "\""});
            // A simulator writes no files: the scene's [output] timeseries (which phasors refuse)
            // has no say here; run(histories=...) asks for B and Z.
            if (*transport == "phasors")
                req_.overrides.push_back({"output.timeseries", "false", "transport=\"phasors\""});
            desc = withoutGil([&] { return loadSceneFile(scene_->file(), req_.overrides); });
            desc.meshes = scene_->desc().meshes;
        }
        req_ = tunedRequest(req_, desc); // the scene's [tuning] (docs/tuning.md)
        if (samples) {
            if (*samples < 1 || *samples > (1u << 20)) throw InputError("samples: expected 1 to 2^20");
            desc.sim.samples = *samples;
        }
        plan_ = planBatchOn(req_, desc);
        backend_ = withoutGil([&] { return makeBackend(plan_.request.backend); });
    }

    // Runs the poses (pipeline/simulate.h, K computed once; from the K cache on later calls)
    // and returns a dict of numpy arrays with a leading pose axis.
    py::dict run(const py::object& poses, bool histories) {
        if (histories && plan_.config.transport == Transport::Paths)
            throw InputError("histories=True: the paths transport computes no B or Z (MODEL.md section 10.2); drop it");
        if (histories && plan_.config.transport == Transport::Phasors)
            throw InputError("histories=True: the phasors transport computes no B or Z, only their phasors (MODEL.md "
                             "section 11); drop it");
        const SceneDesc& desc = plan_.scene;
        const std::vector<PoseDesc> descs = posesFrom(poses, desc);
        // One run at a time on this simulator (its backend, its held K): a second thread waits.
        const std::unique_lock lock = lockWithoutGil(runMutex_);
        std::vector<PoseConfig> configs;
        for (const PoseDesc& p : descs) configs.push_back({p.where, plan_.configAt(applyPose(desc, p))});
        const PreparedScene& prepared = scene_->prepared();
        RunOptions options = plan_.options;
        options.timeseries = histories;
        options.keepsEveryPose = true; // stacked into the returned arrays
        options.k.held = &held_; // K stays on the devices for the next call
        const bool kept = held_.K != nullptr;
        const std::size_t P = descs.size();
        PoseArrays arrays(P);
        RunInfo info = runInfoFor(req_);
        RunMetadata meta;
        BatchReport report;
        try {
            withoutGil([&] {
                SigintStopsRun sigint;
                PhaseTimes times;
                report = simulateBatch(PhaseBackends::all(*backend_), prepared, configs, options, times, meta,
                              [&](std::size_t p, SimulationResult& r, const PhaseTimes& own) {
                                  // summary.json of the pose, as its results directory would have it.
                                  RunInfo poseInfo = info;
                                  poseInfo.pose = descs[p].name;
                                  poseInfo.echoesCutOff = r.echoesCutOff;
                                  poseInfo.kFromCache = meta.kFromCache;
                                  const SceneDesc posed = applyPose(desc, descs[p]);
                                  std::string summary = summaryJsonText(
                                      ResultsView{posed, prepared, configs[p].config, r, meta, poseInfo}, own);
                                  arrays.add(p, poseArrays(std::move(r), prepared, configs[p].config, histories),
                                             std::move(summary));
                              });
            });
        } catch (const Interrupted&) {
            // Ctrl-C: the phase that saw it unwound (its device work done first); K computed in
            // an earlier call stays, one this call was computing does not. The stop stays
            // requested for runs on other threads; the last one's end clears it (py_runtime.h).
            PyErr_SetNone(PyExc_KeyboardInterrupt);
            throw py::error_already_set();
        }
        // As for rsim run: a run none of whose poses measured anything fails.
        checkSomeDistance(report.posesWithDistance, P, report.firstEchoesCutOff, configs[0].config);
        py::dict out;
        arrays.into(out);
        py::list names;
        for (const PoseDesc& p : descs) names.append(p.name);
        out["names"] = names;
        // The cameras, as images.h5's camera/ (OpenCV convention): K and the distortion, and per pose
        // world_from_camera and the light's position.
        auto K = array<double>({3, 3});
        auto M = array<double>({py::ssize_t(P), 4, 4});
        auto L = array<double>({py::ssize_t(P), 3});
        auto S = array<double>({py::ssize_t(P), 3});
        const auto k = output::cameraMatrix(configs[0].config);
        std::copy(k.begin(), k.end(), K.mutable_data());
        for (std::size_t p = 0; p < P; ++p) {
            const auto m = output::worldFromCamera(configs[p].config.sensor);
            std::copy(m.begin(), m.end(), M.mutable_data(p));
            for (int r = 0; r < 3; ++r) {
                L.mutable_at(p, r) = configs[p].config.light.position[r];
                S.mutable_at(p, r) = configs[p].config.sensor.position[r];
            }
        }
        out["camera/K"] = K;
        auto D = array<double>({5});
        const auto d = output::distortionCoefficients(configs[0].config);
        std::copy(d.begin(), d.end(), D.mutable_data());
        out["camera/distortion"] = D;
        out["camera/world_from_camera"] = M;
        out["camera/light_position"] = L;
        out["camera/position"] = S;
        out["backend"] = meta.backend;
        out["devices"] = meta.devices;
        lastDevices_ = meta.devices;
        out["k_from_cache"] = meta.kFromCache;
        out["k_kept"] = kept;
        return out;
    }

    // What it is; what a run changes (its devices, K) only when no run is under way.
    std::string repr() {
        std::string state = "a run is under way";
        if (const std::unique_lock lock(runMutex_, std::try_to_lock); lock.owns_lock()) {
            std::string devices;
            for (const std::string& d : lastDevices_) devices += (devices.empty() ? "" : ", ") + d;
            state = (devices.empty() ? std::string() : "on " + devices + ", ") + "K " +
                    (held_.K ? "kept from the last run" : "not computed yet");
        }
        return "<rsim.Simulator backend=" + req_.backend.backend + " devices=" + req_.backend.devices +
               ", S = " + std::to_string(plan_.scene.sim.samples) + ", " + state + ", scene " + scene_->repr() + ">";
    }

private:
    std::mutex runMutex_;
    std::vector<std::string> lastDevices_;
    std::shared_ptr<PyScene> scene_;
    RunRequest req_;
    RunPlan plan_; // the scene with the simulator's samples, K options, K cache
    std::unique_ptr<Backend> backend_;
    HeldK held_; // after backend_: K's device memory goes before its backend
};

// The devices of `rsim devices`, as dicts: the Vulkan ones (index as `devices=` takes it), then
// the CPU backend's.
py::list devices() {
    py::list out;
    std::string why;
    if (vk::Instance::loaderAvailable(&why)) {
        vk::Instance instance(false);
        for (const auto& d : instance.devices()) {
            py::dict e;
            e["backend"] = "vulkan";
            e["index"] = d.index;
            e["name"] = d.name;
            e["type"] = d.typeName();
            e["driver"] = d.driver;
            e["memory_bytes"] = d.deviceLocalBytes;
            e["ray_query"] = d.accelerationStructure && d.rayQuery;
            e["ray_tracing_pipeline"] = d.accelerationStructure && d.rayTracingPipeline;
            e["bvh"] = d.usable; // rsim's own traversal in compute shaders: every usable device
            e["usable"] = d.usable;
            if (!d.usable) e["unusable_reason"] = d.unusableReason;
            out.append(e);
        }
    }
    py::dict cpu;
    cpu["backend"] = "cpu";
    cpu["name"] = "cpu";
    cpu["threads"] = threadCount();
    cpu["usable"] = true;
    out.append(cpu);
    return out;
}

} // namespace
} // namespace rsim

PYBIND11_MODULE(_rsim, m) {
    using namespace rsim;
    m.doc() = "rsim's compiled core; use the `rsim` package.";
    setProgressEnabled(false);
    // Every record reaches Python's logging, whose level decides what shows (WARNING by default).
    spdlog::set_default_logger(std::make_shared<spdlog::logger>("rsim", logSink()));
    spdlog::set_level(spdlog::level::info);
    py::register_exception_translator([](std::exception_ptr p) {
        try {
            if (p) std::rethrow_exception(p);
        } catch (const InputError& e) {
            PyErr_SetString(PyExc_ValueError, e.what());
        } catch (const py::cast_error& e) {
            // A value of the wrong type that reached a conversion: bad input, as documented.
            PyErr_SetString(PyExc_ValueError, (std::string("an argument of the wrong type: ") + e.what()).c_str());
        } catch (const Error& e) {
            PyErr_SetString(PyExc_RuntimeError, e.what());
        }
    });
    py::class_<PyScene, std::shared_ptr<PyScene>>(m, "Scene")
        .def(py::init<const std::filesystem::path&, const std::vector<std::string>&>(), py::arg("path"),
             py::arg("set") = std::vector<std::string>{})
        .def(py::init<py::array_t<double, py::array::c_style | py::array::forcecast>,
                      py::array_t<std::int64_t, py::array::c_style | py::array::forcecast>, const py::object&, bool,
                      const std::filesystem::path&, const std::vector<std::string>&>(),
             py::arg("vertices"), py::arg("faces"), py::arg("reflectance"), py::arg("two_sided"), py::arg("base"),
             py::arg("set") = std::vector<std::string>{})
        .def_property_readonly("triangles", &PyScene::triangles)
        .def_property_readonly("timesteps", [](const PyScene& s) { return s.desc().sim.timesteps; })
        .def_property_readonly("resolution", [](const PyScene& s) {
            return std::pair<std::uint32_t, std::uint32_t>(s.desc().sensor.width, s.desc().sensor.height);
        })
        .def_property_readonly("dt_ns", [](const PyScene& s) { return s.desc().sim.dt_ns; })
        .def_property_readonly(
            "camera",
            [](const PyScene& s) {
                const SceneDesc& d = s.desc();
                auto vec = [](const glm::dvec3& v) { return std::vector<double>{v.x, v.y, v.z}; };
                py::dict out;
                out["position"] = vec(d.sensorPosition());
                out["look_at"] = vec(d.sensor.look_at);
                out["up"] = vec(d.sensor.up);
                return out;
            },
            "The scene's own camera: {\"position\", \"look_at\", \"up\"}, as run() takes a pose")
        .def_property_readonly(
            "bounds",
            [](PyScene& s) {
                const PreparedScene& p = s.prepared();
                auto out = array<double>({2, 3});
                for (int k = 0; k < 3; ++k) {
                    out.mutable_at(0, k) = double(p.boundsMin[k]);
                    out.mutable_at(1, k) = double(p.boundsMax[k]);
                }
                return out;
            },
            "The triangles' bounding box: [[x0, y0, z0], [x1, y1, z1]] (m)")
        .def("__repr__", &PyScene::repr);
    py::class_<PySimulator>(m, "Simulator")
        .def(py::init<std::shared_ptr<PyScene>, const std::string&, const std::string&, std::optional<std::uint32_t>,
                      const std::string&, bool, std::optional<std::filesystem::path>, const std::optional<std::string>&>(),
             py::arg("scene"), py::arg("backend") = "auto", py::arg("devices") = "auto", py::arg("samples") = py::none(),
             py::arg("k_format") = "", py::arg("k_cache") = true, py::arg("k_cache_dir") = py::none(),
             py::arg("transport") = py::none())
        .def("run", &PySimulator::run, py::arg("poses") = py::none(), py::arg("histories") = false)
        .def("__repr__", &PySimulator::repr);
    m.def("devices", &devices, "The compute devices rsim can use, as `rsim devices` lists them.");
    m.def("set_log_level", [](const std::string& level) {
        const auto l = spdlog::level::from_str(level);
        if (l == spdlog::level::off && level != "off") throw InputError("set_log_level: unknown level \"" + level + "\"");
        spdlog::set_level(l);
    });
}
