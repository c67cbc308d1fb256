// SPDX-License-Identifier: MIT
#include "compress/kformat.h"

#include <algorithm>
#include <cmath>
#include <queue>

#include "scene/scene_desc.h"
#include "util/error.h"
#include "util/parallel.h"

namespace rsim {

const std::vector<KFormatInfo>& kFormats() {
    static const std::vector<KFormatInfo> formats = {
        {KFormat::Fp32, "fp32", shared::RSIM_K_FP32, false, "32-bit floats (exact)"},
        {KFormat::Fp16, "fp16", shared::RSIM_K_FP16, false, "16-bit floats, converted as K is computed"},
        {KFormat::Lut8Log, "lut8-log", shared::RSIM_K_LUT8, true,
         "8-bit codes, per-chunk table spaced evenly in ln K (paper's choice)"},
        {KFormat::Lut8Range, "lut8-range", shared::RSIM_K_LUT8, false,
         "8-bit codes, per-chunk table from recursive range splitting (\"lutrange\")"},
        {KFormat::Lut4Log, "lut4-log", shared::RSIM_K_LUT4, true, "4-bit codes, logarithmic table (study only)"},
        {KFormat::Lut4Range, "lut4-range", shared::RSIM_K_LUT4, false, "4-bit codes, lutrange table (study only)"},
    };
    return formats;
}

const KFormatInfo& kFormatInfo(KFormat f) {
    for (const auto& i : kFormats())
        if (i.format == f) return i;
    return kFormats().front();
}

KFormat parseKFormat(const std::string& name) {
    std::vector<std::string> names;
    for (const auto& i : kFormats()) {
        if (name == i.name) return i.format;
        names.push_back(i.name);
    }
    std::string list;
    for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
    const std::string hint = didYouMean(name, names);
    throw InputError("--kij " + name + ": unknown K format" +
                     (hint.empty() ? "" : " (did you mean " + hint + "?)") + "; expected one of " + list);
}

std::uint64_t EncodedChunk::bytes(std::uint32_t storage) const {
    return (count * shared::rsimKBits(storage) + 7) / 8 + table.size() * sizeof(float);
}

std::uint32_t chunkRows(std::uint32_t n, KFormat format, std::uint64_t chunkBytes) {
    const std::uint64_t rowBytes =
        std::max<std::uint64_t>(1, std::uint64_t(n) * shared::rsimKBits(kFormatInfo(format).storage) / 8);
    const std::uint64_t maxRows = ((std::uint64_t(1) << 32) - 64) / std::max<std::uint32_t>(1, n);
    return std::uint32_t(std::clamp<std::uint64_t>(chunkBytes / rowBytes, 1, std::min<std::uint64_t>(n, maxRows)));
}

std::uint64_t kBytes(std::uint32_t n, KFormat format, std::uint32_t rowsPerChunk) {
    const std::uint32_t storage = kFormatInfo(format).storage;
    const std::uint64_t chunks = (n + rowsPerChunk - 1) / std::max<std::uint32_t>(1, rowsPerChunk);
    return (std::uint64_t(n) * n * shared::rsimKBits(storage) + 7) / 8 +
           chunks * shared::rsimKTableSize(storage) * sizeof(float);
}

void packElement(std::vector<std::uint32_t>& words, std::uint32_t storage, std::uint64_t e,
                 std::uint32_t bits) {
    const std::uint32_t perWord = 32u / shared::rsimKBits(storage);
    const std::uint32_t shift = std::uint32_t(e % perWord) * shared::rsimKBits(storage);
    words[e / perWord] |= bits << shift;
}

namespace {

// ln K spaced evenly over the chunk's non-zero range onto codes 1..L-1 (paper §4.1).
void encodeLog(const float* v, std::uint64_t count, std::uint32_t storage, EncodedChunk& out) {
    const std::uint32_t L = shared::rsimKTableSize(storage);
    double lo = INFINITY, hi = -INFINITY;
    for (std::uint64_t e = 0; e < count; ++e)
        if (v[e] > 0.0f) {
            const double l = std::log(double(v[e]));
            lo = std::min(lo, l);
            hi = std::max(hi, l);
        }
    out.table.assign(L, 0.0f);
    if (!(lo <= hi)) return; // all zero: every code 0
    const double span = hi - lo, steps = double(L - 2);
    for (std::uint32_t c = 1; c < L; ++c)
        out.table[c] = float(std::exp(span > 0.0 ? lo + double(c - 1) * span / steps : lo));
    for (std::uint64_t e = 0; e < count; ++e) {
        if (!(v[e] > 0.0f)) continue;
        const double x = span > 0.0 ? (std::log(double(v[e])) - lo) / span * steps : 0.0;
        packElement(out.words, storage, e, 1u + std::uint32_t(std::lround(std::clamp(x, 0.0, steps))));
    }
}

// "lutrange" (paper §4.1, Listing 1): sort the non-zero values, split the range with the
// largest value span at its middle index until L - 1 ranges exist; each range's entry is the
// mean of its values.
void encodeRange(const float* v, std::uint64_t count, std::uint32_t storage, EncodedChunk& out) {
    const std::uint32_t L = shared::rsimKTableSize(storage);
    std::vector<float> sorted;
    for (std::uint64_t e = 0; e < count; ++e)
        if (v[e] > 0.0f) sorted.push_back(v[e]);
    out.table.assign(L, 0.0f);
    if (sorted.empty()) return;
    std::sort(sorted.begin(), sorted.end());
    struct Range {
        std::size_t begin, end; // [begin, end)
        float span;
        bool operator<(const Range& o) const { return span < o.span; }
    };
    auto make = [&](std::size_t b, std::size_t e) {
        return Range{b, e, e - b > 1 ? sorted[e - 1] - sorted[b] : 0.0f};
    };
    std::priority_queue<Range> queue;
    queue.push(make(0, sorted.size()));
    std::vector<Range> done;
    while (!queue.empty() && queue.size() + done.size() < L - 1) {
        Range r = queue.top();
        queue.pop();
        if (r.span <= 0.0f) { // cannot be refined: keep it
            done.push_back(r);
            continue;
        }
        const std::size_t mid = (r.begin + r.end) / 2;
        queue.push(make(r.begin, mid));
        queue.push(make(mid, r.end));
    }
    while (!queue.empty()) {
        done.push_back(queue.top());
        queue.pop();
    }
    std::sort(done.begin(), done.end(), [](const Range& a, const Range& b) { return a.begin < b.begin; });
    std::vector<float> upper(done.size());
    for (std::size_t r = 0; r < done.size(); ++r) {
        double sum = 0.0;
        for (std::size_t k = done[r].begin; k < done[r].end; ++k) sum += double(sorted[k]);
        out.table[r + 1] = float(sum / double(done[r].end - done[r].begin));
        upper[r] = sorted[done[r].end - 1];
    }
    for (std::uint64_t e = 0; e < count; ++e) {
        if (!(v[e] > 0.0f)) continue;
        const std::size_t r = std::size_t(std::lower_bound(upper.begin(), upper.end(), v[e]) - upper.begin());
        packElement(out.words, storage, e, std::uint32_t(std::min(r, upper.size() - 1) + 1));
    }
}

} // namespace

EncodedChunk encodeChunk(const float* v, std::uint64_t count, KFormat format) {
    const KFormatInfo& info = kFormatInfo(format);
    const std::uint32_t storage = info.storage;
    EncodedChunk out;
    out.count = count;
    const std::uint32_t perWord = 32u / shared::rsimKBits(storage);
    out.words.assign((count + perWord - 1) / perWord, 0u);
    if (storage == shared::RSIM_K_FP32) {
        for (std::uint64_t e = 0; e < count; ++e) out.words[e] = glm::floatBitsToUint(v[e]);
    } else if (storage == shared::RSIM_K_FP16) {
        for (std::uint64_t e = 0; e < count; ++e)
            packElement(out.words, storage, e, glm::packHalf2x16(glm::vec2(v[e], 0.0f)) & 0xffffu);
    } else if (info.logTable) {
        encodeLog(v, count, storage, out);
    } else {
        encodeRange(v, count, storage, out);
    }
    for (std::uint64_t e = 0; e < count; ++e) {
        const double err = double(decodeElement(out, storage, e)) - double(v[e]);
        out.sumSquaredError += err * err;
        out.maxAbsError = std::max(out.maxAbsError, std::abs(err));
    }
    return out;
}

std::vector<FormatError> formatErrors(const std::vector<std::vector<float>>& chunks, std::uint64_t elements) {
    std::vector<FormatError> out;
    for (const auto& info : kFormats()) {
        std::vector<double> sq(chunks.size()), mx(chunks.size());
        parallelFor(chunks.size(), 1, [&](std::size_t begin, std::size_t end, unsigned) {
            for (std::size_t c = begin; c < end; ++c) {
                const EncodedChunk e = encodeChunk(chunks[c].data(), chunks[c].size(), info.format);
                sq[c] = e.sumSquaredError;
                mx[c] = e.maxAbsError;
            }
        });
        FormatError f{info.format, 0.0, 0.0};
        double total = 0.0;
        for (std::size_t c = 0; c < chunks.size(); ++c) {
            total += sq[c];
            f.maxAbs = std::max(f.maxAbs, mx[c]);
        }
        f.rms = std::sqrt(total / double(std::max<std::uint64_t>(1, elements)));
        out.push_back(f);
    }
    return out;
}

} // namespace rsim
