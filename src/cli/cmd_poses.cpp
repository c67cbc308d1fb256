// SPDX-License-Identifier: MIT
#include <iostream>

#include <CLI/CLI.hpp>

#include "cli/cli.h"
#include "cli/validators.h"
#include "geometry/prepare.h"
#include "scene/mesh_loader.h"
#include "scene/poses.h"
#include "scene/trajectories.h"
#include "util/error.h"
#include "util/owned_files.h"

namespace rsim {
namespace {

// The first line of every poses file `rsim poses` writes (a comment to the reader), by which a
// later call knows the file as its own and may replace it.
constexpr const char* kPosesMarker = "# Written by `rsim poses`:";

} // namespace

void addPosesCommand(CLI::App& app, CommandAction& action) {
    auto* cmd = app.add_subcommand("poses", "Write a camera trajectory as a poses file for 'rsim run --poses'");
    struct Args {
        std::string scene, output;
        std::uint32_t orbit = 0, grid = 0, path = 0;
        double radius = 0.3, length = 0.5;
    };
    auto a = std::make_shared<Args>();
    cmd->add_option("scene", a->scene, "Scene file (TOML): its bounds and its camera place the trajectory")->required();
    auto* orbit = cmd->add_option("--orbit", a->orbit,
                                  "N poses on a horizontal circle around the scene's centre at the camera's height, "
                                  "looking at the centre")
                      ->check(CLI::Range(1u, 100000u));
    auto* grid = cmd->add_option("--grid", a->grid,
                                 "N x N poses over the middle 60% of the floor plan at the camera's height, looking "
                                 "the way the scene's camera looks")
                     ->check(CLI::Range(1u, 1000u));
    auto* path = cmd->add_option("--path", a->path,
                                 "N poses walking from the scene's camera along its view, looking ahead")
                     ->check(CLI::Range(1u, 100000u));
    orbit->excludes(grid)->excludes(path);
    grid->excludes(path);
    cmd->add_option("--radius", a->radius, "Orbit radius as a fraction of the smaller horizontal half-extent")
        ->check(finiteNumber() & CLI::Range(0.0, 1.0))
        ->capture_default_str();
    cmd->add_option("--length", a->length, "Path length as a fraction of the way to the scene's bounds")
        ->check(finiteNumber() & CLI::Range(0.0, 1.0))
        ->capture_default_str();
    cmd->add_option("-o,--output", a->output, "Poses file to write (default: standard output)");
    cmd->footer("Positions are not checked against furniture: look at the poses before a long batch.\n"
                "Examples:\n"
                "  rsim poses scene.toml --orbit 32 -o poses.csv\n"
                "  rsim poses scene.toml --grid 4 -o grid.csv\n"
                "  rsim run scene.toml --poses poses.csv --no-timeseries");
    cmd->callback([&action, a, orbit, grid, path] {
        action = [a, orbit, grid, path] {
            // Checked first: a file of the user's (the scene itself, say) is never replaced.
            if (!a->output.empty()) checkReplaceableFile(a->output, kPosesMarker, "rsim poses", {a->scene});
            TrajectoryRequest r;
            if (orbit->count()) r = {"orbit", a->orbit};
            else if (grid->count()) r = {"grid", a->grid};
            else if (path->count()) r = {"path", a->path};
            else throw InputError("rsim poses: choose a trajectory: --orbit N, --grid N or --path N");
            r.radiusFraction = a->radius;
            r.lengthFraction = a->length;
            const SceneDesc scene = loadSceneFile(a->scene);
            const PreparedScene s = prepareScene(loadMeshes(scene), 0.0);
            const std::vector<PoseDesc> poses = makeTrajectory(scene, s.boundsMin, s.boundsMax, r);
            checkPoses(poses, scene);
            const std::string csv = std::string(kPosesMarker) + " " + r.kind + " " + std::to_string(r.count) + " of " +
                                    a->scene + "\n" + posesCsv(poses);
            if (a->output.empty()) std::cout << csv;
            else writeFileAtomically(a->output, csv);
            return 0;
        };
    });
}

} // namespace rsim
