// SPDX-License-Identifier: MIT
// Mesh formats: one shape written as OBJ, PLY, STL, glTF and COLLADA must load as the same
// triangles, with the same winding (front sides), through the scene file and assimp.
#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <catch2/catch_test_macros.hpp>
#include <catch2/generators/catch_generators.hpp>

#include "scene/mesh_loader.h"
#include "support/test_scenes.h"

using namespace rsim;
using namespace rsim::test;

namespace {

// A unit box seen from inside (normals inward), stretched so that no two faces are alike.
const std::array<std::array<float, 3>, 8> kVerts{{{0, 0, 0},
                                                   {2, 0, 0},
                                                   {2, 1.5f, 0},
                                                   {0, 1.5f, 0},
                                                   {0, 0, 1.25f},
                                                   {2, 0, 1.25f},
                                                   {2, 1.5f, 1.25f},
                                                   {0, 1.5f, 1.25f}}};
const std::array<std::array<std::uint16_t, 3>, 12> kFaces{{{0, 1, 2},
                                                           {0, 2, 3},
                                                           {4, 6, 5},
                                                           {4, 7, 6},
                                                           {0, 4, 5},
                                                           {0, 5, 1},
                                                           {1, 5, 6},
                                                           {1, 6, 2},
                                                           {2, 6, 7},
                                                           {2, 7, 3},
                                                           {3, 7, 4},
                                                           {3, 4, 0}}};

std::string num(float x) { return std::to_string(x); }

std::string vertexList(const std::string& prefix, const std::string& sep = " ") {
    std::string out;
    for (const auto& v : kVerts) out += prefix + num(v[0]) + sep + num(v[1]) + sep + num(v[2]) + "\n";
    return out;
}

std::string obj() {
    std::string s = vertexList("v ");
    for (const auto& f : kFaces)
        s += "f " + std::to_string(f[0] + 1) + " " + std::to_string(f[1] + 1) + " " + std::to_string(f[2] + 1) + "\n";
    return s;
}

std::string ply() {
    std::string s = "ply\nformat ascii 1.0\nelement vertex 8\nproperty float x\nproperty float y\n"
                    "property float z\nelement face 12\nproperty list uchar int vertex_indices\nend_header\n";
    s += vertexList("");
    for (const auto& f : kFaces)
        s += "3 " + std::to_string(f[0]) + " " + std::to_string(f[1]) + " " + std::to_string(f[2]) + "\n";
    return s;
}

std::string stl() {
    std::string s = "solid box\n";
    for (const auto& f : kFaces) {
        s += "facet normal 0 0 0\nouter loop\n";
        for (int k = 0; k < 3; ++k) {
            const auto& v = kVerts[f[std::size_t(k)]];
            s += "vertex " + num(v[0]) + " " + num(v[1]) + " " + num(v[2]) + "\n";
        }
        s += "endloop\nendfacet\n";
    }
    return s + "endsolid box\n";
}

std::string base64(const std::vector<std::uint8_t>& bytes) {
    static const char* table = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string out;
    for (std::size_t i = 0; i < bytes.size(); i += 3) {
        std::uint32_t n = std::uint32_t(bytes[i]) << 16;
        if (i + 1 < bytes.size()) n |= std::uint32_t(bytes[i + 1]) << 8;
        if (i + 2 < bytes.size()) n |= bytes[i + 2];
        out += table[(n >> 18) & 63];
        out += table[(n >> 12) & 63];
        out += i + 1 < bytes.size() ? table[(n >> 6) & 63] : '=';
        out += i + 2 < bytes.size() ? table[n & 63] : '=';
    }
    return out;
}

// glTF 2.0 with the buffer embedded as a data URI: positions (float32) then indices (uint16).
std::string gltf() {
    std::vector<std::uint8_t> buffer(sizeof(kVerts) + sizeof(kFaces));
    std::memcpy(buffer.data(), kVerts.data(), sizeof(kVerts));
    std::memcpy(buffer.data() + sizeof(kVerts), kFaces.data(), sizeof(kFaces));
    const std::string len = std::to_string(buffer.size());
    return R"({"asset": {"version": "2.0"}, "scene": 0, "scenes": [{"nodes": [0]}],
 "nodes": [{"mesh": 0}],
 "meshes": [{"primitives": [{"attributes": {"POSITION": 0}, "indices": 1, "mode": 4}]}],
 "buffers": [{"byteLength": )" +
           len + R"(, "uri": "data:application/octet-stream;base64,)" + base64(buffer) + R"("}],
 "bufferViews": [{"buffer": 0, "byteOffset": 0, "byteLength": 96},
                 {"buffer": 0, "byteOffset": 96, "byteLength": 72}],
 "accessors": [{"bufferView": 0, "componentType": 5126, "count": 8, "type": "VEC3",
                "min": [0, 0, 0], "max": [2, 1.5, 1.25]},
               {"bufferView": 1, "componentType": 5123, "count": 36, "type": "SCALAR"}]})";
}

