// SPDX-License-Identifier: MIT
#include "scene/poses.h"
#include "scene/unit_vector.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include <fmt/format.h>
#include <glm/geometric.hpp>
#include <glm/mat3x3.hpp>

#include "util/did_you_mean.h"
#include "util/csv.h"
#include "util/error.h"

namespace rsim {
namespace {

namespace fs = std::filesystem;

// A pose's name is a folder's name (NAME_MAX).
constexpr std::size_t kMaxPoseNameBytes = 255;

const std::vector<std::string> kColumns = {"name",   "x",    "y",    "z",    "look_x",
                                           "look_y", "look_z", "up_x", "up_y", "up_z"};

std::string trim(const std::string& s) {
    const auto b = s.find_first_not_of(" \t\r");
    if (b == std::string::npos) return {};
    return s.substr(b, s.find_last_not_of(" \t\r") - b + 1);
}

// The right-handed frame (right, up, forward) of a camera looking along `forward`.
glm::dmat3 cameraFrame(glm::dvec3 forward, glm::dvec3 up) {
    const glm::dvec3 f = unitOf(forward);
    const glm::dvec3 r = glm::normalize(glm::cross(f, unitOf(up)));
    return glm::dmat3(r, glm::cross(r, f), f);
}

// Why `up` cannot aim a camera looking along `forward`, or "".
std::string aimProblem(glm::dvec3 forward, glm::dvec3 up) {
    if (!(glm::length(forward) > 1e-9)) return "the look-at point must differ from the position";
    if (!hasDirection(forward)) return "the look-at point must be finite";
    if (!hasDirection(up)) return "up must be a finite, non-zero vector";
    if (glm::length(glm::cross(unitOf(forward), unitOf(up))) < 1e-6)
        return "up must not be parallel to the viewing direction";
    return {};
}

} // namespace

std::vector<PoseDesc> readPosesCsv(const fs::path& file) {
    std::error_code ec;
    if (!fs::exists(file, ec)) throw InputError(file.string() + ": poses file not found");
    if (fs::is_directory(file, ec)) throw InputError(file.string() + ": is a directory; expected a poses file (.csv)");
    std::ifstream in(file, std::ios::binary);
    if (!in) throw InputError(file.string() + ": cannot be read (permission denied?)");
    const std::string name = file.string();
    CsvReader csv(in, name, '#');
    std::vector<std::string> fields;
    std::vector<int> columnOf(kColumns.size(), -1); // column index of each known field
    std::size_t columns = 0;
    std::vector<PoseDesc> poses;
    while (csv.next(fields)) {
        for (std::string& f : fields) f = trim(f);
        if (fields.size() == 1 && fields[0].empty()) continue; // a blank line
        const std::string where = name + ":" + std::to_string(csv.line());
        if (columns == 0) { // the header
            for (std::size_t c = 0; c < fields.size(); ++c) {
                const auto it = std::find(kColumns.begin(), kColumns.end(), fields[c]);
                if (it == kColumns.end()) {
                    const std::string hint = didYouMean(fields[c], kColumns);
                    throw InputError(where + ": column " + std::to_string(c + 1) + ": unknown column \"" +
                                     fields[c] + "\"" + (hint.empty() ? "" : " (did you mean \"" + hint + "\"?)") +
                                     "; the header is name,x,y,z,look_x,look_y,look_z[,up_x,up_y,up_z]");
                }
                const std::size_t k = std::size_t(it - kColumns.begin());
                if (columnOf[k] >= 0)
                    throw InputError(where + ": column " + std::to_string(c + 1) + ": \"" + fields[c] +
                                     "\" appears twice in the header");
                columnOf[k] = int(c);
            }
            for (std::size_t k = 0; k < 7; ++k)
                if (columnOf[k] < 0)
                    throw InputError(where + ": the header has no \"" + kColumns[k] +
                                     "\" column; expected name,x,y,z,look_x,look_y,look_z[,up_x,up_y,up_z]");
            const int ups = (columnOf[7] >= 0) + (columnOf[8] >= 0) + (columnOf[9] >= 0);
            if (ups != 0 && ups != 3)
                throw InputError(where + ": the header has some of up_x, up_y, up_z; give all three or none");
            columns = fields.size();
            continue;
        }
        if (fields.size() != columns)
            throw InputError(where + ": expected " + std::to_string(columns) + " fields (as in the header), got " +
                             std::to_string(fields.size()));
        if (!csv.lastRecordEnded())
            throw InputError(where + ": the last line has no line end, so the file may have been cut short while "
                                     "it was written (\"1.25\" cut to \"1.2\" still reads as a number). If the "
                                     "line is complete, end it with a newline");
        auto number = [&](std::size_t k) {
            const int c = columnOf[k];
            const std::string& f = fields[std::size_t(c)];
            // from_chars takes no '+'; a leading one (as spreadsheets may write) is a plain number.
            const std::size_t from = f.size() > 1 && f[0] == '+' && f[1] != '-' && f[1] != '+' ? 1 : 0;
            double v = 0.0;
            const auto [end, err] = std::from_chars(f.data() + from, f.data() + f.size(), v);
            if (f.empty() || err != std::errc() || end != f.data() + f.size() || !std::isfinite(v))
                throw InputError(where + ": column " + std::to_string(c + 1) + " (" + kColumns[k] +
                                 "): expected a finite number, got \"" + f + "\"");
            // The position is a coordinate (look_at and up only give directions).
            if (k >= 1 && k <= 3 && !(std::abs(v) <= kMaxCoordinateM))
                throw InputError(where + ": column " + std::to_string(c + 1) + " (" + kColumns[k] +
                                 "): coordinates must be within +-" + fmt::format("{:g}", kMaxCoordinateM) +
                                 " m (distances are computed in fp32), got " + f);
            return v;
        };
        PoseDesc p;
        p.name = fields[std::size_t(columnOf[0])];
        p.position = {number(1), number(2), number(3)};
        p.lookAt = {number(4), number(5), number(6)};
        if (columnOf[7] >= 0) p.up = glm::dvec3(number(7), number(8), number(9));
        p.where = where + " (pose \"" + p.name + "\")";
        poses.push_back(std::move(p));
    }
    if (columns == 0 || poses.empty())
        throw InputError(name + ": no poses; expected a header line name,x,y,z,look_x,look_y,look_z[,up_x,up_y,up_z] "
                                "and one line per pose");
    return poses;
}

void checkPoses(const std::vector<PoseDesc>& poses, const SceneDesc& scene) {
    if (poses.empty()) throw InputError("a batch needs at least one pose");
    std::set<std::string> seen;
    for (const PoseDesc& p : poses) {
        if (p.name.empty()) throw InputError(p.where + ": the pose has no name");
        for (char ch : p.name)
            if (!(std::isalnum(static_cast<unsigned char>(ch)) || ch == '.' || ch == '_' || ch == '-'))
                throw InputError(p.where + ": the name \"" + p.name +
                                 "\" names the pose's results directory; use letters, digits, '.', '_' and '-' only");
        if (p.name.size() > kMaxPoseNameBytes)
            throw InputError(p.where + ": the name is " + std::to_string(p.name.size()) + " bytes long; it names the "
                             "pose's results directory, and file systems allow " + std::to_string(kMaxPoseNameBytes));
        if (p.name[0] == '.')
            throw InputError(p.where + ": the name \"" + p.name + "\" starts with '.'; it names the pose's results "
                             "directory, which would be hidden");
        if (p.name == "." || p.name == ".." || p.name == "batch.csv" || p.name == "batch.h5" || p.name == "summary.json")
            throw InputError(p.where + ": \"" + p.name + "\" cannot name a pose's results directory (it is a file of "
                             "the batch's, or not a directory name)");
        if (!seen.insert(p.name).second)
            throw InputError(p.where + ": the name \"" + p.name + "\" is used by an earlier pose; names must be unique");
        const std::string why = aimProblem(p.lookAt - p.position, p.up.value_or(scene.sensor.up));
        if (!why.empty()) throw InputError(p.where + ": " + why);
    }
}

SceneDesc applyPose(const SceneDesc& scene, const PoseDesc& pose) {
    SceneDesc out = scene;
    const glm::dvec3 base = scene.sensorPosition();
    const glm::dvec3 up = pose.up.value_or(scene.sensor.up);
    const glm::dmat3 from = cameraFrame(scene.sensor.look_at - base, scene.sensor.up);
    const glm::dmat3 to = cameraFrame(pose.lookAt - pose.position, up);
    const glm::dmat3 rotation = to * glm::transpose(from); // rig frame -> pose frame
    // The lights ride on the rig with the camera.
    out.light.position = pose.position + rotation * (scene.light.position - base);
    out.light.direction = glm::normalize(rotation * scene.light.direction);
    for (std::size_t k = 0; k < out.moreLights.size(); ++k) {
        out.moreLights[k].position = pose.position + rotation * (scene.moreLights[k].position - base);
        out.moreLights[k].direction = glm::normalize(rotation * scene.moreLights[k].direction);
    }
    out.sensor.position = pose.position;
    out.sensor.look_at = pose.lookAt;
    out.sensor.up = up;
    out.poses.clear();
    return out;
}

std::string posesCsv(const std::vector<PoseDesc>& poses) {
    std::ostringstream os;
    os.precision(17);
    // Up columns only when every pose has its own up (the others take the scene's).
    const bool ups = std::all_of(poses.begin(), poses.end(), [](const PoseDesc& p) { return bool(p.up); });
    os << "name,x,y,z,look_x,look_y,look_z" << (ups ? ",up_x,up_y,up_z" : "") << "\n";
    for (const PoseDesc& p : poses) {
        os << p.name << "," << p.position.x << "," << p.position.y << "," << p.position.z << "," << p.lookAt.x << ","
           << p.lookAt.y << "," << p.lookAt.z;
        if (ups) {
            const glm::dvec3 u = *p.up;
            os << "," << u.x << "," << u.y << "," << u.z;
        }
        os << "\n";
    }
    return os.str();
}

} // namespace rsim
