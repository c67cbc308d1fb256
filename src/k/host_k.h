// SPDX-License-Identifier: MIT
// K in host memory: the chunks of KChunking, each encoded in K's format (with its table for
// the LUT formats), stored dense or, once encoded, as segments (k/k_segments.h). The CPU backend computes K into it; the Vulkan backend assembles K here
// when several devices compute it or it must be streamed, and reads a foreign K from here.
#pragma once
#include <cstdint>
#include <vector>

#include "k/k_chunking.h"
#include "k/k_encode.h"
#include "k/k_segments.h"

namespace rsim {

class HostK {
  public:
    HostK() = default;
    // All zero, fp32, in the chunks of `chunking` (whatever its format: that is reached by
    // compress(), or by encodeChunkAs() of every chunk and then finishEncoding()).
    explicit HostK(KChunking chunking);
    // The same, holding chunks [firstChunk, endChunk) only (an MPI rank's rows, k/row_share.h);
    // the other chunks have no words, and only rows of held chunks may be stored or read.
    HostK(KChunking chunking, std::uint32_t firstChunk, std::uint32_t endChunk);
    // Chunks without words yet, in `chunking`'s format, for copies of K from elsewhere to fill.
    static HostK unfilled(KChunking chunking);
    // An fp32 K from N x N row-major values, in one chunk (tests).
    static HostK fromDense(std::uint32_t n, const std::vector<float>& values);

    const KChunking& chunking() const { return chunking_; }
    std::uint32_t size() const { return chunking_.n; }
    KFormat format() const { return chunking_.format; }
    std::uint32_t chunkCount() const { return chunking_.chunks(); }
    // The chunks it holds: [firstHeld(), endHeld()); all of them unless built for a row block.
    std::uint32_t firstHeld() const { return firstHeld_; }
    std::uint32_t endHeld() const { return endHeld_; }
    bool holdsAll() const { return firstHeld_ == 0 && endHeld_ == chunkCount(); }
    // Dense chunk c (an internal error once K is stored as segments: read those, or every
    // non-zero element through k/k_rows.h's forEachNonzero).
    const EncodedChunk& chunk(std::uint32_t c) const { return chunks_[denseIndex(c)]; }
    EncodedChunk& chunk(std::uint32_t c) { return chunks_[denseIndex(c)]; }
    KLayout layout() const { return layout_; }
    const SegmentChunk& segments(std::uint32_t c) const;
    SegmentChunk& segments(std::uint32_t c);
    // Stores the held chunks (encoded) as segments, or dense again: the same values.
    void toLayout(KLayout layout);
    // Chunks without data yet, stored as segments, for a copy of K to fill (the K cache).
    void setUnfilledSegments();
    // Bytes of the held chunks as they are stored (elements or segments, and tables).
    std::uint64_t storedBytes() const;
    // Segments of the held chunks (0 when dense).
    std::uint64_t segmentCount() const;
    // fp32 values of chunk c while K is still fp32 (before compress).
    float* values(std::uint32_t c);
    const float* values(std::uint32_t c) const;

    // K_ij while K is fp32. Elements of different rows are different words: rows can be stored
    // by different threads at once.
    void store(std::uint32_t i, std::uint32_t j, float value) {
        values(chunking_.chunkOf(i))[chunking_.index(i, j)] = value;
    }
    float get(std::uint32_t i, std::uint32_t j) const {
        const std::uint32_t c = chunking_.chunkOf(i);
        if (layout_ == KLayout::Segments)
            return segmentElement(segmentChunks_[c], chunking_.storage(), i - chunking_.rowBegin(c), j);
        return decodeElement(chunks_[c], chunking_.storage(), chunking_.index(i, j));
    }

    // Encodes chunk c (fp32) in `format`, with its errors against the fp32 values. The
    // logarithmic formats and fp16 use all cores inside the chunk. K reads as fp32 until
    // finishEncoding(format) says that every chunk is encoded.
    void encodeChunkAs(std::uint32_t c, KFormat format);
    void finishEncoding(KFormat format) { chunking_.format = format; }
    // Encodes every chunk in `format` (fp32 before), in parallel over chunks where the format
    // sorts (lutrange), inside chunks otherwise.
    void compress(KFormat format);
    // Summed squared error and largest absolute error of the encoding against the fp32 values.
    double sumSquaredError() const;
    double maxAbsError() const;

    // The decoded K as N x N row-major floats.
    std::vector<float> decodeAll() const;

  private:
    std::uint32_t denseIndex(std::uint32_t c) const;
    KChunking chunking_;
    KLayout layout_ = KLayout::Dense;
    std::vector<EncodedChunk> chunks_;
    std::vector<SegmentChunk> segmentChunks_; // as segments: chunks_ is empty, this holds them
    std::uint32_t firstHeld_ = 0, endHeld_ = 0;
};

} // namespace rsim
