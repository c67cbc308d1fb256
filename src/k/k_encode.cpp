// SPDX-License-Identifier: MIT
#include "k/k_encode.h"

#include <algorithm>
#include <cmath>
#include <queue>

#include "util/error.h"
#include "util/parallel.h"

namespace rsim {

std::uint64_t EncodedChunk::bytes(std::uint32_t storage) const {
    return (count * shared::rsimKBits(storage) + 7) / 8 + table.size() * sizeof(float);
}

namespace {

// Writes `code` as element e's 8- or 4-bit field (x86 and every Vulkan host are little-endian,
// so byte e / perByte of the word array is the word's byte (e % 4)). Elements of one byte are
// written by one thread (parallel ranges are split on even boundaries).
inline void putCode(std::uint8_t* bytes, std::uint32_t storage, std::uint64_t e,
                    std::uint32_t code) {
    if (storage == shared::RSIM_K_LUT8) {
        bytes[e] = std::uint8_t(code);
    } else {
        std::uint8_t& b = bytes[e >> 1];
        b = std::uint8_t((e & 1) ? ((b & 0x0f) | (code << 4)) : ((b & 0xf0) | code));
    }
}

// Runs body(begin, end) over [0, count) on all cores, in ranges of an even number of elements.
template <class Body> void forElements(std::uint64_t count, Body&& body) {
    parallelFor(std::size_t((count + 65535) / 65536), 1,
                [&](std::size_t b, std::size_t e, unsigned w) {
                    body(std::uint64_t(b) * 65536,
                         std::min<std::uint64_t>(count, std::uint64_t(e) * 65536), w);
                });
}

// Errors of decoded values against the input: each range sums into a local Errors (no
// shared cache lines in the inner loop) and merges it into its worker's slot once.
struct RangeErrors {
    double squared = 0.0, maxAbs = 0.0;
    void add(float decoded, float value) {
        const double err = double(decoded) - double(value);
        squared += err * err;
        maxAbs = std::max(maxAbs, std::abs(err));
    }
};
struct ErrorAccumulator {
    std::vector<RangeErrors> workers;
    explicit ErrorAccumulator(unsigned n) : workers(n) {}
    void merge(unsigned w, const RangeErrors& r) {
        workers[w].squared += r.squared;
        workers[w].maxAbs = std::max(workers[w].maxAbs, r.maxAbs);
    }
    void into(EncodedChunk& out) const {
        for (const RangeErrors& r : workers) {
            out.sumSquaredError += r.squared;
            out.maxAbsError = std::max(out.maxAbsError, r.maxAbs);
        }
    }
};

// ln K over the chunk's non-zero range, rounded outwards, onto codes 1..L-1 (paper §4.1; finer
// at the top with 8-bit codes: logTable), with the code boundaries of logTable(). A float
// logarithm guesses the code; comparisons with the boundaries then make it exact (the rule the
// GPU encoder applies by binary search).
void encodeLog(const float* v, std::uint64_t count, std::uint32_t storage, EncodedChunk& out) {
    const std::uint32_t L = shared::rsimKTableSize(storage);
    const unsigned workers = threadCount();
    std::vector<float> los(workers, INFINITY), his(workers, 0.0f);
    forElements(count, [&](std::uint64_t b, std::uint64_t e, unsigned w) {
        float lo = los[w], hi = his[w];
        for (std::uint64_t k = b; k < e; ++k)
            if (v[k] > 0.0f) {
                lo = std::min(lo, v[k]);
                hi = std::max(hi, v[k]);
            }
        los[w] = lo;
        his[w] = hi;
    });
    const float vmin = *std::min_element(los.begin(), los.end());
    const float vmax = *std::max_element(his.begin(), his.end());
    LogTable lut = logTable(vmin, vmax, storage);
    out.table = std::move(lut.table);
    if (!(vmin <= vmax)) return; // all zero: every code 0
    const float* bounds = lut.bounds.data();
    const std::uint32_t maxCode = L - 1, fineFrom = lut.fineFrom;
    // The guess inverts each evenly spaced part: [1, fineFrom) from the bottom, [fineFrom, L)
    // from the knee (the same part when fineFrom is 1).
    const float lo = std::log(out.table[1]), knee = std::log(out.table[fineFrom]),
                top = std::log(out.table[L - 1]);
    const float coarse = fineFrom > 1 ? float(fineFrom - 1) / (knee - lo) : 0.0f,
                fine = top > knee ? float(L - 1 - fineFrom) / (top - knee) : 0.0f;
    auto* bytes = reinterpret_cast<std::uint8_t*>(out.words.data());
    ErrorAccumulator errors(workers);
    forElements(count, [&](std::uint64_t b, std::uint64_t e, unsigned w) {
        RangeErrors local;
        for (std::uint64_t k = b; k < e; ++k) {
            const float x = v[k];
            if (!(x > 0.0f)) continue;
            const float lx = std::log(x);
            const float guess =
                lx >= knee ? float(fineFrom) + std::clamp((lx - knee) * fine + 0.5f, 0.0f, float(L - 1 - fineFrom))
                           : 1.0f + std::clamp((lx - lo) * coarse + 0.5f, 0.0f, float(fineFrom - 1));
            std::uint32_t code = std::min(maxCode, std::uint32_t(guess));
            while (code < maxCode && bounds[code - 1] <= x)
                ++code;
            while (code > 1u && x < bounds[code - 2])
                --code;
            putCode(bytes, storage, k, code);
            local.add(out.table[code], x);
        }
        errors.merge(w, local);
    });
    errors.into(out);
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
    std::sort(done.begin(), done.end(),
              [](const Range& a, const Range& b) { return a.begin < b.begin; });
    std::vector<float> upper(done.size());
    for (std::size_t r = 0; r < done.size(); ++r) {
        double sum = 0.0;
        for (std::size_t k = done[r].begin; k < done[r].end; ++k)
            sum += double(sorted[k]);
        out.table[r + 1] = float(sum / double(done[r].end - done[r].begin));
        upper[r] = sorted[done[r].end - 1];
    }
    auto* bytes = reinterpret_cast<std::uint8_t*>(out.words.data());
    ErrorAccumulator errors(threadCount());
    forElements(count, [&](std::uint64_t b, std::uint64_t e, unsigned w) {
        RangeErrors local;
        for (std::uint64_t k = b; k < e; ++k) {
            if (!(v[k] > 0.0f)) continue;
            const std::size_t r =
                std::size_t(std::lower_bound(upper.begin(), upper.end(), v[k]) - upper.begin());
            const std::uint32_t code = std::uint32_t(std::min(r, upper.size() - 1) + 1);
            putCode(bytes, storage, k, code);
            local.add(out.table[code], v[k]);
        }
        errors.merge(w, local);
    });
    errors.into(out);
}

} // namespace

LogTable logTable(float vmin, float vmax, std::uint32_t storage) {
    const std::uint32_t L = shared::rsimKTableSize(storage);
    LogTable t{std::vector<float>(L, 0.0f), std::vector<float>(L, INFINITY)};
    if (!(vmin <= vmax) || !(vmin > 0.0f)) return t;
    // The range, rounded outwards onto grids (kLogTopGrid, kLogSpan): a value that changes a
    // little changes the table only where it crosses a grid line.
    const double hi = std::ceil(std::log(double(vmax)) * kLogTopGrid) / kLogTopGrid;
    const double lo = std::min(std::floor(std::log(double(vmin))), hi - kLogSpan);
    // ln K of codes 1..L-1: with 8-bit codes, codes fineFrom..L-1 from the knee to the top and
    // 1..fineFrom-1 from the bottom up to one coarse step below the knee; else evenly.
    std::vector<double> ln(L, 0.0);
    if (L == 256) {
        const double knee = hi - kLogFineSpan;
        t.fineFrom = L - kLogFineCodes;
        const double fine = kLogFineSpan / double(kLogFineCodes - 1),
                     coarse = (knee - lo) / double(t.fineFrom - 1);
        for (std::uint32_t c = 1; c < t.fineFrom; ++c) ln[c] = lo + double(c - 1) * coarse;
        for (std::uint32_t c = t.fineFrom; c < L; ++c) ln[c] = knee + double(c - t.fineFrom) * fine;
    } else {
        for (std::uint32_t c = 1; c < L; ++c) ln[c] = lo + double(c - 1) * (hi - lo) / double(L - 2);
    }
    for (std::uint32_t c = 1; c < L; ++c) t.table[c] = float(std::exp(ln[c]));
    for (std::uint32_t m = 0; m + 2 < L; ++m) t.bounds[m] = float(std::exp(0.5 * (ln[m + 1] + ln[m + 2])));
    return t;
}

EncodedChunk encodeChunk(const float* v, std::uint64_t count, KFormat format) {
    const KFormatInfo& info = kFormatInfo(format);
    const std::uint32_t storage = info.storage;
    EncodedChunk out;
    out.count = count;
    const std::uint32_t perWord = 32u / shared::rsimKBits(storage);
    out.words.assign((count + perWord - 1) / perWord, 0u);
    if (storage == shared::RSIM_K_FP32) {
        std::copy_n(reinterpret_cast<const std::uint32_t*>(v), count, out.words.data());
    } else if (storage == shared::RSIM_K_FP16) {
        auto* halves = reinterpret_cast<std::uint16_t*>(out.words.data());
        ErrorAccumulator errors(threadCount());
        forElements(count, [&](std::uint64_t b, std::uint64_t e, unsigned w) {
            RangeErrors local;
            for (std::uint64_t k = b; k < e; ++k) {
                const std::uint32_t h = glm::packHalf2x16(glm::vec2(v[k], 0.0f)) & 0xffffu;
                halves[k] = std::uint16_t(h);
                local.add(glm::unpackHalf2x16(h).x, v[k]);
            }
            errors.merge(w, local);
        });
        errors.into(out);
    } else if (info.logTable) {
        encodeLog(v, count, storage, out);
    } else {
        encodeRange(v, count, storage, out);
    }
    return out;
}

std::vector<FormatError> formatErrors(const std::vector<std::span<const float>>& chunks,
                                      std::uint64_t elements) {
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
