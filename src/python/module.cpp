// SPDX-License-Identifier: MIT
// rsim._rsim, the compiled part of `import rsim` (python/rsim/__init__.py): a scene, a
// simulator over the same pipeline as `rsim run` (pipeline/simulate.h), and numpy arrays out.
// Errors keep the CLI's messages: bad input is ValueError, everything else RuntimeError.
#include <algorithm>
#include <csignal>
#include <cmath>
#include <memory>
#include <optional>
#include <mutex>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>
#include <spdlog/sinks/base_sink.h>
#include <spdlog/spdlog.h>

#include "backends/backend_choice.h"
#include "geometry/prepare.h"
#include "output/pixel_camera.h"
#include "output/pixel_images.h"
#include "output/results_writer.h"
#include "pipeline/run_simulation.h"
#include "pipeline/simulate.h"
#include "scene/mesh_loader.h"
#include "scene/poses.h"
#include "util/cancel.h"
#include "util/error.h"
#include "util/parallel.h"
#include "util/progress.h"
#include "vulkan/instance.h"

namespace py = pybind11;

namespace rsim {
namespace {

// rsim's log records go to Python's `logging` (logger "rsim"). The pipeline logs from worker
// threads while the GIL is released, so records wait here and are handed over on the calling
// thread when a call returns (flushLog): no thread but the caller ever takes the GIL.
class QueuedSink final : public spdlog::sinks::base_sink<std::mutex> {
public:
    std::vector<std::pair<int, std::string>> take() {
        std::lock_guard lock(mutex_);
        return std::exchange(records_, {});
    }

protected:
    void sink_it_(const spdlog::details::log_msg& msg) override {
        // Python's levels: DEBUG 10, INFO 20, WARNING 30, ERROR 40, CRITICAL 50.
        static const int kLevel[] = {10, 10, 20, 30, 40, 50, 0};
        records_.emplace_back(kLevel[int(msg.level)], std::string(msg.payload.data(), msg.payload.size()));
    }
    void flush_() override {}

private:
    std::vector<std::pair<int, std::string>> records_;
};

std::shared_ptr<QueuedSink>& logSink() {
    static auto sink = std::make_shared<QueuedSink>();
    return sink;
}

void flushLog() {
    const auto records = logSink()->take();
    if (records.empty()) return;
    py::object logger = py::module_::import("logging").attr("getLogger")("rsim");
    for (const auto& [level, text] : records) logger.attr("log")(level, text);
}

// While a run works without the GIL, Python cannot see Ctrl-C: this handler asks the pipeline
// to stop instead (util/cancel.h), and the previous handler comes back afterwards.
extern "C" void onSigint(int) { requestCancel(); }
class SigintStopsRun {
public:
    SigintStopsRun() {
        clearCancel();
        struct sigaction sa {};
        sa.sa_handler = onSigint;
        sigemptyset(&sa.sa_mask);
        installed_ = sigaction(SIGINT, &sa, &previous_) == 0;
    }
    ~SigintStopsRun() {
        if (installed_) sigaction(SIGINT, &previous_, nullptr);
    }
    SigintStopsRun(const SigintStopsRun&) = delete;
    SigintStopsRun& operator=(const SigintStopsRun&) = delete;

private:
    struct sigaction previous_ {};
    bool installed_ = false;
};

// Runs f with the GIL released, then hands its log records to Python, also when it throws.
template <class F> auto withoutGil(F&& f) {
    struct Flush {
        ~Flush() { flushLog(); }
    } flush;
    py::gil_scoped_release release;
    return f();
}

// A scene file with its overrides, read and checked; its triangles are prepared on first use.
class PyScene {
public:
    PyScene(const std::filesystem::path& file, const std::vector<std::string>& set) : file_(file) {
        for (const std::string& s : set) {
            const auto eq = s.find('=');
            if (eq == std::string::npos || eq == 0)
                throw InputError("set: \"" + s + "\": expected KEY=VALUE, e.g. simulation.samples=32");
            overrides_.push_back({s.substr(0, eq), s.substr(eq + 1)});
        }
        desc_ = withoutGil([&] { return loadSceneFile(file_, overrides_); });
    }
    // Triangles from arrays (vertices [V, 3], faces [F, 3] of vertex indices, reflectance [F] or
    // one value) with the settings of the scene file `base` ([simulation], [light], [sensor],
    // [sensor_model], [output]; its meshes are not read).
    PyScene(py::array_t<double, py::array::c_style | py::array::forcecast> vertices,
            py::array_t<std::int64_t, py::array::c_style | py::array::forcecast> faces, const py::object& reflectance,
            bool twoSided, const std::filesystem::path& base, const std::vector<std::string>& set)
        : PyScene(base, set) {
        if (vertices.ndim() != 2 || vertices.shape(1) != 3)
            throw InputError("from_arrays: vertices must have shape [V, 3]");
        if (faces.ndim() != 2 || faces.shape(1) != 3) throw InputError("from_arrays: faces must have shape [F, 3]");
        const auto v = vertices.unchecked<2>();
        const auto f = faces.unchecked<2>();
        const py::ssize_t V = vertices.shape(0), F = faces.shape(0);
        if (F == 0) throw InputError("from_arrays: no faces");
        for (py::ssize_t i = 0; i < V; ++i)
            for (int k = 0; k < 3; ++k)
                if (!std::isfinite(v(i, k)))
                    throw InputError("from_arrays: vertices[" + std::to_string(i) + "] is not finite");
        const auto rho = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(reflectance);
        if (!rho || !(rho.ndim() == 0 || (rho.ndim() == 1 && rho.shape(0) == F)))
            throw InputError("from_arrays: reflectance must be one number or one per face ([F])");
        LoadedGeometry g;
        std::vector<double> values;
        for (py::ssize_t t = 0; t < F; ++t) {
            const double r = rho.ndim() == 0 ? *rho.data() : rho.data()[t];
            if (!(r >= 0.0 && r <= 1.0))
                throw InputError("from_arrays: reflectance[" + std::to_string(t) + "] = " + std::to_string(r) +
                                 " is outside [0, 1]");
            glm::dvec3 p[3];
            for (int k = 0; k < 3; ++k) {
                const std::int64_t index = f(t, k);
                if (index < 0 || index >= V)
                    throw InputError("from_arrays: faces[" + std::to_string(t) + "] names vertex " +
                                     std::to_string(index) + ", not in [0, " + std::to_string(V) + ")");
                p[k] = {v(index, 0), v(index, 1), v(index, 2)};
            }
            ++g.loaded;
            if (!(0.5 * glm::length(glm::cross(p[1] - p[0], p[2] - p[0])) >= 1e-12)) {
                ++g.droppedDegenerate;
                continue;
            }
            // One material per distinct reflectance.
            std::size_t m = std::find(values.begin(), values.end(), r) - values.begin();
            if (m == values.size()) {
                values.push_back(r);
                g.materials.push_back({"reflectance " + std::to_string(r), float(r), twoSided});
            }
            g.v0.push_back(p[0]);
            g.v1.push_back(p[1]);
            g.v2.push_back(p[2]);
            g.material.push_back(std::uint32_t(m));
            g.sourceMesh.push_back(0);
        }
        if (g.v0.empty()) throw InputError("from_arrays: every face is degenerate");
        g.meshNames = {"arrays"};
        desc_.meshes.clear();
        prepared_ = withoutGil([&] { return prepareScene(g, desc_.sim.max_edge_m); });
    }
    const SceneDesc& desc() const { return desc_; }
    const std::vector<SceneOverride>& overrides() const { return overrides_; }
    const std::filesystem::path& file() const { return file_; }
    const PreparedScene& prepared() {
        if (!prepared_) prepared_ = withoutGil([&] { return prepareScene(loadMeshes(desc_), desc_.sim.max_edge_m); });
        return *prepared_;
    }
    std::size_t triangles() { return prepared().size(); }

private:
    std::filesystem::path file_;
    std::vector<SceneOverride> overrides_;
    SceneDesc desc_;
    std::optional<PreparedScene> prepared_;
};

// Poses from Python: None (the scene's own camera), an array [P, 6] or [P, 9] of position,
// look-at point (and up), or a list of dicts {name, position, look_at[, up]}.
std::vector<PoseDesc> posesFrom(const py::object& poses, const SceneDesc& scene) {
    std::vector<PoseDesc> out;
    auto vec3 = [](const py::handle& h, const std::string& what) {
        const auto v = h.cast<std::vector<double>>();
        if (v.size() != 3) throw InputError(what + ": expected 3 numbers, got " + std::to_string(v.size()));
        return glm::dvec3(v[0], v[1], v[2]);
    };
    if (poses.is_none()) {
        PoseDesc p;
        p.name = "pose";
        p.position = scene.sensorPosition();
        p.lookAt = scene.sensor.look_at;
        p.up = scene.sensor.up;
        p.where = "the scene's camera";
        out.push_back(p);
    } else if (py::isinstance<py::array>(poses)) {
        const auto a = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(poses);
        if (!a || a.ndim() != 2 || (a.shape(1) != 6 && a.shape(1) != 9))
            throw InputError("poses: expected an array of shape [P, 6] (position, look_at) or [P, 9] (and up)");
        const auto r = a.unchecked<2>();
        for (py::ssize_t i = 0; i < a.shape(0); ++i) {
            PoseDesc p;
            p.name = "pose" + std::to_string(i);
            p.where = "poses[" + std::to_string(i) + "]";
            for (py::ssize_t k = 0; k < a.shape(1); ++k)
                if (!std::isfinite(r(i, k)))
                    throw InputError(p.where + ": column " + std::to_string(k) + " is not a finite number");
            p.position = {r(i, 0), r(i, 1), r(i, 2)};
            p.lookAt = {r(i, 3), r(i, 4), r(i, 5)};
            if (a.shape(1) == 9) p.up = glm::dvec3(r(i, 6), r(i, 7), r(i, 8));
            out.push_back(p);
        }
    } else {
        std::size_t i = 0;
        for (const py::handle& h : poses) {
            const py::dict d = h.cast<py::dict>();
            PoseDesc p;
            p.where = "poses[" + std::to_string(i) + "]";
            p.name = d.contains("name") ? d["name"].cast<std::string>() : "pose" + std::to_string(i);
            if (!d.contains("position") || !d.contains("look_at"))
                throw InputError(p.where + ": needs \"position\" and \"look_at\"");
            p.position = vec3(d["position"], p.where + " position");
            p.lookAt = vec3(d["look_at"], p.where + " look_at");
            if (d.contains("up")) p.up = vec3(d["up"], p.where + " up");
            out.push_back(p);
            ++i;
        }
    }
    if (out.empty()) throw InputError("poses: no pose given");
    checkPoses(out, scene);
    return out;
}

template <class T> py::array_t<T> array(std::vector<py::ssize_t> shape) { return py::array_t<T>(shape); }

// An array over `v`'s own memory, which it keeps alive (no copy).
template <class T> py::array adopt(std::vector<T>&& v, std::vector<py::ssize_t> shape) {
    auto* owned = new std::vector<T>(std::move(v));
    py::capsule free(owned, [](void* p) { delete static_cast<std::vector<T>*>(p); });
    return py::array_t<T>(std::move(shape), owned->data(), free);
}

// One of a pose's arrays, under the name run() returns it by, without the pose axis.
struct PoseArray {
    std::string name;
    std::vector<py::ssize_t> shape;
    std::variant<std::vector<float>, std::vector<std::int32_t>, std::vector<double>> values;
};

// The arrays that run() returns, each with a leading pose axis. The pipeline hands over each
// pose as soon as it finishes (without the GIL); its arrays are copied into their slice of the
// stacked arrays and freed, so a batch is held once. The stacked arrays are allocated when the
// first pose arrives (its shapes are the pipeline's). A single pose's arrays are not copied at
// all: its buffers become the arrays. Otherwise the copy is unavoidable (the arrays stack the
// poses; per-triangle arrays are by triangle id, not the pipeline's internal order).
class PoseArrays {
public:
    explicit PoseArrays(std::size_t poses) : P_(poses) {}

