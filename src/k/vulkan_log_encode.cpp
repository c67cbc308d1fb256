// SPDX-License-Identifier: MIT
// K encoded in a logarithmic LUT format on its device (k/vulkan_log_encode.h): the encoded
// chunks allocated ahead or group by group, the two passes, and the release of the fp32 chunks.
#include "k/vulkan_log_encode.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <memory>
#include <thread>

#include <spdlog/spdlog.h>

#include "util/error.h"
#include "util/timer.h"
#include "vulkan/pass.h"
#include "vulkan/shaders.h"

namespace rsim {

vk::PipelineRecipe logEncodeRecipe(KFormat format) {
    return vk::passRecipe<shared::KEncodePush>(vk::shaders::kEncode(),
                                               vk::specConstants({{shared::RSIM_SPEC_K_FORMAT, kFormatInfo(format).storage}}),
                                               "K encode (" + std::string(kFormatInfo(format).name) + ")");
}

namespace {

// 32-bit words of held chunk x of K encoded in `storage`.
std::uint64_t encodedWords(const DeviceK& K, std::uint32_t x, std::uint32_t storage) {
    const std::uint32_t perWord = 32u / shared::rsimKBits(storage);
    return (K.chunking.elements(K.chunkIds[x]) + perWord - 1) / perWord;
}

vk::Buffer encodedChunk(vk::Device& device, const DeviceK& K, std::uint32_t x, KFormat format) {
    return vk::Buffer(device, encodedWords(K, x, kFormatInfo(format).storage) * 4, vk::kStorageUsage,
                      vk::MemoryKind::Device,
                      "K rows " + std::to_string(K.chunking.rowBegin(K.chunkIds[x])) + " (" + kFormatInfo(format).name +
                          ")");
}

// Whether the device has room for K's encoded chunks twice over beside what it holds.
bool roomTwiceOver(vk::Device& device, const DeviceK& K, std::uint32_t storage) {
    std::uint64_t bytes = 0;
    for (std::uint32_t x = 0; x < K.chunkIds.size(); ++x) bytes += encodedWords(K, x, storage) * 4;
    return device.deviceLocalBudget() >= 2 * bytes;
}

// Whether K's encoded chunks are allocated ahead of the encoding (allocateEncodedK).
bool encodedAhead(vk::Device& device, const DeviceK& K, KFormat format) {
    return format != K.chunking.format && kFormatInfo(format).logTable && device.useCap() == 0 &&
           roomTwiceOver(device, K, kFormatInfo(format).storage);
}

} // namespace

std::vector<vk::Buffer> allocateEncodedK(vk::Device& device, const DeviceK& K, KFormat format) {
    std::vector<vk::Buffer> out;
    if (!encodedAhead(device, K, format)) return out;
    for (std::uint32_t x = 0; x < K.chunkIds.size(); ++x) out.push_back(encodedChunk(device, K, x, format));
    return out;
}

bool EncodedAhead::allocateNext(vk::Device& device, const DeviceK& K) {
    if (allowed_ < 0) allowed_ = encodedAhead(device, K, format_) ? 1 : 0;
    if (allowed_ == 0 || chunks_.size() >= K.chunkIds.size()) return false;
    chunks_.push_back(encodedChunk(device, K, std::uint32_t(chunks_.size()), format_));
    return true;
}

std::vector<vk::Buffer> EncodedAhead::take(vk::Device& device, const DeviceK& K) {
    if (chunks_.empty()) return {};
    while (allocateNext(device, K)) {
    }
    return std::move(chunks_);
}

namespace {

// How long pass 1's steps took, for the log.
struct GroupTimes {
    double allocating = 0.0, encoding = 0.0, releasing = 0.0;
    std::uint32_t groups = 0;
};

// encodeLogKVulkan's state and steps, in the order it takes them: pass 0 finds each held chunk's
// range of values, the host makes the tables, pass 1 encodes the chunks a group at a time and the
// fp32 chunks are released; then the error sums are read back.
class LogKEncoding {
public:
    LogKEncoding(vk::Device& device, DeviceK& K, KFormat format)
        : device_(device), K_(K), format_(format), storage_(kFormatInfo(format).storage),
          L_(shared::rsimKTableSize(storage_)), chunks_(K.chunking.chunks()),
          held_(std::uint32_t(K.chunkIds.size())), pass_(device, logEncodeRecipe(format)) {}

    std::uint32_t held() const { return held_; }

    // Zero tables and `format` for a K without held chunks.
    void zeroTables() {
        K_.tables = vk::makeStorage(device_, std::vector<float>(std::size_t(chunks_) * L_, 0.0f), "K tables");
        K_.hostTables.assign(std::size_t(chunks_) * L_, 0.0f);
        K_.chunking.format = format_;
    }

