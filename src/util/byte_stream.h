// SPDX-License-Identifier: MIT
// Plain binary packing of numbers, arrays of trivially copyable values and strings, for data
// that goes from one process of ours to another on the same machine or job (a child process's
// answer, an MPI rank's results): native byte order, lengths as 64-bit counts. Reading checks
// every length against what is left and throws Error on a malformed stream.
#pragma once
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "util/error.h"

namespace rsim {

class ByteWriter {
public:
    template <class T> void value(const T& v) {
        static_assert(std::is_trivially_copyable_v<T>);
        raw(&v, sizeof v);
    }
    template <class T> void array(const std::vector<T>& v) {
        static_assert(std::is_trivially_copyable_v<T>);
        value<std::uint64_t>(v.size());
        raw(v.data(), v.size() * sizeof(T));
    }
    void string(const std::string& s) {
        value<std::uint64_t>(s.size());
        raw(s.data(), s.size());
    }
    void strings(const std::vector<std::string>& v) {
        value<std::uint64_t>(v.size());
        for (const auto& s : v) string(s);
    }
    std::string bytes;

private:
    void raw(const void* p, std::size_t n) { bytes.append(static_cast<const char*>(p), n); }
};

class ByteReader {
public:
    // `what` names the stream in errors ("the mesh reader's answer").
    ByteReader(const std::string& bytes, std::string what) : b_(bytes), what_(std::move(what)) {}
    template <class T> T value() {
        static_assert(std::is_trivially_copyable_v<T>);
        T v{};
        raw(&v, sizeof v);
        return v;
    }
    template <class T> std::vector<T> array() {
        const auto n = value<std::uint64_t>();
        if (n > left() / sizeof(T)) bad();
        std::vector<T> v(n);
        raw(v.data(), n * sizeof(T));
        return v;
    }
    std::string string() {
        const auto n = value<std::uint64_t>();
        if (n > left()) bad();
        std::string s(b_.data() + at_, n);
        at_ += n;
        return s;
    }
    std::vector<std::string> strings() {
        const auto n = value<std::uint64_t>();
        if (n > left() / sizeof(std::uint64_t)) bad();
        std::vector<std::string> v(n);
        for (auto& s : v) s = string();
        return v;
    }
    bool done() const { return at_ == b_.size(); }
    [[noreturn]] void bad() const { throw Error("internal: " + what_ + " is malformed"); }

private:
    std::size_t left() const { return b_.size() - at_; }
    void raw(void* p, std::size_t n) {
        if (n > left()) bad();
        if (n) std::memcpy(p, b_.data() + at_, n);
        at_ += n;
    }
    const std::string& b_;
    std::string what_;
    std::size_t at_ = 0;
};

} // namespace rsim
