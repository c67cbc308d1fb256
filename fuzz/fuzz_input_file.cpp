// SPDX-License-Identifier: MIT
#include "fuzz_input_file.h"

#include <cstdlib>
#include <fstream>
#include <stdexcept>

#include <spdlog/spdlog.h>
#include <unistd.h>

namespace rsim::fuzz {
namespace {

struct Scratch {
    Scratch() {
        std::string pattern = (std::filesystem::temp_directory_path() / "rsim-fuzz-XXXXXX").string();
        if (!::mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed");
        dir = pattern;
        owner = ::getpid();
    }
    ~Scratch() {
        std::error_code ec;
        if (::getpid() == owner) std::filesystem::remove_all(dir, ec); // not in a forked child
    }
    std::filesystem::path dir;
    pid_t owner;
};

} // namespace

std::filesystem::path writeInput(const std::string& name, const std::uint8_t* data, std::size_t size) {
    static Scratch scratch;
    const std::filesystem::path file = scratch.dir / name;
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), std::streamsize(size));
    return file;
}

void quietLog() { spdlog::set_level(spdlog::level::off); }

} // namespace rsim::fuzz