    // Per held chunk: its elements, words and the offset of its workgroups' error sums; the
    // device's buffers of ranges and errors.
    void allocateStats() {
        count_.resize(held_);
        words_.resize(held_);
        groupBase_.assign(held_ + 1, 0);
        for (std::uint32_t x = 0; x < held_; ++x) {
            count_[x] = K_.chunking.elements(K_.chunkIds[x]);
            words_[x] = encodedWords(K_, x, storage_);
            groupBase_[x + 1] = groupBase_[x] + (words_[x] + wg_ - 1) / wg_;
        }
        initial_.assign(std::size_t(held_) * 4, 0u);
        for (std::uint32_t x = 0; x < held_; ++x)
            initial_[std::size_t(x) * 4] = 0x7f800000u; // min starts at +inf
        stats_ = vk::makeStorage(device_, initial_, "K encode stats");
        partials_ = vk::Buffer(device_, std::max<std::uint64_t>(4, groupBase_[held_] * 4), vk::kStorageUsage,
                               vk::MemoryKind::Device, "K encode error sums");
    }

    // Pass 0, then K's tables and the codes' boundaries from each chunk's range.
    void makeTables() {
        // Pass 0: every chunk's range, in one submission.
        device_.submitAndWait([&](VkCommandBuffer cmd) {
            pass_.bind(cmd);
            for (std::uint32_t x = 0; x < held_; ++x)
                record(cmd, x, shared::KEncodePush{});
        });
        const std::vector<std::uint32_t> ranges =
            vk::download<std::uint32_t>(device_, stats_, initial_.size());

        // Tables and boundaries on the host (L entries each per chunk; zero for chunks not held).
        std::vector<float> tables(std::size_t(chunks_) * L_), bounds(std::size_t(chunks_) * L_);
        for (std::uint32_t x = 0; x < held_; ++x) {
            const std::uint32_t c = K_.chunkIds[x];
            float lo, hi;
            std::memcpy(&lo, &ranges[std::size_t(x) * 4], 4);
            std::memcpy(&hi, &ranges[std::size_t(x) * 4 + 1], 4);
            const LogTable t = logTable(lo, hi, storage_);
            std::copy(t.table.begin(), t.table.end(), tables.begin() + std::ptrdiff_t(c) * L_);
            std::copy(t.bounds.begin(), t.bounds.end(), bounds.begin() + std::ptrdiff_t(c) * L_);
        }
        K_.tables = vk::makeStorage(device_, tables, "K tables");
        K_.hostTables = tables;
        boundsBuffer_ = vk::makeStorage(device_, bounds, "K code boundaries");
    }

    // Pass 1: in groups of chunks of at most groupBytes of fp32, one submission each: the
    // group's encoded buffers are allocated, its chunks encoded, then its fp32 chunks released.
    // The fp32 chunks are freed on another thread where the device has room for them beside the
    // encoded K twice over: freeing them takes longer than allocating the encoded chunks and
    // encoding them (industry's 167 chunks: 0.21 s against 0.09 s and 0.015 s; docs/benchmarks.md,
    // "NVIDIA driver costs"). Elsewhere each group's go as soon as it is encoded, so at most a
    // quarter of groupBytes (lut8) exists beside fp32 K. The room is the driver's budget, not
    // --max-device-mb: under that cap the device holds fp32 and encoded K together for a moment
    // (a quarter more than fp32 K for lut8) while the fp32 chunks go.
    void encodeInGroups(std::uint64_t groupBytes, std::vector<vk::Buffer> ahead) {
        if (!ahead.empty() && ahead.size() != held_)
            throw Error("internal: K's encoded chunks allocated for other chunks");
        const bool releaseLater = !ahead.empty() || roomTwiceOver(device_, K_, storage_);
        auto retired = std::make_shared<std::vector<vk::Buffer>>();
        Stopwatch sw;
        GroupTimes times;
        for (std::uint32_t x0 = 0; x0 < held_;) {
            std::uint32_t x1 = x0;
            std::uint64_t bytes = 0;
            do bytes += K_.buffers[x1++].size();
            while (x1 < held_ && bytes + K_.buffers[x1].size() <= groupBytes);
            std::vector<vk::Buffer> encoded;
            for (std::uint32_t x = x0; x < x1; ++x)
                encoded.push_back(ahead.empty() ? encodedChunk(device_, K_, x, format_) : std::move(ahead[x]));
            times.allocating += sw.lap();
            encodeGroup(x0, x1, encoded);
            times.encoding += sw.lap();
            for (std::uint32_t x = x0; x < x1; ++x) {
                if (releaseLater) retired->push_back(std::move(K_.buffers[x]));
                K_.buffers[x] = std::move(encoded[x - x0]); // the fp32 chunk goes, unless retired
            }
            times.releasing += sw.lap();
            ++times.groups;
            x0 = x1;
        }
        releaseRetired(retired, releaseLater, times);
    }

