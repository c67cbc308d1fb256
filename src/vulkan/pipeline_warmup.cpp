// SPDX-License-Identifier: MIT
#include "vulkan/pipeline_warmup.h"

#include <algorithm>

#include "util/startup_times.h"
#include "util/timer.h"
#include "vulkan/device.h"

namespace rsim::vk {
namespace {
bool sameCode(ShaderCode a, ShaderCode b) { return a.words == b.words && a.bytes == b.bytes; }
} // namespace

bool PipelineRecipe::sameAs(const PipelineRecipe& o) const {
    return sameCode(code, o.code) && sameCode(miss, o.miss) && sameCode(hit, o.hit) && pushBytes == o.pushBytes &&
           usesTlas == o.usesTlas && spec == o.spec;
}

std::unique_ptr<Pipeline> makePipeline(Device& device, const PipelineRecipe& r, bool onQueueThread) {
    if (r.rayTracing())
        return std::make_unique<Pipeline>(device, r.code, r.miss, r.hit, r.pushBytes, r.name, onQueueThread);
    return std::make_unique<Pipeline>(device, r.code, r.pushBytes, r.usesTlas, r.spec, r.name);
}

PipelineWarmup::~PipelineWarmup() {
    for (Entry& e : entries_) {
        try {
            e.pipeline.get(); // waits for its compile; destroyed here, before the device
        } catch (...) {
            // Its error would have reached the run when it took it; none did.
        }
    }
}

void PipelineWarmup::start(const std::vector<PipelineRecipe>& recipes) {
    std::lock_guard lock(mutex_);
    for (const PipelineRecipe& r : recipes) {
        const bool started = std::any_of(entries_.begin(), entries_.end(),
                                         [&](const Entry& e) { return e.recipe.sameAs(r); });
        if (started) continue;
        entries_.push_back(
            {r, std::async(std::launch::async, [this, r] { return makePipeline(device_, r, false); })});
    }
}

std::unique_ptr<Pipeline> PipelineWarmup::take(const PipelineRecipe& recipe) {
    std::future<std::unique_ptr<Pipeline>> pipeline;
    {
        std::lock_guard lock(mutex_);
        auto it = std::find_if(entries_.begin(), entries_.end(),
                               [&](const Entry& e) { return e.recipe.sameAs(recipe); });
        if (it == entries_.end()) return nullptr;
        pipeline = std::move(it->pipeline);
        entries_.erase(it); // a later start() of the same recipe makes another
    }
    Stopwatch waited;
    std::unique_ptr<Pipeline> p = pipeline.get(); // rethrows the compilation's error
    noteStartup("pipelines: waited for the warm-up", waited.seconds());
    p->makeBindingTable(); // on this thread: it submits to the device's queue
    return p;
}

std::unique_ptr<Pipeline> pipelineFor(Device& device, const PipelineRecipe& recipe) {
    if (std::unique_ptr<Pipeline> p = device.pipelineWarmup().take(recipe)) return p;
    return makePipeline(device, recipe, true);
}

} // namespace rsim::vk
