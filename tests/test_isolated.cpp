// SPDX-License-Identifier: MIT
// A library crash or hang becomes an error of ours: util/isolated.h and the mesh reader that
// runs assimp through it (scene/mesh_import.h).
#include <chrono>
#include <csignal>
#include <cstdint>
#include <new>
#include <string>

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include "scene/mesh_import.h"
#include "scene/mesh_loader.h"
#include "scene/scene_desc.h"
#include "support/test_scenes.h"
#include "util/error.h"
#include "util/isolated.h"

using namespace rsim;
using Catch::Matchers::ContainsSubstring;

TEST_CASE("work in a child process returns its bytes, its error, its crash or its timeout", "[bad-input][isolated]") {
    if (!isolationEnabled()) SKIP("RSIM_NO_ISOLATION is set");
    const IsolatedOutcome done = runIsolated([] { return std::string("a\0b", 3); }, 10.0);
    CHECK(done.kind == IsolatedOutcome::Kind::Done);
    CHECK(done.bytes == std::string("a\0b", 3));

    const IsolatedOutcome failed = runIsolated([]() -> std::string { throw InputError("no such key"); }, 10.0);
    CHECK(failed.kind == IsolatedOutcome::Kind::Failed);
    CHECK(failed.message == "no such key");

    const IsolatedOutcome crashed = runIsolated([]() -> std::string {
        std::raise(SIGSEGV);
        return "unreachable";
    }, 10.0);
    CHECK(crashed.kind == IsolatedOutcome::Kind::Crashed);
    CHECK_THAT(crashed.message, ContainsSubstring("SIGSEGV"));

    // A child that never ends: only its time limit can end the call (no clock here: without the
    // limit the test would hang until ctest's own timeout fails it).
    const IsolatedOutcome hung = runIsolated([]() -> std::string {
        for (volatile bool forever = true; forever;) {
        }
        return "unreachable";
    }, 0.3);
    CHECK(hung.kind == IsolatedOutcome::Kind::TimedOut);

    // A memory cap makes a large allocation fail in the child, not the machine run out.
#if !defined(__SANITIZE_ADDRESS__)
    const IsolatedOutcome capped = runIsolated([] { return std::string(std::size_t(1) << 30, 'x'); }, 30.0,
                                               std::uint64_t(256) << 20);
    CHECK(capped.kind == IsolatedOutcome::Kind::Failed);
    CHECK(capped.message == std::bad_alloc().what());
#endif

    // Large answers pass through the pipe whole (the parent reads while the child writes).
    const IsolatedOutcome large = runIsolated([] { return std::string(5'000'000, 'x'); }, 30.0);
    CHECK(large.kind == IsolatedOutcome::Kind::Done);
    CHECK(large.bytes.size() == 5'000'000);
}

TEST_CASE("the mesh reader's answer survives encoding, and a damaged answer is an error", "[bad-input][isolated]") {
    ImportedTriangles t;
    t.xyz = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 0, 1, 0, 1, 1};
    t.face = {0, 7};
    t.part = {0, 1};
    t.partName = {"walls", ""};
    t.partMaterial = {"paint", "steel"};
    t.meshCount = 3;
    const std::string bytes = encodeTriangles(t);
    const ImportedTriangles back = decodeTriangles(bytes);
    CHECK(back.xyz == t.xyz);
    CHECK(back.face == t.face);
    CHECK(back.part == t.part);
    CHECK(back.partName == t.partName);
    CHECK(back.partMaterial == t.partMaterial);
    CHECK(back.meshCount == 3);
    CHECK_THROWS_AS(decodeTriangles(bytes.substr(0, bytes.size() - 1)), Error);
    CHECK_THROWS_AS(decodeTriangles(bytes + "x"), Error);
}

TEST_CASE("assimp reads a mesh in a child process with the same triangles as in this one", "[bad-input][isolated]") {
    test::TempDir dir;
    test::writeFile(dir / "m.obj", "o quad\nv 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nf 1 2 3\nf 1 3 4\n");
    const ImportedTriangles child = importTriangles(dir / "m.obj", "test");
    const ImportedTriangles here = importTrianglesHere(dir / "m.obj", "test");
    REQUIRE(child.size() == 2);
    CHECK(child.xyz == here.xyz);
    CHECK(child.partName == here.partName);
    // assimp's own rejection comes back as an InputError naming the file.
    test::writeFile(dir / "bad.obj", "v 0 0 0\nf 1 2 3\n");
    CHECK_THROWS_AS(importTriangles(dir / "bad.obj", "where"), InputError);
}

TEST_CASE("children started together answer each its own, and one left unfinished is stopped", "[isolated]") {
    if (!isolationEnabled()) SKIP("RSIM_NO_ISOLATION is set");
    IsolatedRun first([] { return std::string("first"); }, 10.0);
    IsolatedRun second([] { return std::string(200'000, 's'); }, 10.0); // more than a pipe holds
    CHECK(second.finish().bytes == std::string(200'000, 's'));
    CHECK(first.finish().bytes == "first");
    {
        // A limit far beyond ctest's timeout: only the destructor's kill can end it in time.
        IsolatedRun hung([]() -> std::string {
            for (volatile bool forever = true; forever;) {
            }
            return "unreachable";
        }, 1e7);
    } // the destructor kills and reaps it
}

TEST_CASE("a scene's mesh files are read at once, in its order, and the caller hears when the last reader started",
          "[isolated][scene]") {
    // More files than are read at once (mesh_loader.cpp), one triangle each at x = k.
    constexpr int kMeshes = 11;
    test::TempDir dir;
    std::string scene = "[simulation]\ndt_ns = 0.1\ntimesteps = 200\n[light]\nposition = [0.5, 0.5, 0.5]\n"
                        "direction = [1.0, 0.0, 0.0]\n[[material]]\nname = \"default\"\nreflectance = 0.5\n";
    for (int k = 0; k < kMeshes; ++k) {
        const std::string x = std::to_string(k);
        test::writeFile(dir / ("m" + x + ".obj"), "v " + x + " 0 0\nv " + x + " 1 0\nv " + x + " 0 1\nf 1 2 3\n");
        scene += "[[mesh]]\npath = \"m" + x + ".obj\"\n";
    }
    test::writeFile(dir / "scene.toml", scene);
    int calls = 0;
    const LoadedGeometry g = loadMeshes(loadSceneFile(dir / "scene.toml"), [&] { ++calls; });
    CHECK(calls == 1);
    REQUIRE(g.v0.size() == std::size_t(kMeshes));
    for (int k = 0; k < kMeshes; ++k) {
        CHECK(g.v0[std::size_t(k)].x == double(k));
        CHECK(g.sourceMesh[std::size_t(k)] == std::uint32_t(k));
    }
    // Two broken files: the error is the first one's, as when they were read one by one.
    test::writeFile(dir / "m9.obj", "v 0 0 0\nf 1 2 3\n");
    test::writeFile(dir / "m4.obj", "v 0 0 0\nf 1 2 3\n");
    try {
        loadMeshes(loadSceneFile(dir / "scene.toml"));
        FAIL("broken mesh files loaded");
    } catch (const InputError& e) {
        CHECK_THAT(std::string(e.what()), ContainsSubstring("m4.obj") && !ContainsSubstring("m9.obj"));
    }
}