    // The squared errors' sum and the largest error, over every held chunk.
    KErrors errors() const {
        KErrors errors;
        for (float s : vk::download<float>(device_, partials_, groupBase_[held_]))
            errors.sumSquared += double(s);
        const std::vector<std::uint32_t> after =
            vk::download<std::uint32_t>(device_, stats_, initial_.size());
        for (std::uint32_t x = 0; x < held_; ++x) {
            float e;
            std::memcpy(&e, &after[std::size_t(x) * 4 + 2], 4);
            errors.maxAbs = std::max(errors.maxAbs, double(e));
        }
        return errors;
    }

private:
    void record(VkCommandBuffer cmd, std::uint32_t x, shared::KEncodePush push) {
        push.values = K_.buffers[x].address();
        push.stats = stats_.address() + std::uint64_t(x) * 16;
        push.partials = partials_.address() + groupBase_[x] * 4;
        push.count = std::uint32_t(count_[x]);
        pass_.dispatchLinear(cmd, push, words_[x], wg_);
    }

    // Pass 1 over held chunks [x0, x1) into `encoded`, in one submission.
    void encodeGroup(std::uint32_t x0, std::uint32_t x1, const std::vector<vk::Buffer>& encoded) {
        device_.submitAndWait([&](VkCommandBuffer cmd) {
            pass_.bind(cmd);
            for (std::uint32_t x = x0; x < x1; ++x) {
                const std::uint32_t c = K_.chunkIds[x];
                shared::KEncodePush push{};
                push.words = encoded[x - x0].address();
                push.table = K_.tables.address() + std::uint64_t(c) * L_ * 4;
                push.bounds = boundsBuffer_.address() + std::uint64_t(c) * L_ * 4;
                push.pass = 1;
                record(cmd, x, push);
            }
        });
    }

    // The fp32 chunks `retired` by encodeInGroups kept or freed, and the log line of pass 1.
    // fp32 K that is small beside the device's memory (a 16th of what is free; no --max-device-mb,
    // under which the pose groups count what the device holds) is kept until the device's
    // release: freed on another thread it still held the driver's lock against the allocations
    // that follow (kept, the medium room's compression took half as long; a 16th, not a 32nd,
    // keeps industry's half of K on each of two devices, whose release slowed the transport's
    // setup beside it; commits 703b90c, 0adaaee).
    void releaseRetired(const std::shared_ptr<std::vector<vk::Buffer>>& retired, bool releaseLater,
                        const GroupTimes& times) {
        std::uint64_t retiredBytes = 0;
        for (const vk::Buffer& b : *retired) retiredBytes += b.size();
        const bool hold = releaseLater && device_.useCap() == 0 && retiredBytes * 16 <= device_.deviceLocalBudget();
        if (hold)
            device_.holdUntilRelease("fp32 K", retired);
        else if (releaseLater)
            // One chunk at a time, a moment apart: the driver frees under the lock its allocations
            // take, and the near lists' and the transport's buffers, allocated meanwhile, waited for
            // most of the release (those two steps 0.043 -> 0.024 s on the large room, 0.066 ->
            // 0.052 s on industry; commit 753b3ba).
            device_.inBackground([retired] {
                while (!retired->empty()) {
                    retired->pop_back();
                    std::this_thread::sleep_for(std::chrono::microseconds(500));
                }
            });
        spdlog::debug("{}: K encoded in {} group(s) of chunks: allocations {:.3f} s, encoding {:.3f} s, fp32 chunks {}",
                      device_.label(), times.groups, times.allocating, times.encoding,
                      hold           ? "kept until the device's release"
                      : releaseLater ? "released on another thread"
                                     : fmt::format("released in {:.3f} s", times.releasing));
    }

    vk::Device& device_;
    DeviceK& K_;
    const KFormat format_;
    const std::uint32_t storage_, L_;
    // Held chunk x is chunk K.chunkIds[x] (every chunk, or an MPI rank's).
    const std::uint32_t chunks_, held_, wg_ = shared::RSIM_WG_ENCODE;
    vk::Pass<shared::KEncodePush> pass_;
    std::vector<std::uint64_t> count_, words_, groupBase_;
    std::vector<std::uint32_t> initial_;
    vk::Buffer stats_, partials_, boundsBuffer_;
};

} // namespace

KErrors encodeLogKVulkan(vk::Device& device, DeviceK& K, KFormat format, std::uint64_t groupBytes,
                         std::vector<vk::Buffer> ahead) {
    LogKEncoding encoding(device, K, format);
    if (encoding.held() == 0) { // an MPI rank without rows: nothing to encode, no table to fill
        encoding.zeroTables();
        return {};
    }
    encoding.allocateStats();
    encoding.makeTables();
    encoding.encodeInGroups(groupBytes, std::move(ahead));
    K.chunking.format = format;
    return encoding.errors();
}

} // namespace rsim
