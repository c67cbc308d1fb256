// SPDX-License-Identifier: MIT
// K in host memory, in any format, in chunks of rows (the CPU backend's K). Row-major within a
// chunk, each row padded to whole 32-bit words so that rows owned by different threads never
// share a word.
#pragma once
#include <cstdint>
#include <vector>

#include "compress/kformat.h"

namespace rsim {

class HostKMatrix {
public:
    HostKMatrix() = default;
    // Allocates K (all zero) with `rowsPerChunk` rows per chunk. Only fp32 and fp16 can be
    // written element by element; LUT formats come from compress().
    HostKMatrix(std::uint32_t n, KFormat format, std::uint32_t rowsPerChunk);

    // An fp32 K (one chunk) from N x N row-major values.
    static HostKMatrix fromDense(std::uint32_t n, const std::vector<float>& values);

    std::uint32_t size() const { return n_; }
    KFormat format() const { return format_; }
    std::uint32_t rowsPerChunk() const { return rowsPerChunk_; }
    std::uint32_t chunkCount() const { return std::uint32_t(chunks_.size()); }
    const EncodedChunk& chunk(std::uint32_t c) const { return chunks_[c]; }

    // Stores K_ij (fp32 or fp16, converted in-band). Returns the squared conversion error.
    // Safe from several threads as long as each row has one writer.
    double store(std::uint32_t i, std::uint32_t j, float value);
    float get(std::uint32_t i, std::uint32_t j) const;
    // Decodes row i into out[0..n).
    void decodeRow(std::uint32_t i, float* out) const;

    // Re-encodes every chunk in `format` (from fp32), in parallel over chunks. Returns the
    // summed squared error against the fp32 values and the largest absolute error.
    struct Errors {
        double sumSquared = 0.0;
        double maxAbs = 0.0;
    };
    Errors compress(KFormat format);

    // k_bytes of summary.json (kBytes in kformat.h).
    std::uint64_t bytes() const { return kBytes(n_, format_, rowsPerChunk_); }
    // The decoded K as N x N row-major floats.
    std::vector<float> decodeAll() const;

private:
    std::uint32_t n_ = 0, rowsPerChunk_ = 1;
    std::uint64_t rowStride_ = 0; // elements per row (n, padded to whole words when allocated)
    KFormat format_ = KFormat::Fp32;
    std::vector<EncodedChunk> chunks_;
};

} // namespace rsim