    void add(std::size_t p, std::vector<PoseArray>&& arrays, std::string summary) {
        if (slots_.empty() && adopted_.empty()) {
            py::gil_scoped_acquire gil;
            if (P_ == 1) {
                for (PoseArray& a : arrays) {
                    a.shape.insert(a.shape.begin(), 1);
                    std::visit([&](auto& v) { adopted_.emplace_back(a.name, adopt(std::move(v), a.shape)); }, a.values);
                }
                summaries_.push_back(std::move(summary));
                return;
            }
            for (const PoseArray& a : arrays) allocate(a);
        }
        if (arrays.size() != slots_.size()) throw Error("pose " + std::to_string(p) + ": another set of outputs");
        for (std::size_t k = 0; k < arrays.size(); ++k) {
            Slot& slot = slots_[k];
            std::visit(
                [&](const auto& v) {
                    using T = typename std::decay_t<decltype(v)>::value_type;
                    if (arrays[k].name != slot.name || v.size() != slot.count || sizeof(T) != slot.bytes)
                        throw Error("pose " + std::to_string(p) + ": " + arrays[k].name + " of another shape");
                    std::copy(v.begin(), v.end(), static_cast<T*>(slot.data) + p * slot.count);
                },
                arrays[k].values);
            arrays[k].values = std::vector<float>{};
        }
        summaries_.push_back(std::move(summary));
    }

