// SPDX-License-Identifier: MIT
// Lets one header be compiled as C++ (with glm) and as GLSL (with glslang), so that the
// physics formulas of MODEL.md exist once for the CPU reference and for the shaders.
//
// Rules for code written under this header:
//   - use only vec2/vec3/vec4, uvec*, float, uint, int, bool and structs of those;
//   - float literals carry an `f` suffix (C++ would otherwise mix double into glm calls);
//   - return values, never `out` parameters;
//   - mark with RSIM_PRECISE every expression whose rounding must match across backends
//     (GLSL `precise` forbids fusing a*b+c into an FMA; the C++ build uses -ffp-contract=off).
#ifndef RSIM_SHARED_GLSL_COMPAT_H
#define RSIM_SHARED_GLSL_COMPAT_H

#ifdef __cplusplus
#include <cmath>
#include <cstdint>
#include <glm/glm.hpp>
namespace rsim::shared {
// GLSL's fma, fused as it is on a GPU (glm's is scalar only).
inline float fma(float a, float b, float c) { return std::fma(a, b, c); }
inline glm::vec4 fma(glm::vec4 a, glm::vec4 b, glm::vec4 c) {
    return {std::fma(a.x, b.x, c.x), std::fma(a.y, b.y, c.y), std::fma(a.z, b.z, c.z), std::fma(a.w, b.w, c.w)};
}
} // namespace rsim::shared
#define RSIM_SHARED_BEGIN                                                                          \
    namespace rsim::shared {                                                                       \
    using namespace glm;                                                                           \
    using uint = std::uint32_t;                                                                    \
    using std::uint64_t;
#define RSIM_SHARED_END }
#define RSIM_PRECISE
#define RSIM_FN inline
#define RSIM_CONST inline constexpr
// The wide float of sums whose rounding the CPU reference keeps small: double there, float on
// the GPU (the transport's gathers, a path length plus its delay).
#define RSIM_WIDE double
#else
#define RSIM_SHARED_BEGIN
#define RSIM_SHARED_END
#define RSIM_PRECISE precise
#define RSIM_FN
#define RSIM_CONST const
#define RSIM_WIDE float
#endif

#endif
