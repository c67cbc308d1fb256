// SPDX-License-Identifier: MIT
// Pipelines made ahead of their first use (vulkan/pipeline_warmup.h): a started recipe is handed
// out once, to the recipe that matches it in every part; anything else is created where it is
// asked for; those never taken are released with the device, and none of it upsets the
// validation layer.
#include <algorithm>

#include <catch2/catch_test_macros.hpp>

#include "rsim/shared/gpu_layout.h"
#include "support/test_scenes.h"
#include "util/startup_times.h"
#include "vulkan/device.h"
#include "vulkan/instance.h"
#include "vulkan/pass.h"
#include "vulkan/pipeline_warmup.h"
#include "vulkan/shaders.h"

using namespace rsim;

namespace {
double waitedSoFar() {
    for (const auto& [name, seconds] : startupTimes())
        if (name == "pipelines: waited for the warm-up") return seconds;
    return -1.0;
}
} // namespace

TEST_CASE("pipelines made ahead are handed out once, to the same recipe only", "[vulkan]") {
    if (test::vulkanPathsAvailable().empty()) SKIP("no Vulkan device with ray tracing");
    vk::Instance instance(true);
    const vk::PhysicalDeviceInfo* info = nullptr;
    for (const auto& d : instance.devices())
        if (d.usable) info = &d;
    REQUIRE(info);
    {
        vk::Device device(instance, *info, vk::RayPath::Bvh, "test", false);
        const vk::PipelineRecipe distances =
            vk::passRecipe<shared::DistancePush>(vk::shaders::distances(), {}, "distances");
        const vk::PipelineRecipe pixels = vk::passRecipe<shared::PixelPush>(vk::shaders::pixels(), {}, "pixels");
        vk::PipelineRecipe otherPush = distances;
        otherPush.pushBytes += 16;
        vk::PipelineRecipe otherSpec = distances;
        otherSpec.spec = {1u};
        CHECK_FALSE(distances.sameAs(otherPush));
        CHECK_FALSE(distances.sameAs(otherSpec));
        CHECK_FALSE(distances.sameAs(pixels));
        vk::PipelineRecipe renamed = distances;
        renamed.name = "another label";
        CHECK(distances.sameAs(renamed)); // the name labels it, it does not identify it

        vk::PipelineWarmup& warmup = device.pipelineWarmup();
        warmup.start({distances, pixels, distances}); // the repeat is started once
        CHECK(warmup.take(otherPush) == nullptr);
        CHECK(warmup.take(otherSpec) == nullptr);
        std::unique_ptr<vk::Pipeline> first = warmup.take(renamed);
        REQUIRE(first);
        CHECK_FALSE(first->isRayTracing());
        CHECK(waitedSoFar() >= 0.0); // the wait is part of the start-up breakdown
        CHECK(warmup.take(distances) == nullptr); // handed out already
        // What the warm-up no longer holds is created where it is needed...
        std::unique_ptr<vk::Pipeline> second = vk::pipelineFor(device, distances);
        REQUIRE(second);
        CHECK(second.get() != first.get());
        // ...or started again (a later batch's visibility).
        warmup.start({distances});
        CHECK(warmup.take(distances) != nullptr);
        // A pass built after the start takes the warm-up's pipeline of its recipe.
        warmup.start({otherSpec});
        const vk::Pass<shared::DistancePush> pass(device, vk::shaders::distances(), {1u}, "distances, spec 1");
        CHECK(warmup.take(otherSpec) == nullptr);
        // `pixels` is never taken: the device releases it.
    }
    CHECK(instance.validationErrors() == 0);
}
