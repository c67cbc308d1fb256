// SPDX-License-Identifier: MIT
#include "compress/host_k.h"

#include <algorithm>
#include <cmath>

#include "util/error.h"
#include "util/parallel.h"

namespace rsim {
namespace {
std::uint32_t perWord(KFormat f) { return 32u / shared::rsimKBits(kFormatInfo(f).storage); }
} // namespace

HostKMatrix::HostKMatrix(std::uint32_t n, KFormat format, std::uint32_t rowsPerChunk)
    : n_(n), rowsPerChunk_(std::max<std::uint32_t>(1, rowsPerChunk)), format_(format) {
    if (kFormatInfo(format).storage > shared::RSIM_K_FP16)
        throw Error("internal: HostKMatrix is written as fp32 or fp16 and compressed afterwards");
    const std::uint64_t wordsPerRow = (n + perWord(format) - 1) / perWord(format);
    rowStride_ = wordsPerRow * perWord(format);
    for (std::uint32_t first = 0; first < n; first += rowsPerChunk_) {
        const std::uint32_t rows = std::min(rowsPerChunk_, n - first);
        EncodedChunk c;
        c.count = std::uint64_t(rows) * rowStride_;
        c.words.assign(std::uint64_t(rows) * wordsPerRow, 0u);
        chunks_.push_back(std::move(c));
    }
}

HostKMatrix HostKMatrix::fromDense(std::uint32_t n, const std::vector<float>& values) {
    HostKMatrix K(n, KFormat::Fp32, n);
    for (std::uint32_t i = 0; i < n; ++i)
        for (std::uint32_t j = 0; j < n; ++j) K.store(i, j, values[std::size_t(i) * n + j]);
    return K;
}

double HostKMatrix::store(std::uint32_t i, std::uint32_t j, float value) {
    EncodedChunk& c = chunks_[i / rowsPerChunk_];
    const std::uint64_t e = std::uint64_t(i % rowsPerChunk_) * rowStride_ + j;
    if (format_ == KFormat::Fp32) {
        c.words[e] = glm::floatBitsToUint(value);
        return 0.0;
    }
    const std::uint32_t half = glm::packHalf2x16(glm::vec2(value, 0.0f)) & 0xffffu;
    std::uint32_t& word = c.words[e / 2];
    word = (word & ~(0xffffu << (16 * (e & 1)))) | (half << (16 * (e & 1)));
    const double err = double(glm::unpackHalf2x16(half).x) - double(value);
    return err * err;
}

float HostKMatrix::get(std::uint32_t i, std::uint32_t j) const {
    const std::uint64_t e = std::uint64_t(i % rowsPerChunk_) * rowStride_ + j;
    return decodeElement(chunks_[i / rowsPerChunk_], kFormatInfo(format_).storage, e);
}

void HostKMatrix::decodeRow(std::uint32_t i, float* out) const {
    const EncodedChunk& c = chunks_[i / rowsPerChunk_];
    const std::uint32_t storage = kFormatInfo(format_).storage;
    const std::uint64_t base = std::uint64_t(i % rowsPerChunk_) * rowStride_;
    if (storage == shared::RSIM_K_FP32) {
        std::copy_n(reinterpret_cast<const float*>(&c.words[base]), n_, out);
        return;
    }
    for (std::uint32_t j = 0; j < n_; ++j) out[j] = decodeElement(c, storage, base + j);
}

HostKMatrix::Errors HostKMatrix::compress(KFormat format) {
    if (format == format_) return {};
    if (format_ != KFormat::Fp32) throw Error("internal: K is compressed from fp32 only");
    std::vector<Errors> errors(chunks_.size());
    auto encode = [&](std::size_t c) {
        EncodedChunk& chunk = chunks_[c];
        const auto* values = reinterpret_cast<const float*>(chunk.words.data());
        EncodedChunk encoded = encodeChunk(values, chunk.count, format);
        errors[c] = {encoded.sumSquaredError, encoded.maxAbsError};
        chunk = std::move(encoded);
    };
    // The log mapping and fp16 are parallel over a chunk's elements; lutrange sorts each chunk,
    // so its chunks run in parallel instead.
    if (kFormatInfo(format).logTable || kFormatInfo(format).storage == shared::RSIM_K_FP16) {
        for (std::size_t c = 0; c < chunks_.size(); ++c) encode(c);
    } else {
        parallelFor(chunks_.size(), 1, [&](std::size_t begin, std::size_t end, unsigned) {
            for (std::size_t c = begin; c < end; ++c) encode(c);
        });
    }
    // Element indices (rowStride_) do not change: only the packing does.
    format_ = format;
    Errors total;
    for (const Errors& e : errors) {
        total.sumSquared += e.sumSquared;
        total.maxAbs = std::max(total.maxAbs, e.maxAbs);
    }
    return total;
}

std::vector<float> HostKMatrix::decodeAll() const {
    std::vector<float> out(std::size_t(n_) * n_);
    parallelFor(n_, 64, [&](std::size_t begin, std::size_t end, unsigned) {
        for (std::size_t i = begin; i < end; ++i) decodeRow(std::uint32_t(i), &out[i * n_]);
    });
    return out;
}

} // namespace rsim
