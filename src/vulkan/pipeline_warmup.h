// SPDX-License-Identifier: MIT
// Pipelines made ahead of their first use, on threads of their own (issue 21): a run names what
// its phases will create (PipelineRecipe), the device compiles them in parallel while the run
// does other work, and the pass that needs one takes it (`pipelineFor`) instead of creating it,
// waiting only for that one. On a cold driver a pipeline compiles for up to seconds (a cold
// start: docs/benchmarks.md, "GPU start-up"); in parallel the run waits for the longest, not the
// sum. A recipe nobody takes is destroyed with the device.
#pragma once
#include <cstdint>
#include <future>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "vulkan/pipeline.h"

namespace rsim::vk {

// What identifies a pipeline: its shaders (a ray-tracing pipeline when `miss` is given), push
// constants, whether it binds the scene, and its specialization constants. `name` labels it.
struct PipelineRecipe {
    ShaderCode code; // compute, or raygen
    ShaderCode miss, hit;
    std::uint32_t pushBytes = 0;
    bool usesTlas = false;
    SpecConstants spec;
    std::string name;

    bool rayTracing() const { return miss.words != nullptr; }
    bool sameAs(const PipelineRecipe& o) const;
};

// Creates the pipeline now. A thread that may not use the device's queue (`onQueueThread` false:
// the warm-up's) leaves a ray-tracing pipeline's shader binding table to Pipeline::makeBindingTable.
// Nothing else in a pipeline's creation touches the queue, the command pools or their staging.
std::unique_ptr<Pipeline> makePipeline(Device& device, const PipelineRecipe& recipe, bool onQueueThread);

class PipelineWarmup {
public:
    explicit PipelineWarmup(Device& device) : device_(device) {}
    ~PipelineWarmup(); // waits for every pipeline still compiling; destroys those not taken
    PipelineWarmup(const PipelineWarmup&) = delete;
    PipelineWarmup& operator=(const PipelineWarmup&) = delete;

    // Starts each recipe that is not started and waiting to be taken already, one thread each.
    void start(const std::vector<PipelineRecipe>& recipes);
    // The pipeline of a started recipe, once compiled (nullptr: not started since it was last taken).
    std::unique_ptr<Pipeline> take(const PipelineRecipe& recipe);

private:
    struct Entry {
        PipelineRecipe recipe;
        std::future<std::unique_ptr<Pipeline>> pipeline;
    };
    Device& device_;
    std::mutex mutex_;
    std::vector<Entry> entries_;
};

// The recipe's pipeline: the device's warm-up's when it was started, else created here.
std::unique_ptr<Pipeline> pipelineFor(Device& device, const PipelineRecipe& recipe);

} // namespace rsim::vk
