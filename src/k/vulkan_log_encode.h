// SPDX-License-Identifier: MIT
// Encoding a device-resident fp32 K in a logarithmic LUT format on that device
// (shaders/kencode.comp): only each chunk's value range and the error sums cross to the host.
#pragma once
#include "k/gpu_k.h"

namespace rsim {

// K (fp32: every chunk, or an MPI rank's chunks) becomes `format` (lut8-log or lut4-log), chunk by chunk, freeing each
// fp32 chunk as soon as its encoded copy exists. Codes equal encodeChunk()'s on the host, bit for
// bit.
KErrors encodeLogKVulkan(vk::Device& device, DeviceK& K, KFormat format);

} // namespace rsim
