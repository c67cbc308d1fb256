// SPDX-License-Identifier: MIT
#include "python/py_poses.h"

#include <algorithm>
#include <cmath>
#include <string>

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include "util/did_you_mean.h"
#include "util/error.h"

namespace rsim::python {
namespace {

// A pose dict's keys.
const std::vector<std::string> kPoseKeys = {"name", "position", "look_at", "up"};

// Three numbers from a Python sequence, or ValueError naming `what`.
glm::dvec3 vec3Of(const py::handle& h, const std::string& what) {
    std::vector<double> v;
    try {
        v = h.cast<std::vector<double>>();
    } catch (const py::cast_error&) {
        throw InputError(what + ": expected 3 numbers, got " + std::string(py::str(py::type::of(h).attr("__name__"))) +
                         " " + std::string(py::repr(h)).substr(0, 60));
    }
    if (v.size() != 3) throw InputError(what + ": expected 3 numbers, got " + std::to_string(v.size()));
    for (double x : v)
        if (!std::isfinite(x)) throw InputError(what + ": not a finite number");
    return {v[0], v[1], v[2]};
}

std::vector<PoseDesc> posesFromArray(const py::array& given) {
    const char kind = given.dtype().kind();
    if (kind != 'f' && kind != 'i' && kind != 'u' && kind != 'b')
        throw InputError(std::string("poses: expected real numbers, got an array of dtype ") +
                         std::string(py::str(given.dtype())) + (kind == 'c' ? " (complex)" : ""));
    const auto a = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(given);
    if (!a || a.ndim() != 2 || (a.shape(1) != 6 && a.shape(1) != 9))
        throw InputError("poses: expected an array of shape [P, 6] (position, look_at) or [P, 9] (and up)");
    std::vector<PoseDesc> out;
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
    return out;
}

PoseDesc poseFromDict(const py::dict& d, std::size_t i) {
    PoseDesc p;
    p.where = "poses[" + std::to_string(i) + "]";
    for (const auto& [key, value] : d) {
        const std::string k = py::isinstance<py::str>(key) ? key.cast<std::string>() : std::string(py::repr(key));
        if (std::find(kPoseKeys.begin(), kPoseKeys.end(), k) == kPoseKeys.end()) {
            const std::string hint = didYouMean(k, kPoseKeys);
            throw InputError(p.where + ": unknown key \"" + k + "\"" + (hint.empty() ? "" : " (did you mean \"" + hint + "\"?)") +
                             "; a pose has name, position, look_at and up");
        }
    }
    if (d.contains("name")) {
        if (!py::isinstance<py::str>(d["name"])) throw InputError(p.where + ": name must be a string");
        p.name = d["name"].cast<std::string>();
    } else {
        p.name = "pose" + std::to_string(i);
    }
    if (!d.contains("position") || !d.contains("look_at")) throw InputError(p.where + ": needs \"position\" and \"look_at\"");
    p.position = vec3Of(d["position"], p.where + " position");
    p.lookAt = vec3Of(d["look_at"], p.where + " look_at");
    if (d.contains("up")) p.up = vec3Of(d["up"], p.where + " up");
    return p;
}

} // namespace

std::vector<PoseDesc> posesFrom(const py::object& poses, const SceneDesc& scene) {
    std::vector<PoseDesc> out;
    if (poses.is_none()) {
        PoseDesc p;
        p.name = "pose";
        p.position = scene.sensorPosition();
        p.lookAt = scene.sensor.look_at;
        p.up = scene.sensor.up;
        p.where = "the scene's camera";
        out.push_back(p);
    } else if (py::isinstance<py::array>(poses)) {
        out = posesFromArray(poses.cast<py::array>());
    } else if (py::isinstance<py::dict>(poses)) {
        throw InputError("poses: expected a list of pose dicts (or an array [P, 6]), got one dict: wrap it in a list");
    } else if (py::isinstance<py::sequence>(poses) && !py::isinstance<py::str>(poses)) {
        const py::sequence seq = poses.cast<py::sequence>();
        std::size_t dicts = 0;
        for (const py::handle& h : seq) dicts += py::isinstance<py::dict>(h);
        if (dicts == seq.size()) {
            for (std::size_t i = 0; i < seq.size(); ++i) out.push_back(poseFromDict(seq[i].cast<py::dict>(), i));
        } else if (dicts == 0) { // rows of numbers, as an array would hold them
            py::object array;
            try {
                array = py::module_::import("numpy").attr("asarray")(poses);
            } catch (const py::error_already_set&) {
                throw InputError("poses: rows of numbers of equal length expected ([P, 6] or [P, 9])");
            }
            out = posesFromArray(array.cast<py::array>());
        } else {
            throw InputError("poses: a list of pose dicts or of rows of numbers, not both");
        }
    } else {
        throw InputError("poses: expected None, an array [P, 6] or [P, 9], or a list of pose dicts; got " +
                         std::string(py::str(py::type::of(poses).attr("__name__"))));
    }
    if (out.empty()) throw InputError("poses: no pose given");
    checkPoses(out, scene);
    return out;
}

} // namespace rsim::python
