// SPDX-License-Identifier: MIT
#include "k/host_k.h"

#include <algorithm>

#include "util/error.h"
#include "util/parallel.h"

namespace rsim {

HostK::HostK(KChunking chunking) : HostK(chunking, 0, chunking.chunks()) {}

HostK::HostK(KChunking chunking, std::uint32_t firstChunk, std::uint32_t endChunk)
    : chunking_(chunking.as(KFormat::Fp32)), firstHeld_(std::min(firstChunk, chunking.chunks())),
      endHeld_(std::clamp(endChunk, firstHeld_, chunking.chunks())) {
    const std::uint32_t C = chunking_.chunks();
    chunks_.resize(C);
    for (std::uint32_t c = 0; c < C; ++c) chunks_[c].count = chunking_.elements(c);
    // Zeroed in parallel: for a large K this is gigabytes.
    parallelFor(endHeld_ - firstHeld_, 1, [&](std::size_t b, std::size_t e, unsigned) {
        for (std::size_t c = firstHeld_ + b; c < firstHeld_ + e; ++c) chunks_[c].words.assign(chunks_[c].count, 0u);
    });
}

HostK HostK::unfilled(KChunking chunking) {
    HostK K;
    K.chunking_ = chunking;
    K.chunks_.resize(chunking.chunks());
    K.endHeld_ = chunking.chunks();
    for (std::uint32_t c = 0; c < chunking.chunks(); ++c)
        K.chunks_[c].count = chunking.elements(c);
    return K;
}

HostK HostK::fromDense(std::uint32_t n, const std::vector<float>& values) {
    HostK K(KChunking{n, std::max<std::uint32_t>(1, n), KFormat::Fp32});
    for (std::uint32_t i = 0; i < n; ++i)
        for (std::uint32_t j = 0; j < n; ++j)
            K.store(i, j, values[std::size_t(i) * n + j]);
    return K;
}

float* HostK::values(std::uint32_t c) {
    if (chunks_[c].words.size() != chunks_[c].count)
        throw Error("internal: K chunk is no longer fp32");
    return reinterpret_cast<float*>(chunks_[c].words.data());
}

const float* HostK::values(std::uint32_t c) const {
    if (chunks_[c].words.size() != chunks_[c].count)
        throw Error("internal: K chunk is no longer fp32");
    return reinterpret_cast<const float*>(chunks_[c].words.data());
}

void HostK::encodeChunkAs(std::uint32_t c, KFormat format) {
    if (format != KFormat::Fp32) chunks_[c] = encodeChunk(values(c), chunks_[c].count, format);
}

void HostK::compress(KFormat format) {
    // The log mapping and fp16 are parallel over a chunk's elements; lutrange sorts each chunk,
    // so its chunks run in parallel instead.
    if (kFormatInfo(format).logTable || kFormatInfo(format).storage <= shared::RSIM_K_FP16) {
        for (std::uint32_t c = firstHeld_; c < endHeld_; ++c)
            encodeChunkAs(c, format);
    } else {
        parallelFor(endHeld_ - firstHeld_, 1, [&](std::size_t b, std::size_t e, unsigned) {
            for (std::size_t c = firstHeld_ + b; c < firstHeld_ + e; ++c)
                encodeChunkAs(std::uint32_t(c), format);
        });
    }
    finishEncoding(format);
}

double HostK::sumSquaredError() const {
    double s = 0.0;
    for (const auto& c : chunks_)
        s += c.sumSquaredError;
    for (const auto& c : segmentChunks_)
        s += c.sumSquaredError;
    return s;
}

double HostK::maxAbsError() const {
    double m = 0.0;
    for (const auto& c : chunks_)
        m = std::max(m, c.maxAbsError);
    for (const auto& c : segmentChunks_)
        m = std::max(m, c.maxAbsError);
    return m;
}

std::uint32_t HostK::denseIndex(std::uint32_t c) const {
    if (layout_ != KLayout::Dense) throw Error("internal: a dense chunk of K stored as segments");
    return c;
}

const SegmentChunk& HostK::segments(std::uint32_t c) const {
    if (layout_ != KLayout::Segments) throw Error("internal: segments of a dense K");
    return segmentChunks_[c];
}

SegmentChunk& HostK::segments(std::uint32_t c) {
    if (layout_ != KLayout::Segments) throw Error("internal: segments of a dense K");
    return segmentChunks_[c];
}

void HostK::toLayout(KLayout layout) {
    if (layout == layout_) return;
    const std::uint32_t storage = chunking_.storage(), n = chunking_.n;
    if (layout == KLayout::Segments) {
        segmentChunks_.resize(chunks_.size());
        parallelFor(endHeld_ - firstHeld_, 1, [&](std::size_t b, std::size_t e, unsigned) {
            for (std::size_t c = firstHeld_ + b; c < firstHeld_ + e; ++c) {
                segmentChunks_[c] = toSegments(chunks_[c], chunking_.rows(std::uint32_t(c)), n, storage);
                EncodedChunk().words.swap(chunks_[c].words); // the dense words go as soon as they are copied
            }
        });
        std::vector<EncodedChunk>().swap(chunks_);
    } else {
        chunks_.resize(segmentChunks_.size());
        for (std::uint32_t c = 0; c < chunks_.size(); ++c) chunks_[c].count = chunking_.elements(c);
        parallelFor(endHeld_ - firstHeld_, 1, [&](std::size_t b, std::size_t e, unsigned) {
            for (std::size_t c = firstHeld_ + b; c < firstHeld_ + e; ++c) {
                chunks_[c] = toDense(segmentChunks_[c], chunking_.rows(std::uint32_t(c)), n, storage);
                SegmentChunk().words.swap(segmentChunks_[c].words);
            }
        });
        std::vector<SegmentChunk>().swap(segmentChunks_);
    }
    layout_ = layout;
}

void HostK::setUnfilledSegments() {
    segmentChunks_.resize(chunks_.size());
    std::vector<EncodedChunk>().swap(chunks_);
    layout_ = KLayout::Segments;
}

std::uint64_t HostK::segmentCount() const {
    std::uint64_t count = 0;
    for (const SegmentChunk& c : segmentChunks_) count += c.segmentCount();
    return count;
}

std::uint64_t HostK::storedBytes() const {
    std::uint64_t bytes = 0;
    for (std::uint32_t c = firstHeld_; c < endHeld_; ++c)
        bytes += layout_ == KLayout::Segments ? segmentChunks_[c].bytes() : chunks_[c].bytes(chunking_.storage());
    return bytes;
}

std::vector<float> HostK::decodeAll() const {
    if (!holdsAll()) throw Error("internal: decodeAll() of a K that holds some rows only");
    const std::uint32_t n = chunking_.n;
    std::vector<float> out(std::size_t(n) * n);
    parallelFor(chunkCount(), 1, [&](std::size_t b, std::size_t e, unsigned) {
        for (std::size_t c = b; c < e; ++c) {
            const std::uint32_t r0 = chunking_.rowBegin(std::uint32_t(c)),
                                rows = chunking_.rows(std::uint32_t(c));
            for (std::uint32_t j = 0; j < n; ++j)
                for (std::uint32_t r = 0; r < rows; ++r)
                    out[std::size_t(r0 + r) * n + j] = get(r0 + r, j);
        }
    });
    return out;
}

} // namespace rsim
