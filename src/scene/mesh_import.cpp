// SPDX-License-Identifier: MIT
#include "scene/mesh_import.h"

#include <algorithm>
#include <cstring>
#include <new>

#include "util/error.h"
#include "util/byte_stream.h"
#include "util/host_memory.h"
#include "util/isolated.h"
#include "util/modules.h"

namespace rsim {
namespace {

// Time allowed to assimp: ten seconds, plus one per MB (a 100 MB OBJ reads in about 30 s).
double importTimeoutSeconds(const std::filesystem::path& file) {
    std::error_code ec;
    const auto size = std::filesystem::file_size(file, ec);
    return 10.0 + (ec ? 0.0 : double(size) / 1e6);
}

// Memory allowed to assimp: 1 GiB, or 64 bytes per byte of the file if more (an OBJ needs about
// 30), and never more than the machine has available. A header that asks for absurd counts
// then fails in the reader, in seconds, instead of exhausting the machine.
std::uint64_t importMemoryBytes(const std::filesystem::path& file) {
    std::error_code ec;
    const auto fileSize = std::filesystem::file_size(file, ec);
    const std::uint64_t size = ec ? 0 : std::uint64_t(fileSize);
    std::uint64_t bytes = std::max<std::uint64_t>(std::uint64_t(1) << 30, 64 * size);
    if (const std::uint64_t available = availableHostBytes(); available > 0) bytes = std::min(bytes, available);
    return bytes;
}

} // namespace

std::string encodeTriangles(const ImportedTriangles& t) {
    ByteWriter w;
    w.array(t.xyz);
    w.array(t.face);
    w.array(t.part);
    w.strings(t.partName);
    w.strings(t.partMaterial);
    w.value<std::uint64_t>(t.meshCount);
    return std::move(w.bytes);
}

ImportedTriangles decodeTriangles(const std::string& bytes) {
    ByteReader r(bytes, "the answer of the mesh reader process");
    ImportedTriangles t;
    t.xyz = r.array<float>();
    t.face = r.array<std::uint32_t>();
    t.part = r.array<std::uint32_t>();
    t.partName = r.strings();
    t.partMaterial = r.strings();
    t.meshCount = std::uint32_t(r.value<std::uint64_t>());
    bool consistent = r.done() && t.xyz.size() == 9 * t.face.size() && t.part.size() == t.face.size() &&
                      t.partName.size() == t.partMaterial.size();
    for (std::size_t i = 0; consistent && i < t.part.size(); ++i) consistent = t.part[i] < t.partName.size();
    if (!consistent) r.bad();
    return t;
}

ImportedTriangles importTrianglesHere(const std::filesystem::path& file, const std::string& where) {
    return modules::calls<MeshReaderCalls>("assimp").read(file, where);
}

PendingImport::PendingImport(std::filesystem::path file, std::string where)
    : file_(std::move(file)), where_(std::move(where)), timeoutSeconds_(importTimeoutSeconds(file_)),
      memoryBytes_(importMemoryBytes(file_)),
      run_([file = file_, where = where_] { return encodeTriangles(importTrianglesHere(file, where)); },
           timeoutSeconds_, memoryBytes_) {}

ImportedTriangles PendingImport::finish() {
    const std::filesystem::path& file = file_;
    const std::string& where = where_;
    const double timeout = timeoutSeconds_;
    const std::uint64_t memory = memoryBytes_;
    const IsolatedOutcome o = run_.finish();
    switch (o.kind) {
    case IsolatedOutcome::Kind::Done: return decodeTriangles(o.bytes);
    case IsolatedOutcome::Kind::Failed: // our own messages name the file; others (bad_alloc) get it here
        if (o.message == std::bad_alloc().what())
            throw InputError(where + ": cannot read mesh file " + file.string() + ": assimp, the mesh reader, needed " +
                             "more than " + std::to_string(memory >> 20) + " MiB for it (a damaged header that " +
                             "declares absurd element counts?)");
        throw InputError(o.message.rfind(where, 0) == 0 ? o.message
                                                         : where + ": cannot read mesh file " + file.string() + ": " + o.message);
    case IsolatedOutcome::Kind::Crashed:
        throw InputError(where + ": cannot read mesh file " + file.string() + ": assimp, the mesh reader, stopped with " +
                         o.message + " on it. The file is malformed (truncated, or written by a broken exporter); "
                         "export it again, or convert it to another format");
    case IsolatedOutcome::Kind::TimedOut:
        throw InputError(where + ": cannot read mesh file " + file.string() + ": assimp, the mesh reader, did not " +
                         "finish within " + std::to_string(int(timeout)) + " s (a malformed file can make it loop)");
    }
    throw Error("internal: unknown outcome of the mesh reader process");
}

ImportedTriangles importTriangles(const std::filesystem::path& file, const std::string& where) {
    return PendingImport(file, where).finish();
}

} // namespace rsim
