// SPDX-License-Identifier: MIT
// K where it lives (visibility/vulkan_visibility_chunked.h): each device casts the full rows of
// its own chunks, and its host thread encodes, sums and places each chunk as it arrives. With
// the K cache's chunks file (k/k_journal.h) every chunk cast is kept on disk as well, and a chunk
// the file already holds is read from it and placed instead of cast.
#include <algorithm>
#include <memory>
#include <optional>

#include "k/k_diagnostics.h"
#include "k/k_journal.h"
#include "k/k_segments.h"
#include "util/progress.h"
#include "util/timer.h"
#include "visibility/vulkan_chunk_caster.h"
#include "visibility/vulkan_visibility_chunked.h"
#include "vulkan/device_group.h"

namespace rsim {
namespace {

// The chunks of device `d` that the journal does not hold: those it casts.
std::vector<std::uint32_t> chunksToCast(const KPlan& plan, std::uint32_t d, const KJournal* journal) {
    std::vector<std::uint32_t> out;
    for (std::uint32_t c : plan.chunksOf(d))
        if (!journal || !journal->holds(c)) out.push_back(c);
    return out;
}

// One device's chunks, in its order: each cast (or read from the journal), encoded, its rows
// summed, placed on the device (or in pinned host memory when it streams); a chunk cast is then
// appended to the journal.
class DeviceChunks {
public:
    // The host thread's time: waiting for the device, encoding, row sums, placing, the journal.
    struct Steps {
        double wait = 0.0, encode = 0.0, rowSums = 0.0, place = 0.0, journal = 0.0;
    };

    DeviceChunks(const VisibilityDevice& device, const PreparedScene& prepared, const KSettings& settings,
                 const KPlan& plan, std::uint32_t d, KJournal* journal)
        : device_(device), prepared_(prepared), plan_(plan), d_(d), journal_(journal),
          caster_(device, prepared, settings, plan, chunksToCast(plan, d, journal), true) {}

    // Every chunk of the device; `rowSum` gets its rows' sums (no other device writes them).
    void run(Progress& progress, std::vector<double>& rowSum) {
        const KChunking& ch = plan_.chunking;
        const std::vector<std::uint32_t> mine = plan_.chunksOf(d_);
        K.chunking = ch;
        K.chunkIds = mine;
        K.streamed = plan_.streamed[d_];
        K.streamGroup = plan_.streamGroup[d_];
        K.layout = plan_.segments ? KLayout::Segments : KLayout::Dense;
        tables_.assign(std::size_t(ch.chunks()) * shared::rsimKTableSize(ch.storage()), 0.0f);
        std::vector<float> values(caster_.size() ? ch.elements(0) : 0); // chunk 0 is the largest
        if (!K.streamed && !mine.empty()) uploader_.emplace(*device_.device, ch.chunkBytes(0));
        std::size_t k = 0; // the caster's next chunk
        if (caster_.size() > 0) caster_.submit(0);
        for (std::size_t m = 0; m < mine.size(); ++m) {
            const std::uint32_t c = mine[m], r0 = ch.rowBegin(c);
            Stopwatch sw;
            KJournalChunk chunk;
            const bool cast = k < caster_.size() && caster_.chunk(k) == c;
            if (cast) {
                // The device casts the caster's next chunk while this thread handles this one.
                if (k + 1 < caster_.size()) caster_.submit(k + 1);
                progress.add(caster_.collect(k++, values.data()));
                chunk.counts = caster_.lastChunkCounts();
                steps.wait += sw.lap();
                chunk.dense = encodeChunk(values.data(), ch.elements(c), ch.format);
                steps.encode += sw.lap();
                chunk.clamped = addChunkRowSums(ch, c, chunk.dense, prepared_.area, rowSum);
                chunk.rowSums.assign(rowSum.begin() + r0, rowSum.begin() + ch.rowEnd(c));
                steps.rowSums += sw.lap();
                if (plan_.segments) chunk.segments = toSegments(chunk.dense, ch.rows(c), ch.n, ch.storage());
            } else {
                chunk = journal_->read(c);
                std::copy(chunk.rowSums.begin(), chunk.rowSums.end(), rowSum.begin() + r0);
                progress.add(std::uint64_t(ch.rows(c)) * (ch.n - 1));
                ++fromJournal;
                steps.journal += sw.lap();
            }
            clamped += chunk.clamped;
            counts.addCounts(chunk.counts);
            place(c, chunk, m + 1, mine.size());
            steps.place += sw.lap();
            if (cast && journal_) journal_->append(c, chunk);
            steps.journal += sw.lap();
        }
        if (uploader_) uploader_->finish();
        if (!tables_.empty()) {
            K.tables = vk::makeStorage(*device_.device, tables_, "K tables");
            K.hostTables = std::move(tables_);
        }
    }

