// SPDX-License-Identifier: MIT
#include "k/k_layout_choice.h"

#include <vector>

#include <spdlog/spdlog.h>

#include "util/parallel.h"

namespace rsim {

KLayoutSizes layoutSizes(const HostK& K) {
    const KChunking& ch = K.chunking();
    std::vector<KLayoutSizes> perChunk(K.chunkCount());
    parallelFor(K.endHeld() - K.firstHeld(), 1, [&](std::size_t b, std::size_t e, unsigned) {
        for (std::size_t x = b; x < e; ++x) {
            const std::uint32_t c = K.firstHeld() + std::uint32_t(x);
            const SegmentCount n = countSegments(K.chunk(c), ch.rows(c), ch.n, ch.storage());
            const std::uint64_t table = K.chunk(c).table.size() * sizeof(float);
            perChunk[c] = {ch.chunkBytes(c) + table, segmentBytes(ch.rows(c), n) + table, n.segments, n.values};
        }
    });
    KLayoutSizes all;
    for (const KLayoutSizes& s : perChunk) {
        all.denseBytes += s.denseBytes;
        all.segmentBytes += s.segmentBytes;
        all.segments += s.segments;
        all.values += s.values;
    }
    return all;
}

KLayout chooseKLayout(KLayout requested, const HostK& K, const Ranks* ranks) {
    if (requested != KLayout::Auto) return requested;
    const KLayoutSizes own = layoutSizes(K);
    std::vector<std::uint64_t> job{own.denseBytes, own.segmentBytes};
    if (ranks) ranks->sum(job);
    const KLayout layout = double(job[1]) <= kSegmentsShare * double(job[0]) ? KLayout::Segments : KLayout::Dense;
    spdlog::info("K stored as {}: {:.1f} MiB as segments against {:.1f} MiB dense (segments where they take at most "
                 "{:.0f}%; simulation.k_layout)",
                 kLayoutName(layout), double(job[1]) / 1048576.0, double(job[0]) / 1048576.0, 100.0 * kSegmentsShare);
    return layout;
}

void noteKLayout(const HostK& K, KStorageReport& storage) {
    storage.layout = kLayoutName(K.layout());
    if (K.layout() != KLayout::Segments) return;
    storage.bytes = K.storedBytes();
    storage.segments = K.segmentCount();
}

} // namespace rsim
