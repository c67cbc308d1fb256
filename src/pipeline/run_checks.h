// SPDX-License-Identifier: MIT
// The checks and warnings of a run that come from its own results: a pose that can measure
// nothing is an input error right after its direct terms; a time window, a modulation
// frequency or gates that miss light, and a scene seen from behind, are warnings naming the
// setting to change. simulateBatch() (pipeline/simulate.cpp) calls them. A run none of whose
// poses got a distance is an input error, whether it has one pose, a batch or import rsim's.
#pragma once
#include <string>
#include <vector>

#include "core/prepared_scene.h"
#include "core/results.h"
#include "core/sim_config.h"

namespace rsim {

// Throws InputError when the light reaches no triangle, the sensor sees none, or the time
// window ends before light can reach any triangle the sensor sees: a run would only produce a
// table of NaNs. simulate() calls it right after the direct phase.
void checkDirectTerms(const DirectTerms& direct, const SimConfig& config);

// In AMCW mode, the warning (or "") that the longest light path to a triangle the sensor sees,
// light -> triangle -> sensor, is longer than the path the modulation frequencies tell apart:
// c / f for one frequency, c / gcd(f) for several (docs/model-choices.md); such triangles' phase
// wraps and their distances come out short. In gated mode, the same for the delays the gates
// measure, [gate start, gate start + (gates - 1) W): triangles whose direct light arrives outside
// them get wrong ranges or none.
std::string ambiguityWarning(const DirectTerms& direct, const SimConfig& config);

// The warning (or "") that more than 1% of the light reaching the sensor arrives after the time
// window, estimated from s_fwd: the last tenth of the window against the tenth before it gives
// the decay per tenth q, and the tail beyond the window is last * q / (1 - q) (a geometric
// series; the multipath tail of a room decays about exponentially). A signal that does not
// decay at the end of the window is reported too.
std::string windowWarning(const std::vector<double>& signalFwd, const SimConfig& config);

// The warning (or "") that more than 20% of the sensor image's pixels see the back of a
// one-sided triangle, naming the mesh most of them belong to: the usual sign of a room modelled
// as an ordinary, outward-facing box, whose walls then stay dark.
std::string backFaceWarning(const PreparedScene& scene, const SimConfig& config, const SensorImage& image);

// The triangles of a pose that got a distance.
// One warning per material that the radiosity pipeline sees as Lambertian (MODEL.md §10.1).
void warnApproximatedMaterials(const PreparedScene& scene);

std::size_t trianglesWithDistance(const std::vector<double>& distance);

// The warning (or "") that `echoesCutOff` triangles of a pose have their echo peak too close to
// the end of the time window and got no distance.
std::string cutOffWarning(std::uint32_t echoesCutOff, const SimConfig& config);

// Throws InputError when none of a run's `poses` got a distance, saying why from the first
// pose's cut-off echoes and settings (`echoesCutOff`, `config`). The one policy of a single
// pose, a batch and import rsim: a pose without distances among others only warns
// (simulateBatch), a run that measures nothing fails.
void checkSomeDistance(std::size_t posesWithDistance, std::size_t poses, std::uint32_t echoesCutOff,
                       const SimConfig& config);

} // namespace rsim
