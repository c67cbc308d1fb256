// SPDX-License-Identifier: MIT
// The numpy arrays `import rsim`'s run() returns: every pose's arrays under their names, stacked
// with a leading pose axis as the poses arrive.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include "core/prepared_scene.h"
#include "core/results.h"
#include "core/sim_config.h"
#include "util/error.h"

namespace rsim::python {

namespace py = pybind11;

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
                                  bool histories);

} // namespace rsim::python
