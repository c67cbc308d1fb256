// SPDX-License-Identifier: MIT
// The sensor images: depth.pfm keeps the exact values (for `rsim compare` and analysis), the
// PNGs are for looking at. Image row 0 is the top of the picture (rsimPixelDirection).
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include <png.h>

#include "output/output_util.h"
#include "output/results_writer.h"
#include "util/error.h"

namespace rsim {
namespace {

void writePfm(const std::filesystem::path& file, std::uint32_t w, std::uint32_t h,
              const std::vector<float>& values) {
    // Negative scale = little-endian samples; PFM stores the bottom row first.
    std::string buf = "Pf\n" + std::to_string(w) + " " + std::to_string(h) + "\n-1.0\n";
    buf.reserve(buf.size() + std::size_t(w) * h * 4);
    for (std::uint32_t y = h; y-- > 0;)
        for (std::uint32_t x = 0; x < w; ++x)
            output::appendLE(buf, values[std::size_t(y) * w + x]);
    output::OutputFile out(file);
    out.write(buf);
    out.close();
}

// libpng's simplified API reports errors through png_image::message instead of longjmp, which
// would skip C++ destructors.
void writePng(const std::filesystem::path& file, std::uint32_t w, std::uint32_t h, bool rgb,
              const std::vector<std::uint8_t>& pixels) {
    png_image image;
    std::memset(&image, 0, sizeof image);
    image.version = PNG_IMAGE_VERSION;
    image.width = w;
    image.height = h;
    image.format = rgb ? PNG_FORMAT_RGB : PNG_FORMAT_GRAY;
    image.flags = PNG_IMAGE_FLAG_FAST; // previews: encoding time matters more than bytes
    if (!png_image_write_to_file(&image, file.c_str(), 0, pixels.data(), 0, nullptr)) {
        const std::string message = image.message;
        png_image_free(&image);
        throw Error(file.string() + ": cannot write PNG (" + message + ")");
    }
}

void putRgb(std::vector<std::uint8_t>& out, output::Rgb8 c) {
    out.push_back(c.r);
    out.push_back(c.g);
    out.push_back(c.b);
}

} // namespace

void writeSensorImages(const std::filesystem::path& dir, const ResultsView& view) {
    const SensorImage& im = view.result.image;
    const output::ImageStats s = output::imageStats(im); // also checks the array sizes
    const std::size_t pixels = std::size_t(im.width) * im.height;

    writePfm(dir / "depth.pfm", im.width, im.height, im.depth);

    std::vector<std::uint8_t> rgb;
    rgb.reserve(pixels * 3);
    const double depthSpan = s.depthHi - s.depthLo;
    for (float d : im.depth) {
        if (!std::isfinite(d)) {
            putRgb(rgb, {});
            continue;
        }
        // A flat image (one depth) gets the middle colour rather than a division by zero.
        putRgb(rgb, output::viridis(depthSpan > 0.0 ? (double(d) - s.depthLo) / depthSpan : 0.5));
    }
    writePng(dir / "depth.png", im.width, im.height, true, rgb);

    rgb.clear();
    for (std::size_t p = 0; p < pixels; ++p) {
        const double e = double(im.depth[p]) - double(im.trueDepth[p]);
        putRgb(rgb, std::isfinite(e) ? output::diverging(e / s.errorRange) : output::Rgb8{});
    }
    writePng(dir / "error.png", im.width, im.height, true, rgb);

    // Log scale: amplitudes fall off with distance squared and span decades. The darkest lit
    // pixel is kept visibly above the black of "no signal".
    std::vector<std::uint8_t> gray(pixels, 0);
    const double logLo = std::log10(s.amplitudeLo), logHi = std::log10(s.amplitudeHi);
    const double logSpan = logHi - logLo;
    for (std::size_t p = 0; p < pixels; ++p) {
        const double a = im.amplitude[p];
        if (!(std::isfinite(a) && a > 0.0)) continue;
        const double t = logSpan > 0.0 ? (std::log10(a) - logLo) / logSpan : 1.0;
        gray[p] = std::uint8_t(std::lround(32.0 + 223.0 * std::clamp(t, 0.0, 1.0)));
    }
    writePng(dir / "amplitude.png", im.width, im.height, false, gray);
}

std::vector<float> readPfm(const std::filesystem::path& file, std::uint32_t& width,
                           std::uint32_t& height) {
    std::ifstream in(file, std::ios::binary | std::ios::ate);
    if (!in) throw InputError(file.string() + ": cannot open");
    std::string data(std::size_t(std::max<std::streamoff>(in.tellg(), 0)), '\0');
    in.seekg(0);
    if (!in.read(data.data(), std::streamsize(data.size())))
        throw InputError(file.string() + ": read failed");
    auto bad = [&](const std::string& why) {
        return InputError(file.string() + ": not a grayscale PFM (" + why + ")");
    };

    std::size_t pos = 0;
    auto isSpace = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; };
    auto token = [&]() {
        while (pos < data.size() && isSpace(data[pos]))
            ++pos;
        const std::size_t start = pos;
        while (pos < data.size() && !isSpace(data[pos]))
            ++pos;
        return data.substr(start, pos - start);
    };
    const std::string magic = token();
    if (magic == "PF") throw bad("colour PFM, expected 'Pf'");
    if (magic != "Pf") throw bad("header does not start with 'Pf'");
    auto dimension = [&](const char* what) {
        const std::string tok = token();
        char* end = nullptr;
        const unsigned long v = std::strtoul(tok.c_str(), &end, 10);
        if (tok.empty() || *end != '\0' || v == 0 || v > (1ul << 20))
            throw bad(std::string("bad ") + what + " '" + tok + "'");
        return std::uint32_t(v);
    };
    const std::uint32_t w = dimension("width");
    const std::uint32_t h = dimension("height");
    const std::string scaleTok = token();
    char* end = nullptr;
    const double scale = std::strtod(scaleTok.c_str(), &end);
    if (scaleTok.empty() || *end != '\0' || scale == 0.0 || !std::isfinite(scale))
        throw bad("bad scale '" + scaleTok + "'");
    // Exactly one whitespace character separates the header from the samples.
    if (pos >= data.size() || !isSpace(data[pos])) throw bad("truncated header");
    ++pos;
    const std::size_t count = std::size_t(w) * h;
    if (data.size() - pos < count * 4)
        throw bad("expected " + std::to_string(count * 4) + " bytes of samples, found " +
                  std::to_string(data.size() - pos));

    const bool littleEndian = scale < 0.0;
    std::vector<float> values(count);
    const auto* bytes = reinterpret_cast<const unsigned char*>(data.data() + pos);
    for (std::uint32_t row = 0; row < h; ++row) {
        const std::uint32_t y = h - 1 - row; // stored bottom row first
        for (std::uint32_t x = 0; x < w; ++x) {
            const unsigned char* b = bytes + (std::size_t(row) * w + x) * 4;
            const std::uint32_t u = littleEndian
                                        ? std::uint32_t(b[0]) | std::uint32_t(b[1]) << 8 |
                                              std::uint32_t(b[2]) << 16 | std::uint32_t(b[3]) << 24
                                        : std::uint32_t(b[3]) | std::uint32_t(b[2]) << 8 |
                                              std::uint32_t(b[1]) << 16 | std::uint32_t(b[0]) << 24;
            values[std::size_t(y) * w + x] = std::bit_cast<float>(u);
        }
    }
    width = w;
    height = h;
    return values;
}

} // namespace rsim
