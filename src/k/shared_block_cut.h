// SPDX-License-Identifier: MIT
// Where two devices of one process cut the block of pairs they share (RowShare::cutSharedBlock),
// so that each casts about as many facing pairs: the pairs that can face each other are the
// ones rays are cast for, and their number differs between parts of a scene (two H200s,
// industry: 285 M and 316 M candidate pairs in equal halves of the rows, 1.33 and 1.47 s of
// the devices' passes). Only who casts a pair changes, never its value.
#pragma once
#include <cstdint>

#include "core/prepared_scene.h"
#include "k/row_share.h"

namespace rsim {

struct SharedBlockCut {
    std::uint32_t chunk = 0;                // the cut (a chunk of part 0's)
    double facing[2] = {0.0, 0.0};          // estimated facing pairs each part casts with it
    double facingAtMiddle[2] = {0.0, 0.0};  // and with the cut at part 0's middle chunk
};

// For a share of two parts: the cut of their shared block that best balances the facing pairs
// each casts (its own block's and its part of the shared one), estimated from the facing tests
// of up to 24 rows of every chunk against as many of every other (rsimCanFace).
SharedBlockCut balancedSharedBlockCut(const PreparedScene& scene, const RowShare& share);

// Tests: the cut at `fraction` of part 0's chunks (0: part 1 casts the whole shared block, 1:
// part 0 does) instead of the balanced one, for the rest of the process; negative: balanced.
void overrideSharedBlockCut(double fraction);
// The cut the devices take: the override's, or balancedSharedBlockCut's.
SharedBlockCut chooseSharedBlockCut(const PreparedScene& scene, const RowShare& share);

} // namespace rsim
