// SPDX-License-Identifier: MIT
#include <charconv>
#include <cmath>
#include <string>
#include <vector>

#include "output/output_util.h"
#include "output/results_writer.h"
#include "util/parallel.h"

namespace rsim {
namespace {

// %.9g round-trips a float and keeps metres to a nanometre (std::to_chars with a precision
// writes what printf would, several times faster); NaN is spelled one way, since printf may write
// "-nan" and readers differ in what they accept.
void appendNumber(std::string& out, double v) {
    if (std::isnan(v)) {
        out += "nan";
        return;
    }
    char buf[32];
    const auto end = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::general, 9).ptr;
    out.append(buf, std::size_t(end - buf));
}

void appendCsvField(std::string& out, const std::string& s) {
    if (s.find_first_of(",\"\r\n") == std::string::npos) {
        out += s;
        return;
    }
    out += '"';
    for (char c : s) {
        if (c == '"') out += '"';
        out += c;
    }
    out += '"';
}

} // namespace

void writeTrianglesCsv(const std::filesystem::path& file, const ResultsView& view) {
    const PreparedScene& ps = view.prepared;
    const SimulationResult& r = view.result;
    const std::size_t n = ps.size();
    output::requireSize(ps.internalOf.size(), n, "internalOf");
    output::requireSize(ps.sourceMeshOfId.size(), n, "sourceMeshOfId");
    output::requireSize(r.directEnergy.size(), n, "directEnergy");
    output::requireSize(r.totalEnergy.size(), n, "totalEnergy");
    const std::vector<double> errors = output::distanceErrorsById(view);

    // One line per triangle, formatted on all cores in blocks of rows (formatting is most of the
    // file's time: a few hundredths of a second for 35-53k triangles on one core) and written in
    // their order, a group of blocks at a time.
    const auto line = [&](std::string& buf, std::size_t id) {
        const std::size_t i = ps.internalOf[id];
        buf += std::to_string(id);
        buf += ',';
        const std::uint32_t mesh = ps.sourceMeshOfId[id];
        appendCsvField(buf, mesh < ps.meshNames.size() ? ps.meshNames[mesh] : std::string());
        const double values[] = {double(ps.centroid[i].x),
                                 double(ps.centroid[i].y),
                                 double(ps.centroid[i].z),
                                 double(ps.area[i]),
                                 double(ps.reflectance[i]),
                                 output::trueDistanceM(view, i),
                                 r.distance[i],
                                 errors[id],
                                 r.directEnergy[i],
                                 r.totalEnergy[i]};
        for (double v : values) {
            buf += ',';
            appendNumber(buf, v);
        }
        buf += '\n';
    };
    constexpr std::size_t kBlockRows = 2048, kGroupBlocks = 64;
    output::OutputFile out(file);
    out.write("id,source_mesh,cx,cy,cz,area,reflectance,true_distance_m,distance_m,error_m,"
              "direct_energy,total_energy\n");
    std::vector<std::string> blocks(kGroupBlocks);
    for (std::size_t first = 0; first < n; first += kBlockRows * kGroupBlocks) {
        const std::size_t count = std::min(kGroupBlocks, (n - first + kBlockRows - 1) / kBlockRows);
        parallelFor(count, 1, [&](std::size_t b0, std::size_t b1, unsigned) {
            for (std::size_t b = b0; b < b1; ++b) {
                std::string& buf = blocks[b];
                buf.clear();
                const std::size_t begin = first + b * kBlockRows, end = std::min(n, begin + kBlockRows);
                for (std::size_t id = begin; id < end; ++id) line(buf, id);
            }
        });
        for (std::size_t b = 0; b < count; ++b) out.write(blocks[b]);
    }
    out.close();
}

} // namespace rsim