    DeviceK K;
    Steps steps;
    KErrors errors;
    std::uint64_t clamped = 0;
    VisibilityStats counts; // of every chunk, cast or read
    std::uint32_t fromJournal = 0;

private:
    // Chunk c on the device, as segments made here (the device never holds its dense chunks)
    // or dense; its table among the tables. `placed` of `total` chunks so far.
    void place(std::uint32_t c, const KJournalChunk& chunk, std::size_t placed, std::size_t total) {
        const KChunking& ch = plan_.chunking;
        vk::Device& device = *device_.device;
        const std::vector<float>* table = nullptr;
        auto put = [&](const std::vector<std::uint32_t>& words) {
            K.buffers.push_back(uploader_ ? uploader_->upload(words, c) : placeChunk(device, words, c, true));
        };
        if (plan_.segments) {
            const SegmentChunk& seg = chunk.segments;
            const std::uint64_t head = (seg.tileStart.size() + seg.segments.size()) * 4;
            placedBytes_ += head + seg.words.size() * 4 + seg.table.size() * sizeof(float);
            if (!K.streamed) plan_.checkSegmentsFit(d_, placedBytes_, std::uint32_t(placed), std::uint32_t(total));
            put(segmentBufferWords(seg));
            K.segmentBytes.push_back(head);
            table = &seg.table;
            errors.sumSquared += seg.sumSquaredError;
            errors.maxAbs = std::max(errors.maxAbs, seg.maxAbsError);
        } else {
            put(chunk.dense.words);
            table = &chunk.dense.table;
            errors.sumSquared += chunk.dense.sumSquaredError;
            errors.maxAbs = std::max(errors.maxAbs, chunk.dense.maxAbsError);
        }
        const std::size_t L = shared::rsimKTableSize(ch.storage());
        std::copy_n(table->begin(), std::min(L, table->size()), tables_.begin() + std::ptrdiff_t(c * L));
    }

    const VisibilityDevice& device_;
    const PreparedScene& prepared_;
    const KPlan& plan_;
    std::uint32_t d_;
    KJournal* journal_;
    ChunkCaster caster_;
    std::optional<ChunkUploader> uploader_;
    std::vector<float> tables_;
    std::uint64_t placedBytes_ = 0; // as segments, with the tables
};

} // namespace

KWhereItLives computeKWhereItLives(const std::vector<VisibilityDevice>& devices, const PreparedScene& prepared,
                                   const KSettings& settings, const KPlan& plan, KJournal* journal) {
    const KChunking& ch = plan.chunking;
    const std::size_t D = devices.size();
    if (journal && !journal->open(plan.segments ? KLayout::Segments : KLayout::Dense)) journal = nullptr;
    std::vector<std::unique_ptr<DeviceChunks>> parts;
    for (std::uint32_t d = 0; d < D; ++d)
        parts.push_back(std::make_unique<DeviceChunks>(devices[d], prepared, settings, plan, d, journal));
    std::vector<double> rowSum(ch.n, 0.0); // each row is written by its chunk's device only
    std::vector<double> busySeconds(D, 0.0);
    KWhereItLives out;
    {
        Progress progress("visibility", std::uint64_t(ch.n) * (ch.n - 1), "elements");
        Stopwatch busy;
        vk::forEachDevice(D, [&](std::size_t d) {
            parts[d]->run(progress, rowSum);
            busySeconds[d] = busy.seconds();
        });
        progress.finish();
    }
    out.raySeconds = *std::max_element(busySeconds.begin(), busySeconds.end());
    std::uint64_t clamped = 0;
    for (const auto& p : parts) {
        out.waitSeconds = std::max(out.waitSeconds, p->steps.wait);
        out.encodeSeconds = std::max(out.encodeSeconds, p->steps.encode);
        out.rowSumSeconds = std::max(out.rowSumSeconds, p->steps.rowSums);
        out.placeSeconds = std::max(out.placeSeconds, p->steps.place);
        out.journalSeconds = std::max(out.journalSeconds, p->steps.journal);
        out.stats.addCounts(p->counts);
        out.errors.sumSquared += p->errors.sumSquared;
        out.errors.maxAbs = std::max(out.errors.maxAbs, p->errors.maxAbs);
        out.chunksFromJournal += p->fromJournal;
        clamped += p->clamped;
        out.parts.push_back(std::move(p->K));
    }
    out.journalComplete = journal && journal->chunksHeld() == ch.chunks();
    setEnergy(out.stats, summariseRowSums(rowSum, clamped));
    return out;
}

} // namespace rsim
