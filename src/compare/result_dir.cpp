// SPDX-License-Identifier: MIT
#include "compare/result_dir.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>

#include "util/csv.h"
#include "util/error.h"

namespace rsim::compare {
namespace {

namespace fs = std::filesystem;

double parseNumber(const std::string& text, const std::string& where, const std::string& column) {
    char* end = nullptr;
    const double v = std::strtod(text.c_str(), &end);
    if (text.empty() || *end != '\0') throw InputError(where + ": bad " + column + " '" + text + "'");
    return v;
}

Triangles readTrianglesCsv(const fs::path& dir) {
    const fs::path file = dir / "triangles.csv";
    std::ifstream in(file, std::ios::binary);
    if (!in) throw InputError(file.string() + ": cannot open (not an rsim results directory?)");
    CsvReader csv(in, file.string());
    std::vector<std::string> header, f;
    if (!csv.next(header)) throw InputError(file.string() + ": empty file");
    auto column = [&](const char* name) {
        const auto it = std::find(header.begin(), header.end(), name);
        if (it == header.end()) throw InputError(file.string() + ": no column '" + name + "' in the header");
        return std::size_t(it - header.begin());
    };
    const std::size_t idCol = column("id"), meshCol = column("source_mesh"), distCol = column("distance_m");
    const std::size_t geoCols[4] = {column("cx"), column("cy"), column("cz"), column("area")};

    std::vector<std::size_t> ids;
    std::vector<double> distances, geometry;
    std::vector<std::string> meshes;
    while (csv.next(f)) {
        const std::string where = file.string() + ":" + std::to_string(csv.line());
        if (f.size() == 1 && f[0].empty()) continue;
        if (f.size() != header.size())
            throw InputError(where + ": expected " + std::to_string(header.size()) + " fields, found " +
                             std::to_string(f.size()));
        char* end = nullptr;
        const unsigned long long id = std::strtoull(f[idCol].c_str(), &end, 10);
        if (f[idCol].empty() || *end != '\0') throw InputError(where + ": bad id '" + f[idCol] + "'");
        distances.push_back(parseNumber(f[distCol], where, "distance_m"));
        for (std::size_t g : geoCols) geometry.push_back(parseNumber(f[g], where, header[g]));
        ids.push_back(std::size_t(id));
        meshes.push_back(std::move(f[meshCol]));
    }
    if (ids.empty()) throw InputError(file.string() + ": holds no triangle (a results directory has at least one)");

    // Rows are written in id order, but index by id anyway so that a sorted or filtered copy
    // still compares triangle by triangle.
    const std::size_t n = ids.size();
    Triangles t;
    t.distance.assign(n, std::nan(""));
    t.sourceMesh.resize(n);
    t.geometry.resize(4 * n);
    std::vector<bool> seen(n, false);
    for (std::size_t k = 0; k < n; ++k) {
        if (ids[k] >= n || seen[ids[k]])
            throw InputError(file.string() + ": triangle ids are not 0.." + std::to_string(n - 1) +
                             " each once (id " + std::to_string(ids[k]) + ")");
        seen[ids[k]] = true;
        t.distance[ids[k]] = distances[k];
        std::copy(&geometry[4 * k], &geometry[4 * k] + 4, &t.geometry[4 * ids[k]]);
        t.sourceMesh[ids[k]] = std::move(meshes[k]);
    }
    return t;
}

nlohmann::json readSummary(const fs::path& dir) {
    const fs::path file = dir / "summary.json";
    std::ifstream in(file);
    if (!in) return nullptr;
    try {
        return nlohmann::json::parse(in);
    } catch (const nlohmann::json::exception& e) {
        throw InputError(file.string() + ": not valid JSON (" + e.what() + ")");
    }
}

} // namespace

bool isPathTraced(const nlohmann::json& summary) {
    return summary.is_object() && summary.value("transport", "") == "paths";
}

ResultDir readResultDir(const fs::path& dir) {
    std::error_code ec;
    if (!fs::is_directory(dir, ec))
        throw InputError(dir.string() + ": no such directory (expected an rsim results directory)");
    ResultDir r;
    r.dir = dir;
    r.summary = readSummary(dir);
    r.pathTraced = isPathTraced(r.summary);
    if (!r.pathTraced) r.triangles = readTrianglesCsv(dir); // a paths run has no per-triangle results
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
        if (it->is_regular_file(ec)) r.files.insert(it->path().filename().string());
    return r;
}

const std::vector<std::string>& contractFiles() {
    static const std::vector<std::string> files = {"summary.json", "triangles.csv", "timeseries.h5", "images.h5",
                                                   "images.exr",   "depth.pfm",     "depth.png",     "error.png",
                                                   "amplitude.png", "mesh_error.ply"};
    return files;
}

bool isComparedData(const std::string& file, bool images) {
    return file == "summary.json" || file == "triangles.csv" || (images && file == "depth.pfm");
}

bool askedToWrite(const nlohmann::json& summary, const std::string& file) {
    const nlohmann::json* output = nullptr;
    if (summary.is_object() && summary.contains("settings") && summary["settings"].is_object() &&
        summary["settings"].contains("output") && summary["settings"]["output"].is_object())
        output = &summary["settings"]["output"];
    auto setting = [&](const char* key) {
        return !output || !output->contains(key) || !(*output)[key].is_boolean() || (*output)[key].get<bool>();
    };
    if (isPathTraced(summary) && (file == "timeseries.h5" || file == "triangles.csv" || file == "mesh_error.ply"))
        return false;
    if (file == "timeseries.h5") return setting("timeseries") || (output && output->value("kij", false));
    if (file == "summary.json" || file == "triangles.csv" || file == "mesh_error.ply") return true;
    return setting("images"); // the sensor images and images.h5 / .exr
}

bool isBatchDirectory(const fs::path& dir) {
    std::error_code ec;
    return fs::is_regular_file(dir / "batch.csv", ec) && fs::is_regular_file(dir / "summary.json", ec);
}

std::vector<std::string> poseDirectories(const fs::path& dir) {
    std::vector<std::string> names;
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
        if (it->is_directory(ec) && fs::is_regular_file(it->path() / "summary.json", ec))
            names.push_back(it->path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
}

} // namespace rsim::compare
