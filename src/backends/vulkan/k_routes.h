// SPDX-License-Identifier: MIT
// The ways the Vulkan backend builds K, each a class behind one interface, chosen once from the
// K plan (k/k_plan.h: the devices, their memory and K's format) by chooseKRoute:
//
//   in place           one device holds fp32 K beside everything else: it computes K and
//                      compresses it there (k_routes.cpp)
//   host assembled     several devices, streaming, or fp32 K too large for one device, while
//                      fp32 K fits the host budget: chunks cast on every device, each pair once,
//                      assembled and encoded in host memory, then placed (k_routes.cpp)
//   where it lives     fp32 K beyond the host budget: each device casts the full rows of its own
//                      chunks and encodes them chunk by chunk (k_routes.cpp)
//   cast once          several devices that each hold their block of rows in fp32: each pair
//                      cast once between them, the halves of shared blocks swapped through host
//                      memory, nothing of K assembled on the host (k_route_cast_once.cpp)
//   rank assembled     an MPI rank's rows in row-block mode, each pair cast once in the job
//                      (k_routes.cpp; visibility/vulkan_visibility_ranks.h)
//
// All give the same K. Stored as segments (KPlan::segments), host assembled and where it lives
// place K as segments, made on the host chunk by chunk; the others leave K dense on the devices,
// which then make it segments (k/vulkan_k_compact.h).
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "backends/backend.h"
#include "backends/vulkan/devices.h"
#include "k/k_plan.h"
#include "k/row_share.h"
#include "visibility/vulkan_visibility.h"

namespace rsim {

// What every route reads: the devices (as slots, and as the visibility passes take them), the
// scene on them, an MPI rank's row share (or null), and the host memory K's assembly may take.
struct KRouteInputs {
    const std::vector<VulkanSlot>* slots = nullptr;
    std::vector<VisibilityDevice> devices;
    const PreparedScene* scene = nullptr;
    const RowShare* share = nullptr;
    std::uint64_t maxHostBytes = 0;
    KJournal* journal = nullptr; // the K cache's chunks file: K where it lives keeps its chunks there
};

class KRoute {
public:
    virtual ~KRoute() = default;
    // K of `k` as the route's plan says, one part per device (in place and rank assembled: one
    // part, on device 0); `out` gets the statistics, the encoding's errors and the details.
    virtual std::vector<DeviceK> compute(const KSettings& k, VisibilityOutcome& out) = 0;
};

// The route for `plan` on `in`'s devices with `budgets` (planKOnDevices). Casting once on the
// devices re-cuts `plan` into blocks of rows. In row-block mode the ranks agree on the route (a
// collective call).
std::unique_ptr<KRoute> chooseKRoute(const KRouteInputs& in, KPlan& plan, const std::vector<DeviceBudget>& budgets);

// For the routes: the devices' time in each pass of the visibility launches (GPU timestamps)
// as details of `out`.
void addPassTimes(const VisibilityPassTimes& passes, VisibilityOutcome& out);
// For the routes that compute K in parts: the encoding's errors against fp32 (no fp32 K in one
// place to report tuning.kij_errors from).
void noteEncodingErrors(const KSettings& k, std::uint32_t n, const KErrors& e, VisibilityOutcome& out);

// k_route_cast_once.cpp: whether the devices can cast each pair once between them, and the route.
bool castOnceFits(const KRouteInputs& in, const KPlan& plan, const std::vector<DeviceBudget>& budgets);
std::unique_ptr<KRoute> makeCastOnceRoute(const KRouteInputs& in, const KPlan& plan);

} // namespace rsim
