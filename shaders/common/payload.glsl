// SPDX-License-Identifier: MIT
struct RsimPayload {
    int triangle;
    float t;
    uvec4 skip; // triangles whose hits do not count (rsimOccludedSkipping)
};