std::string collada() {
    std::string positions, indices;
    for (const auto& v : kVerts) positions += num(v[0]) + " " + num(v[1]) + " " + num(v[2]) + " ";
    for (const auto& f : kFaces)
        indices += std::to_string(f[0]) + " " + std::to_string(f[1]) + " " + std::to_string(f[2]) + " ";
    return R"(<?xml version="1.0" encoding="utf-8"?>
<COLLADA xmlns="http://www.collada.org/2005/11/COLLADASchema" version="1.4.1">
  <asset><unit name="meter" meter="1"/><up_axis>Y_UP</up_axis></asset>
  <library_geometries>
    <geometry id="box" name="box"><mesh>
      <source id="box-pos"><float_array id="box-pos-array" count="24">)" +
           positions + R"(</float_array>
        <technique_common><accessor source="#box-pos-array" count="8" stride="3">
          <param name="X" type="float"/><param name="Y" type="float"/><param name="Z" type="float"/>
        </accessor></technique_common>
      </source>
      <vertices id="box-vtx"><input semantic="POSITION" source="#box-pos"/></vertices>
      <triangles count="12"><input semantic="VERTEX" source="#box-vtx" offset="0"/><p>)" +
           indices + R"(</p></triangles>
    </mesh></geometry>
  </library_geometries>
  <library_visual_scenes>
    <visual_scene id="scene"><node id="node"><instance_geometry url="#box"/></node></visual_scene>
  </library_visual_scenes>
  <scene><instance_visual_scene url="#scene"/></scene>
</COLLADA>
)";
}

// A triangle as (centroid, area-weighted normal), rounded, so that the order of triangles and
// the rotation of their vertices do not matter but the winding does.
using Key = std::array<long long, 6>;

std::vector<Key> keysOf(const LoadedGeometry& g) {
    std::vector<Key> keys;
    for (std::size_t i = 0; i < g.v0.size(); ++i) {
        const glm::dvec3 c = (g.v0[i] + g.v1[i] + g.v2[i]) / 3.0;
        const glm::dvec3 n = glm::cross(g.v1[i] - g.v0[i], g.v2[i] - g.v0[i]);
        auto r = [](double x) { return static_cast<long long>(std::llround(x * 1e5)); };
        keys.push_back({r(c.x), r(c.y), r(c.z), r(n.x), r(n.y), r(n.z)});
    }
    std::sort(keys.begin(), keys.end());
    return keys;
}

LoadedGeometry load(const TempDir& dir, const std::string& file, const std::string& text) {
    writeFile(dir / file, text);
    SceneDesc s;
    MeshDesc m;
    m.path = dir / file;
    m.material = "wall";
    s.meshes.push_back(m);
    MaterialDesc wall;
    wall.name = "wall";
    wall.model.reflectance = 0.6;
    s.materials.push_back(wall);
    return loadMeshes(s);
}

} // namespace

TEST_CASE("OBJ PLY STL glTF and COLLADA files load as the same triangles", "[scene][formats]") {
    TempDir dir;
    const std::vector<Key> reference = keysOf(load(dir, "box.obj", obj()));
    REQUIRE(reference.size() == kFaces.size());
    const std::string format = GENERATE(as<std::string>{}, "box.ply", "box.stl", "box.gltf", "box.dae");
    CAPTURE(format);
    std::string text = format == "box.ply"    ? ply()
                       : format == "box.stl"  ? stl()
                       : format == "box.gltf" ? gltf()
                                              : collada();
    const LoadedGeometry g = load(dir, format, text);
    CHECK(g.loaded == kFaces.size());
    CHECK(keysOf(g) == reference);
    REQUIRE(!g.material.empty());
    CHECK(g.materials[g.material[0]].name == "wall");
}