    // The arrays, and "summary": summary.json of each pose (GIL held).
    void into(py::dict& out) const {
        for (const auto& [name, a] : adopted_) out[name.c_str()] = a;
        for (const Slot& s : slots_) out[s.name.c_str()] = s.array;
        py::object loads = py::module_::import("json").attr("loads");
        py::list summaries;
        for (const std::string& text : summaries_) summaries.append(loads(text));
        out["summary"] = summaries;
    }

private:
    struct Slot {
        std::string name;
        py::array array;
        void* data;
        std::size_t count, bytes;
    };
    void allocate(const PoseArray& a) {
        std::vector<py::ssize_t> shape{py::ssize_t(P_)};
        shape.insert(shape.end(), a.shape.begin(), a.shape.end());
        std::visit(
            [&](const auto& v) {
                using T = typename std::decay_t<decltype(v)>::value_type;
                py::array_t<T> array(shape);
                slots_.push_back({a.name, array, array.mutable_data(), v.size(), sizeof(T)});
            },
            a.values);
    }

    std::size_t P_;
    std::vector<Slot> slots_;
    std::vector<std::pair<std::string, py::array>> adopted_;
    std::vector<std::string> summaries_;
};

// A pose's arrays as run() returns them: per triangle by id, the sensor signal, the histories
// on request, and every array of images.h5 under its name there (output/pixel_images.h).
std::vector<PoseArray> poseArrays(SimulationResult&& r, const PreparedScene& prepared, const SimConfig& c,
                                  bool histories) {
    const std::size_t n = prepared.size(), T = c.timesteps;
    std::vector<double> distance(n), truth(n), signal(T, 0.0);
    const glm::dvec3 eye(c.sensor.position);
    for (std::size_t id = 0; id < n; ++id) {
        const std::size_t i = prepared.internalOf[id];
        distance[id] = r.distance[i];
        truth[id] = glm::length(glm::dvec3(prepared.centroid[i]) - eye);
    }
    std::copy_n(r.signalFwd.begin(), std::min(T, r.signalFwd.size()), signal.begin());
    std::vector<PoseArray> out;
    out.push_back({"distance_m", {py::ssize_t(n)}, std::move(distance)});
    out.push_back({"true_distance_m", {py::ssize_t(n)}, std::move(truth)});
    out.push_back({"signal", {py::ssize_t(T)}, std::move(signal)});
    if (histories) {
        // B and Z [N, T] by triangle id (MODEL.md §5).
        std::vector<float> B(n * T), Z(n * T);
        for (std::size_t id = 0; id < n; ++id) {
            const std::size_t i = prepared.internalOf[id];
            std::copy_n(r.B.begin() + std::ptrdiff_t(i * T), T, B.begin() + std::ptrdiff_t(id * T));
            std::copy_n(r.Z.begin() + std::ptrdiff_t(i * T), T, Z.begin() + std::ptrdiff_t(id * T));
        }
        out.push_back({"B", {py::ssize_t(n), py::ssize_t(T)}, std::move(B)});
        out.push_back({"Z", {py::ssize_t(n), py::ssize_t(T)}, std::move(Z)});
    }
    std::vector<float> transient = std::move(r.image.transient);
    if (!r.image.depth.empty()) // [output] images = false: none
        for (output::PixelArray& a : output::pixelArrays(std::move(r.image), c, prepared)) {
            std::vector<py::ssize_t> shape(a.shape.begin(), a.shape.end());
            std::visit([&](auto& v) { out.push_back({a.name, std::move(shape), std::move(v)}); }, a.values);
        }
    if (!transient.empty()) {
        const SimConfig::Transient& tr = c.transient;
        out.push_back({"transient", {py::ssize_t(tr.h), py::ssize_t(tr.w), py::ssize_t(tr.bins)}, std::move(transient)});
    }
    return out;
}

class PySimulator {
public:
    PySimulator(std::shared_ptr<PyScene> scene, const std::string& backend, const std::string& devices,
                std::optional<std::uint32_t> samples, const std::string& kFormat, bool kCache,
                std::optional<std::filesystem::path> kCacheDir)
        : scene_(std::move(scene)) {
        req_.sceneFile = scene_->file();
        req_.commandLine = "import rsim: Simulator.run"; // summary.json's "command"
        req_.overrides = scene_->overrides();
        req_.backend.backend = backend;
        req_.backend.devices = devices;
        req_.kFormat = kFormat;
        req_.noKCache = !kCache;
        req_.kCacheDir = kCacheDir;
        // The triangles do not depend on S: the scene's prepared geometry serves.
        desc_ = scene_->desc();
        if (samples) {
            if (*samples < 1 || *samples > (1u << 20)) throw InputError("samples: expected 1 to 2^20");
            desc_.sim.samples = *samples;
        }
        backend_ = withoutGil([&] { return makeBackend(req_.backend); });
    }

