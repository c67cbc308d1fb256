// SPDX-License-Identifier: MIT
#include <iostream>

#include <CLI/CLI.hpp>
#include <spdlog/spdlog.h>

#include "cli/cli.h"
#include "generate/generate.h"

namespace rsim {

void addGenerateCommand(CLI::App& app, CommandAction& action) {
    std::string kinds;
    for (const auto& g : sceneGenerators())
        kinds += "  " + g.kind + std::string(14 - std::min<std::size_t>(13, g.kind.size()), ' ') +
                 g.description + "\n";
    auto* cmd = app.add_subcommand("generate", "Write a procedural scene (scene.toml + meshes)");
    struct Args {
        std::string kind;
        std::filesystem::path output;
        std::uint32_t seed = 1;
        bool force = false;
    };
    auto args = std::make_shared<Args>();
    cmd->add_option("kind", args->kind, "Scene kind (see below)")->required();
    cmd->add_option("-o,--output", args->output, "Folder to write (default: scenes/generated/KIND)");
    cmd->add_option("--seed", args->seed, "Seed of the layout (and of the scene's samples)")
        ->capture_default_str();
    cmd->add_flag("--force", args->force,
                  "Replace a scene.toml or mesh file in the folder that `rsim generate` did not write");
    cmd->footer("Kinds:\n" + kinds +
                "The same kind and seed always give the same files.\n"
                "Examples:\n"
                "  rsim generate medium-room --output scenes/generated/medium-room\n"
                "  rsim run scenes/generated/medium-room/scene.toml --output results/medium");
    cmd->callback([&action, args] {
        action = [args]() {
            std::filesystem::path dir = args->output.empty()
                                            ? std::filesystem::path("scenes/generated") / args->kind
                                            : args->output;
            GeneratedScene g = generateScene(args->kind, dir, args->seed, args->force);
            spdlog::info("wrote {} ({} triangles)", g.sceneFile.string(), g.triangles);
            std::cout << g.sceneFile.string() << "\n";
            return 0;
        };
    });
}

} // namespace rsim
