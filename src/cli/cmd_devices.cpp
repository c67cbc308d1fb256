// SPDX-License-Identifier: MIT
#include <iostream>

#include <CLI/CLI.hpp>

#include "cli/cli.h"
#include "backends/backend_choice.h"

namespace rsim {

void addDevicesCommand(CLI::App& app, CommandAction& action) {
    auto* cmd = app.add_subcommand("devices", "List the compute devices rsim can use");
    cmd->footer("Lists every Vulkan device with its memory, queues and which visibility paths "
                "(ray-query, pipeline; bvh, rsim's own traversal, on every usable device) it "
                "supports; the indices are what --devices takes.\n"
                "Example:\n  rsim devices");
    cmd->callback([&action] {
        action = [] {
            std::cout << describeDevices();
            return 0;
        };
    });
}

} // namespace rsim
