// SPDX-License-Identifier: MIT
// The simulation, written once: the phases of MODEL.md in order, run by a backend (or, phase by
// phase, by several), with their timings, log lines and checks.
#pragma once
#include "backends/backend.h"
#include "core/run_metadata.h"
#include "util/timer.h"

namespace rsim {

struct RunOptions {
    bool keepK = false; // return the decoded K (output.kij, tests)
    bool images = true; // render the sensor image
};

// The backends that run each phase; usually one backend for all of them.
struct PhaseBackends {
    Backend* geometry;  // prepare, visibility
    Backend* pose;      // direct, transport
    Backend* distances; // distances, image

    static PhaseBackends all(Backend& b) { return {&b, &b, &b}; }
};

// Runs every phase on `scene`; `times` gets the phases' wall times (summary.json timings_s) and
// `meta` the run's description (backend and devices from the first backend).
SimulationResult simulate(const PhaseBackends& backends, const PreparedScene& scene,
                          const SimConfig& config, const RunOptions& options, PhaseTimes& times,
                          RunMetadata& meta);

// Throws InputError when the light reaches no triangle, the sensor sees none, or the time
// window ends before light can reach any triangle the sensor sees: a run would only produce a
// table of NaNs. simulate() calls it right after the direct phase.
void checkDirectTerms(const DirectTerms& direct, const SimConfig& config);

} // namespace rsim
