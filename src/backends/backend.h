// SPDX-License-Identifier: MIT
// A backend runs the phases of MODEL.md on one kind of hardware. Every backend produces the
// same SimulationResult, so outputs and comparisons do not care which one ran.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "geometry/prepared_scene.h"
#include "pipeline/result.h"
#include "pipeline/sim_config.h"
#include "util/timer.h"

namespace rsim {

struct RunOptions {
    bool keepK = false;       // return the decoded K (output.kij, tests)
    bool images = true;       // render the sensor image
};

class Backend {
public:
    virtual ~Backend() = default;
    virtual std::string name() const = 0;
    // Runs accel, visibility, compress, direct, radiosity and distance; adds their wall times.
    virtual SimulationResult simulate(const PreparedScene& scene, const SimConfig& config,
                                      const RunOptions& options, PhaseTimes& times) = 0;
};

std::unique_ptr<Backend> makeCpuBackend();

// Throws InputError when the light reaches no triangle, the sensor sees none, or the time
// window ends before light can reach any triangle the sensor sees: a run would only produce a
// table of NaNs. Backends call it right after the direct phase.
void checkDirectTerms(const DirectTerms& direct, const SimConfig& config);

// Host-side steps shared by every backend after B and Z exist: the sensor signals of MODEL §5.
void finishSignals(const PreparedScene& scene, const SimConfig& config, SimulationResult& r);

} // namespace rsim
