// SPDX-License-Identifier: MIT
// images.exr: the float images of images.h5 as one OpenEXR file (MODEL.md §8), which
// compositors and renderers open: one FLOAT channel per image, row 0 at the top, and `Z` (the
// estimated z-depth) under the name compositing tools look for.
#include <algorithm>
#include <cmath>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <OpenEXR/ImfChannelList.h>
#include <OpenEXR/ImfFrameBuffer.h>
#include <OpenEXR/ImfHeader.h>
#include <OpenEXR/ImfOutputFile.h>
#include <OpenEXR/ImfFloatVectorAttribute.h>
#include <OpenEXR/ImfMatrixAttribute.h>
#include <OpenEXR/ImfStringAttribute.h>
#include <OpenEXR/ImfThreading.h>

#include "output/output_util.h"
#include "output/pixel_camera.h"
#include "output/results_writer.h"
#include "util/error.h"

namespace rsim {
namespace {

// The line blocks OpenEXR compresses at once with `threads` (none without): its global pool,
// made once, of up to eight threads (a 320 x 240 image is 15 blocks of 16 lines).
int compressionThreads(bool threads) {
    if (!threads) return 0;
    static const int pool = [] {
        const int n = int(std::clamp(std::thread::hardware_concurrency(), 1u, 8u));
        Imf::setGlobalThreadCount(n);
        return n;
    }();
    return pool;
}

} // namespace

void writeImagesExr(const std::filesystem::path& file, const ResultsView& view, bool threads) {
    const SensorImage& img = view.result.image;
    const SimConfig& c = view.config;
    const std::size_t W = img.width, H = img.height, pixels = W * H;
    output::requireSize(img.depth.size(), pixels, "depth");
    output::requireSize(img.trueDepth.size(), pixels, "trueDepth");
    output::requireSize(img.directDepth.size(), pixels, "directDepth");
    std::vector<std::pair<std::string, std::vector<float>>> channels;
    std::vector<float> error(pixels);
    for (std::size_t p = 0; p < pixels; ++p) error[p] = img.depth[p] - img.trueDepth[p];
    std::vector<float> z = output::alongAxis(img.depth, c), zTrue = output::alongAxis(img.trueDepth, c);
    channels.emplace_back("range_m", img.depth);
    channels.emplace_back("range_true_m", img.trueDepth);
    channels.emplace_back("range_error_m", error);
    channels.emplace_back("range_direct_m", img.directDepth);
    channels.emplace_back("z_depth_true_m", zTrue);
    channels.emplace_back("amplitude", img.amplitude);
    if (!img.noisyDepth.empty()) channels.emplace_back("noise_range_m", img.noisyDepth);
    channels.emplace_back("Z", z);
    try {
        Imf::Header header{int(W), int(H)};
        header.compression() = Imf::ZIP_COMPRESSION;
        // zlib's fastest level: a batch writes one file per pose (the medium room's 320 x 240
        // pixels: 13.5 ms at level 1 against 16.6 ms at the default level 4, for 3% more bytes).
        header.zipCompressionLevel() = 1;
        header.insert("rsim_conventions",
                      Imf::StringAttribute("the datasets of images.h5 of the same names (MODEL.md section 8); Z = "
                                           "z_depth_m, the estimated depth along the optical axis; metres; NaN: none"));
        // The camera as images.h5's camera/K and camera/distortion (OpenCV's convention).
        const auto K = output::cameraMatrix(c);
        header.insert("camera_K", Imf::M33dAttribute(Imath::M33d(K[0], K[1], K[2], K[3], K[4], K[5], K[6], K[7], K[8])));
        const auto D = output::distortionCoefficients(c);
        header.insert("camera_distortion", Imf::FloatVectorAttribute(std::vector<float>(D.begin(), D.end())));
        Imf::FrameBuffer frame;
        for (auto& [name, values] : channels) {
            header.channels().insert(name, Imf::Channel(Imf::FLOAT));
            frame.insert(name, Imf::Slice(Imf::FLOAT, reinterpret_cast<char*>(values.data()), sizeof(float),
                                          sizeof(float) * W));
        }
        Imf::OutputFile out(file.c_str(), header, compressionThreads(threads));
        out.setFrameBuffer(frame);
        out.writePixels(int(H));
    } catch (const std::exception& e) {
        throw Error(file.string() + ": OpenEXR: " + e.what());
    }
}

} // namespace rsim
