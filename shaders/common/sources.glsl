// SPDX-License-Identifier: MIT
// Source terms E_i(t), R_i(t) on the fly (MODEL.md §4-5), from the per-triangle amounts and
// fractional delays; the same rsimDeposit the CPU reference uses.
float rsimPulseAt(uint64_t pulse, uint P, int k) {
    return (k >= 0 && k < int(P)) ? FloatRefs(pulse).v[k] : 0.0;
}

float rsimSourceAt(float amount, float delay, uint t, uint64_t pulse, uint P) {
    if (amount == 0.0 || !(delay >= 0.0)) return 0.0;
    int k = int(t) - int(floor(delay));
    return rsimDeposit(amount, delay, rsimPulseAt(pulse, P, k), rsimPulseAt(pulse, P, k - 1));
}
