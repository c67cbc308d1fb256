// SPDX-License-Identifier: MIT
struct RsimPayload {
    int triangle;
    float t;
};
