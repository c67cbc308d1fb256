// SPDX-License-Identifier: MIT
#include "core/k_format.h"

#include "util/did_you_mean.h"
#include "util/error.h"

namespace rsim {

const std::vector<KFormatInfo>& kFormats() {
    static const std::vector<KFormatInfo> formats = {
        {KFormat::Fp32, "fp32", shared::RSIM_K_FP32, false, "32-bit floats (exact)"},
        {KFormat::Fp16, "fp16", shared::RSIM_K_FP16, false,
         "16-bit floats, converted as K is computed"},
        {KFormat::Lut8Log, "lut8-log", shared::RSIM_K_LUT8, true,
         "8-bit codes, per-chunk table spaced evenly in ln K (paper's choice)"},
        {KFormat::Lut8Range, "lut8-range", shared::RSIM_K_LUT8, false,
         "8-bit codes, per-chunk table from recursive range splitting (\"lutrange\")"},
        {KFormat::Lut4Log, "lut4-log", shared::RSIM_K_LUT4, true,
         "4-bit codes, logarithmic table (study only)"},
        {KFormat::Lut4Range, "lut4-range", shared::RSIM_K_LUT4, false,
         "4-bit codes, lutrange table (study only)"},
    };
    return formats;
}

const KFormatInfo& kFormatInfo(KFormat f) {
    for (const auto& i : kFormats())
        if (i.format == f) return i;
    return kFormats().front();
}

const char* kLayoutName(KLayout layout) {
    return layout == KLayout::Auto ? "auto" : layout == KLayout::Dense ? "dense" : "segments";
}

KFormat parseKFormat(const std::string& name) {
    std::vector<std::string> names;
    for (const auto& i : kFormats()) {
        if (name == i.name) return i.format;
        names.push_back(i.name);
    }
    std::string list;
    for (const auto& n : names)
        list += (list.empty() ? "" : ", ") + n;
    const std::string hint = didYouMean(name, names);
    throw InputError("--kij " + name + ": unknown K format" +
                     (hint.empty() ? "" : " (did you mean " + hint + "?)") + "; expected one of " +
                     list);
}

} // namespace rsim
