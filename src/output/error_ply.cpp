// SPDX-License-Identifier: MIT
// mesh_error.ply: the scene coloured by distance error. Vertices are not shared, so that every
// triangle carries its own colour (per-vertex colour is what MeshLab, ParaView and Blender read).
#include <cmath>
#include <string>

#include "output/output_util.h"
#include "output/results_writer.h"

namespace rsim {

void writeErrorPly(const std::filesystem::path& file, const ResultsView& view) {
    const PreparedScene& ps = view.prepared;
    const std::size_t n = ps.size();
    output::requireSize(ps.internalOf.size(), n, "internalOf");
    const std::vector<double> errors = output::distanceErrorsById(view);
    const double range = output::errorColourRange(errors);

    output::OutputFile out(file);
    const std::string header = "ply\n"
                               "format binary_little_endian 1.0\n"
                               "comment rsim distance error (m); grey = no distance\n"
                               "element vertex " +
                               std::to_string(3 * n) +
                               "\n"
                               "property float x\n"
                               "property float y\n"
                               "property float z\n"
                               "property uchar red\n"
                               "property uchar green\n"
                               "property uchar blue\n"
                               "property float error\n"
                               "element face " +
                               std::to_string(n) +
                               "\n"
                               "property list uchar int vertex_indices\n"
                               "end_header\n";
    out.write(header);

    std::string buf;
    auto flush = [&] {
        if (buf.size() > (1u << 20)) {
            out.write(buf);
            buf.clear();
        }
    };
    for (std::size_t id = 0; id < n; ++id) {
        const std::size_t i = ps.internalOf[id];
        const double e = errors[id];
        const output::Rgb8 c =
            std::isfinite(e) ? output::diverging(e / range) : output::Rgb8{128, 128, 128};
        for (const glm::vec3& v : {ps.v0[i], ps.v1[i], ps.v2[i]}) {
            output::appendLE(buf, v.x);
            output::appendLE(buf, v.y);
            output::appendLE(buf, v.z);
            buf += char(c.r);
            buf += char(c.g);
            buf += char(c.b);
            output::appendLE(buf, float(e));
        }
        flush();
    }
    for (std::size_t k = 0; k < n; ++k) {
        buf += char(3);
        for (std::size_t v = 0; v < 3; ++v)
            output::appendLE(buf, std::uint32_t(3 * k + v));
        flush();
    }
    out.write(buf);
    out.close();
}

} // namespace rsim
