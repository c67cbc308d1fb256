// SPDX-License-Identifier: MIT
// The storage formats of K (--kij): which ones exist, their names and their storage classes.
// How a chunk is encoded in them lives in the K module (src/k/).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "rsim/shared/kformat.h"

namespace rsim {

enum class KFormat { Fp32, Fp16, Lut8Log, Lut8Range, Lut4Log, Lut4Range };

struct KFormatInfo {
    KFormat format;
    const char* name;      // as --kij takes it
    std::uint32_t storage; // RSIM_K_* of include/rsim/shared/kformat.h
    bool logTable;         // LUT built by the logarithmic mapping (else "lutrange")
    const char* description;
};

const KFormatInfo& kFormatInfo(KFormat format);
const std::vector<KFormatInfo>& kFormats();
// Throws InputError (with a did-you-mean) for an unknown name.
KFormat parseKFormat(const std::string& name);

// How K's chunks are stored (issue 63; src/k/k_segments.h): every element, or only the segments
// of 32 rows that hold a non-zero. Auto (simulation.k_layout's default) takes segments where they
// save at least a quarter of K's bytes and the backend reads them (the CPU). Either layout
// decodes to the same values.
enum class KLayout { Auto, Dense, Segments };
const char* kLayoutName(KLayout layout); // "auto", "dense", "segments"

// The format `rsim run` uses unless told otherwise: the fewest bytes that keep the accuracy
// bar of docs/model-choices.md (chosen by scripts/kij_accuracy_study.py; docs/accuracy.md,
// "K compression").
inline constexpr KFormat kDefaultKFormat = KFormat::Lut8Log;

} // namespace rsim