    // Runs the poses (pipeline/simulate.h, K computed once; from the K cache on later calls)
    // and returns a dict of numpy arrays with a leading pose axis.
    py::dict run(const py::object& poses, bool histories) {
        const std::vector<PoseDesc> descs = posesFrom(poses, desc_);
        std::vector<PoseConfig> configs;
        for (const PoseDesc& p : descs) configs.push_back({p.where, configFor(applyPose(desc_, p), req_)});
        const PreparedScene& prepared = scene_->prepared();
        RunOptions options = optionsFor(desc_, req_);
        options.timeseries = histories;
        options.heldK = &held_; // K stays on the devices for the next call
        const bool kept = held_.K != nullptr;
        const std::size_t P = descs.size();
        PoseArrays arrays(P);
        RunInfo info = runInfoFor(req_);
        RunMetadata meta;
        try {
            withoutGil([&] {
                SigintStopsRun sigint;
                PhaseTimes times;
                simulateBatch(PhaseBackends::all(*backend_), prepared, configs, options, times, meta,
                              [&](std::size_t p, SimulationResult& r, const PhaseTimes& own) {
                                  // summary.json of the pose, as its results directory would have it.
                                  RunInfo poseInfo = info;
                                  poseInfo.pose = descs[p].name;
                                  poseInfo.echoesCutOff = r.echoesCutOff;
                                  poseInfo.kFromCache = meta.kFromCache;
                                  const SceneDesc posed = applyPose(desc_, descs[p]);
                                  std::string summary = summaryJsonText(
                                      ResultsView{posed, prepared, configs[p].config, r, meta, poseInfo}, own);
                                  arrays.add(p, poseArrays(std::move(r), prepared, configs[p].config, histories),
                                             std::move(summary));
                              });
            });
        } catch (const Interrupted&) {
            // Ctrl-C: the phase that saw it unwound (its device work done first); K computed in
            // an earlier call stays, one this call was computing does not.
            clearCancel();
            PyErr_SetNone(PyExc_KeyboardInterrupt);
            throw py::error_already_set();
        }
        py::dict out;
        arrays.into(out);
        py::list names;
        for (const PoseDesc& p : descs) names.append(p.name);
        out["names"] = names;
        // The cameras, as images.h5's camera/ (OpenCV convention): K, and per pose
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
        out["camera/world_from_camera"] = M;
        out["camera/light_position"] = L;
        out["camera/position"] = S;
        out["backend"] = meta.backend;
        out["devices"] = meta.devices;
        out["k_from_cache"] = meta.kFromCache;
        out["k_kept"] = kept;
        return out;
    }

private:
    std::shared_ptr<PyScene> scene_;
    RunRequest req_;
    SceneDesc desc_;
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
        .def_property_readonly("dt_ns", [](const PyScene& s) { return s.desc().sim.dt_ns; });
    py::class_<PySimulator>(m, "Simulator")
        .def(py::init<std::shared_ptr<PyScene>, const std::string&, const std::string&, std::optional<std::uint32_t>,
                      const std::string&, bool, std::optional<std::filesystem::path>>(),
             py::arg("scene"), py::arg("backend") = "auto", py::arg("devices") = "auto", py::arg("samples") = py::none(),
             py::arg("k_format") = "", py::arg("k_cache") = true, py::arg("k_cache_dir") = py::none())
        .def("run", &PySimulator::run, py::arg("poses") = py::none(), py::arg("histories") = false);
    m.def("devices", &devices, "The compute devices rsim can use, as `rsim devices` lists them.");
    m.def("set_log_level", [](const std::string& level) {
        const auto l = spdlog::level::from_str(level);
        if (l == spdlog::level::off && level != "off") throw InputError("set_log_level: unknown level \"" + level + "\"");
        spdlog::set_level(l);
    });
}
