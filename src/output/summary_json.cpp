// SPDX-License-Identifier: MIT
#include <algorithm>
#include <cmath>
#include <string>

#include <nlohmann/json.hpp>

#include "output/output_util.h"
#include "output/results_writer.h"
#include "output/startup_json.h"
#include "util/cpu_isa.h"

namespace rsim {
namespace {

using Json = nlohmann::ordered_json; // keeps the documented key order, for people reading it

// JSON has no NaN or infinity; null keeps the file valid for every parser.
Json number(double v) {
    return std::isfinite(v) ? Json(v) : Json(nullptr);
}

Json vec3(const glm::dvec3& v) {
    return Json::array({number(v.x), number(v.y), number(v.z)});
}

Json numbers(const std::vector<double>& values) {
    Json a = Json::array();
    for (double v : values)
        a.push_back(number(v));
    return a;
}

// MODEL.md §11: how the solve of the pose's group went, per angular frequency.
Json phasorsJson(const PhasorReport& r) {
    Json j;
    j["omegas_rad_per_step"] = Json::array();
    for (double w : r.omegas) j["omegas_rad_per_step"].push_back(number(w));
    j["iterations"] = r.iterations;
    j["sweeps"] = r.sweeps;
    j["group_poses"] = r.groupPoses;
    j["converged"] = r.converged;
    j["last_change"] = Json::array();
    j["tolerance"] = Json::array();
    j["error_bound"] = Json::array();
    for (std::size_t f = 0; f < r.change.size(); ++f) {
        j["last_change"].push_back(number(r.change[f]));
        j["tolerance"].push_back(number(r.tolerance[f]));
        // |B^ - B^(k)| <= q / (1 - q) x the last change, where q < 1 bounds the contraction.
        j["error_bound"].push_back(r.q >= 0.0 && r.q < 1.0 ? number(r.q / (1.0 - r.q) * r.change[f]) : Json());
    }
    j["q_bound"] = r.q >= 0.0 ? number(r.q) : Json();
    return j;
}

// One light's place, aim, cone or profile, power and delay.
Json lightSettings(const LightDesc& l) {
    return {{"position", vec3(l.position)},
            {"direction", vec3(l.direction)},
            {"half_angle_deg", number(l.half_angle_deg)},
            {"power_w", number(l.power_w)},
            {"falloff_exponent", number(l.falloff_exponent)},
            {"delay_ns", number(l.delay_ns)},
            {"profile", l.profile_file.empty() ? Json(nullptr) : Json(l.profile_file)}};
}

// The [tuning] keys the run set (docs/tuning.md); an empty object when none.
Json tuningSettings(const TuningDesc& t) {
    Json j = Json::object();
    auto put = [&](const char* key, const auto& value) {
        if (value) j[key] = *value;
    };
    put("pass_blocks", t.passBlocks);
    put("radiosity_split", t.radiositySplit);
    put("radiosity_unroll", t.radiosityUnroll);
    put("radiosity_poses", t.radiosityPoses);
    put("radiosity_lanes", t.radiosityLanes);
    put("radiosity_lane_receivers", t.radiosityLaneReceivers);
    put("radiosity_staged", t.radiosityStaged);
    put("chunk_mb", t.chunkMb);
    put("kij_errors", t.kijErrors);
    put("host_rays", t.hostRays);
    put("cpu_isa", t.cpuIsa);
    put("writers", t.writers);
    put("pose_group", t.poseGroup);
    put("validation", t.validation);
    put("early_exit", t.earlyExit);
    return j;
}

Json settings(const ResultsView& view) {
    const SceneDesc& s = view.scene;
    Json j;
    j["simulation"] = {{"dt_ns", number(s.sim.dt_ns)},
                       {"timesteps", s.sim.timesteps},
                       {"samples", s.sim.samples},
                       {"k_estimator", kEstimatorName(s.sim.k_estimator)},
                       {"near_pair_factor", s.sim.near_pair_factor},
                       {"clear_pairs", s.sim.clear_pairs_formula ? "formula" : "rays"},
                       {"tile_list_max", s.sim.tile_list_max},
                       {"k_layout", kLayoutName(s.sim.k_layout)},
                       {"direct_samples", s.sim.direct_samples},
                       {"seed", s.sim.seed},
                       {"indirect", s.sim.indirect},
                       {"max_edge_m", number(s.sim.max_edge_m)},
                       {"transport", transportName(s.sim.transport)},
                       {"max_bounces", s.sim.max_bounces},
                       {"phasor_tolerance", number(s.sim.phasor_tolerance)},
                       {"phasor_max_iterations", s.sim.phasor_max_iterations},
                       {"phasor_delays", s.sim.phasor_rounded_delays ? "rounded" : "exact"}};
    // The first light with the pulse; the second and later [[light]] tables (world positions and
    // directions, as placed) without it.
    j["light"] = lightSettings(s.light);
    j["light"].update({{"pulse", s.light.pulse == PulseShape::Gaussian      ? "gaussian"
                                 : s.light.pulse == PulseShape::Rectangular ? "rectangular"
                                                                            : "delta"},
                       {"pulse_fwhm_ns", number(s.light.pulse_fwhm_ns)},
                       {"pulse_width_ns", number(s.light.pulse_width_ns)},
                       {"pulse_bins", view.config.pulse.size()}});
    Json more = Json::array();
    for (const LightDesc& l : s.moreLights) more.push_back(lightSettings(l));
    j["more_lights"] = more;
    j["sensor"] = {{"position", vec3(s.sensorPosition())},
                   {"look_at", vec3(s.sensor.look_at)},
                   {"up", vec3(s.sensor.up)},
                   {"fov_deg", {number(s.sensor.fov_h_deg), number(s.sensor.fov_v_deg)}},
                   {"resolution", {s.sensor.width, s.sensor.height}},
                   {"mode", s.sensor.mode == SensorMode::Amcw    ? "amcw"
                            : s.sensor.mode == SensorMode::Gated ? "gated"
                                                                 : "pulsed"},
                   {"gate_start_ns", number(s.sensor.gate_start_ns)},
                   {"gates", s.sensor.gates},
                   {"modulation_mhz", numbers(s.sensor.modulation_mhz)},
                   {"taps", s.sensor.taps},
                   {"waveform", s.sensor.waveform},
                   {"harmonics", s.sensor.harmonics},
                   {"pixel_samples", s.sensor.pixel_samples},
                   {"pixel_filter", s.sensor.pixel_filter_box ? "box" : "centre"}};
    Json materials = Json::array();
    for (const MaterialDesc& m : s.materials)
        materials.push_back({{"name", m.name},
                             {"type", materialTypeName(m.model.type)},
                             {"reflectance", number(m.model.reflectance)},
                             {"ior", number(m.model.ior)},
                             {"roughness", number(m.model.roughness)},
                             {"specular", number(m.model.specular)},
                             {"two_sided", m.two_sided}});
    j["materials"] = materials;
    const SensorModelDesc& m = s.sensorModel;
    j["sensor_model"] = {{"enabled", m.enabled},
                         {"pulse_energy_uj", number(m.pulse_energy_uj)},
                         {"pulses", m.pulses},
                         {"exposure_us", number(m.exposure_us)},
                         {"mean_power_w", m.mean_power_w ? number(*m.mean_power_w) : Json(nullptr)},
                         {"pulse_rate_mhz", m.pulse_rate_mhz ? number(*m.pulse_rate_mhz) : Json(nullptr)},
                         {"f_number", number(m.f_number)},
                         {"pixel_pitch_um", number(m.pixel_pitch_um)},
                         {"fill_factor", number(m.fill_factor)},
                         {"quantum_efficiency", number(m.quantum_efficiency)},
                         {"wavelength_nm", number(m.wavelength_nm)},
                         {"ambient_w_m2", number(m.ambient_w_m2)},
                         {"read_noise_e", number(m.read_noise_e)},
                         {"seed", m.seed},
                         {"scattering_fractions", numbers(m.scattering_fractions)},
                         {"scattering_sigmas_px", numbers(m.scattering_sigmas_px)}};
    j["output"] = {{"dir", s.output.dir.string()},
                   {"timeseries", s.output.timeseries},
                   {"kij", s.output.kij},
                   {"images", s.output.images},
                   {"transient", s.output.transient},
                   {"transient_start", s.output.transient_start},
                   {"transient_bins", s.output.transient_bins},
                   {"transient_roi", numbers(s.output.transient_roi)}};
    j["tuning"] = tuningSettings(s.tuning);
    return j;
}

Json timings(const PhaseTimes& times) {
    static const char* const kPhases[] = {"load",   "accel",     "visibility", "compress",
                                          "direct", "radiosity", "distance",   "output"};
    Json j;
    for (const char* phase : kPhases)
        j[phase] = number(times.get(phase));
    // A phase a backend adds later still shows up, and total stays the sum of what is listed.
    for (const auto& [name, secs] : times.entries())
        if (!j.contains(name)) j[name] = number(secs);
    double total = 0.0;
    for (const auto& [name, secs] : times.entries())
        total += secs;
    j["total"] = number(total);
    return j;
}

Json distanceError(const std::vector<double>& errors) {
    std::size_t count = 0;
    double sum = 0.0, sumAbs = 0.0, sumSq = 0.0, maxAbs = 0.0;
    for (double e : errors) {
        if (!std::isfinite(e)) continue;
        ++count;
        sum += e;
        sumAbs += std::abs(e);
        sumSq += e * e;
        maxAbs = std::max(maxAbs, std::abs(e));
    }
    const double nan = std::nan("");
    const double c = double(count);
    return {{"count", count},
            {"mean", number(count ? sum / c : nan)},
            {"mean_abs", number(count ? sumAbs / c : nan)},
            {"rms", number(count ? std::sqrt(sumSq / c) : nan)},
            {"p99_abs", number(count ? output::absPercentile(errors, 0.99) : nan)},
            {"max_abs", number(count ? maxAbs : nan)}};
}

} // namespace

std::string summaryJsonText(const ResultsView& view, const PhaseTimes& times) {
    const PreparedScene& ps = view.prepared;
    const SimulationResult& r = view.result;
    const std::vector<double> errors = output::distanceErrorsById(view);
    std::uint64_t withDistance = 0;
    for (double d : r.distance)
        if (std::isfinite(d)) ++withDistance;

    Json j;
    j["schema"] = kSummarySchema;
    j["rsim_version"] = view.info.version;
    j["command"] = view.info.commandLine;
    j["started_at"] = view.info.startedAt;
    j["scene_file"] = view.scene.file.string();
    if (!view.info.pose.empty()) j["pose"] = view.info.pose;
    j["transport"] = transportName(view.config.transport);
    if (view.config.transport == Transport::Phasors) j["phasors"] = phasorsJson(view.result.phasors);
    j["materials_approximated"] = output::materialsApproximated(view);
    const RunMetadata& m = view.meta;
    j["backend"] = m.backend;
    j["devices"] = m.devices;
    j["threads"] = m.threads;
    j["cpu_isa"] = cpuIsaName(cpuIsa()); // what the CPU's hot loops ran (util/cpu_isa.h)
    j["visibility_path"] = m.visibilityPath;
    j["cpu_phases"] = m.cpuPhases;
    j["k_format"] = m.k.format;
    j["k_from_cache"] = view.info.kFromCache;
    j["k_chunks_from_cache"] = m.kChunksFromCache;
    if (view.info.rowRanks > 1) {
        j["mpi"] = {{"ranks", view.info.rowRanks}, {"split", "rows"}};
        // None without indirect light: there is no K to share.
        if (!view.meta.rowsOfRanks.empty()) j["mpi"]["rows_of_ranks"] = view.meta.rowsOfRanks;
    }
    j["streaming"] = m.k.streaming;
    j["k_bytes"] = m.k.bytes;
    j["k_stored_as"] = m.k.layout;
    if (m.k.layout == "segments") j["k_segments"] = m.k.segments;
    j["k_chunks"] = m.k.chunks;
    j["k_rows_per_chunk"] = m.k.rowsPerChunk;
    j["k_rms_error"] = number(m.k.rmsError);
    j["k_max_abs_error"] = number(m.k.maxAbsError);
    if (!m.k.formatErrors.empty()) {
        Json perFormat = Json::object();
        for (const auto& e : m.k.formatErrors)
            perFormat[e.format] = {{"rms", number(e.rms)}, {"max_abs", number(e.maxAbs)}};
        j["k_format_errors"] = perFormat;
    }
    j["settings"] = settings(view);
    j["counts"] = {{"triangles_loaded", ps.counts.loaded},
                   {"triangles_dropped",
                    ps.counts.droppedDegenerate + ps.counts.droppedNonFinite + ps.counts.droppedDuplicate},
                   {"triangles_dropped_duplicate", ps.counts.droppedDuplicate},
                   {"triangles_dropped_degenerate", ps.counts.droppedDegenerate},
                   {"triangles_dropped_nonfinite", ps.counts.droppedNonFinite},
                   {"twins_added", ps.counts.twins},
                   {"triangles", ps.size()},
                   {"candidate_pairs", r.visibility.candidatePairs},
                   {"nonzero_pairs", r.visibility.nonzeroPairs},
                   {"clamped_form_factors", r.visibility.clampedFormFactors},
                   {"rows_with_form_factor_sum_over_1", r.visibility.rowsOverOne},
                   {"triangles_with_distance", withDistance},
                   {"echoes_cut_off", view.info.echoesCutOff}};
    j["max_form_factor_row_sum"] = number(r.visibility.maxRowSum);
    Json memory = Json::array();
    for (const auto& d : m.deviceMemory) {
        Json inUse = Json::object();
        for (const auto& [phase, bytes] : d.inUseAfter) inUse[phase] = bytes;
        memory.push_back({{"device", d.device}, {"budget_bytes", d.budgetBytes}, {"other_bytes", d.fixedBytes},
                          {"k_bytes", d.kBytes}, {"k_chunks", d.chunks}, {"streamed", d.streamed},
                          {"chunks_per_copy", d.copyGroup}, {"in_use_after_bytes", inUse}});
    }
    j["device_memory"] = memory;
    j["timings_s"] = timings(times);
    Json details = Json::object();
    for (const auto& [name, secs] : m.timingDetails) details[name] = number(secs);
    j["timings_detail_s"] = details;
    output::addStartupTimes(j);
    const double visSecs = times.get("visibility");
    j["rays"] = {
        {"visibility", r.visibility.raysCast},
        {"visibility_candidate_pairs", r.visibility.candidatePairs},
        {"visibility_clear_pairs", r.visibility.clearPairs},
        {"visibility_listed", r.visibility.raysListed},
        {"visibility_tiles_listed", r.visibility.tilesListed},
        {"visibility_tiles_long", r.visibility.tilesLong},
        {"visibility_tile_list_entries", r.visibility.tileListEntries},
        {"visibility_by_blockers", r.visibility.raysByBlockers},
        {"visibility_per_s", number(visSecs > 0.0 ? double(r.visibility.raysCast) / visSecs : 0.0)},
        {"shadow", r.direct.shadowRays},
        {"primary", view.config.transport == Transport::Paths ? 0 : r.image.rays}};
    if (view.config.transport == Transport::Paths) { // MODEL.md §10.2: centre rays, path segments, shadow rays
        const double pathSecs = times.get("paths");
        j["rays"]["paths"] = r.image.rays;
        j["rays"]["paths_per_s"] = number(pathSecs > 0.0 ? double(r.image.rays) / pathSecs : 0.0);
    }
    j["sensor_signal_fwd"] = numbers(r.signalFwd);
    j["sensor_signal_adj"] = numbers(r.signalAdj);
    j["distance_error_m"] = distanceError(errors);
    if (output::imagesWritten(view)) {
        const output::ImageStats s = output::imageStats(r.image);
        j["images"] = {{"width", s.width},
                       {"height", s.height},
                       {"pixels_with_depth", s.pixelsWithDepth},
                       {"depth_range_m", {number(s.depthLo), number(s.depthHi)}},
                       // What error.png's colours span (its 99th percentile), not the errors' range.
                       {"error_colour_range_m", {number(-s.errorRange), number(s.errorRange)}},
                       {"amplitude_range", {number(s.amplitudeLo), number(s.amplitudeHi)}}};
        // The pixels' own errors: estimated depth minus the true distance along the pixel ray.
        std::vector<double> pixelErrors;
        for (std::size_t k = 0; k < r.image.depth.size(); ++k)
            pixelErrors.push_back(double(r.image.depth[k]) - double(r.image.trueDepth[k]));
        j["images"]["pixel_error_m"] = distanceError(pixelErrors);
    }

    // Invalid UTF-8 (a command line or path in another encoding) must not lose the run.
    std::string text = j.dump(2, ' ', false, Json::error_handler_t::replace);
    text += '\n';
    return text;
}

void writeSummaryJson(const std::filesystem::path& file, const ResultsView& view, const PhaseTimes& times) {
    output::OutputFile out(file);
    out.write(summaryJsonText(view, times));
    out.close();
}

} // namespace rsim
