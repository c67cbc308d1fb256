// SPDX-License-Identifier: MIT
#include "util/csv.h"

#include "util/error.h"

namespace rsim {

CsvReader::CsvReader(std::istream& in, std::string source, char comment)
    : in_(in), source_(std::move(source)), comment_(comment) {}

bool CsvReader::next(std::vector<std::string>& fields) {
    fields.clear();
    if (first_) { // a UTF-8 byte-order mark, as spreadsheets write one
        first_ = false;
        static const char kBom[] = "\xEF\xBB\xBF";
        for (int k = 0; k < 3 && in_.peek() == static_cast<unsigned char>(kBom[k]); ++k) in_.get();
    }
    // Comment lines go whole, quotes and all: `# a 17" screen` is not the start of a field.
    while (comment_) {
        std::string blanks;
        while (in_.peek() == ' ' || in_.peek() == '\t') blanks += char(in_.get());
        if (in_.peek() != static_cast<unsigned char>(comment_)) {
            for (auto b = blanks.rbegin(); b != blanks.rend(); ++b) in_.putback(*b);
            break;
        }
        for (int c; (c = in_.get()) != std::char_traits<char>::eof() && c != '\n';) {
        }
        ++line_;
    }
    if (in_.peek() == std::char_traits<char>::eof()) return false;
    recordLine_ = line_;
    fields.emplace_back();
    bool quoted = false;
    for (int c; (c = in_.get()) != std::char_traits<char>::eof();) {
        const char ch = char(c);
        if (quoted) {
            if (ch == '"') {
                if (in_.peek() == '"') {
                    fields.back() += '"';
                    in_.get();
                } else {
                    quoted = false;
                }
                continue;
            }
            if (ch == '\n') ++line_;
            fields.back() += ch;
            continue;
        }
        if (ch == '"') {
            quoted = true;
        } else if (ch == ',') {
            fields.emplace_back();
        } else if (ch == '\n') {
            ++line_;
            if (!fields.back().empty() && fields.back().back() == '\r') fields.back().pop_back();
            ended_ = true;
            return true;
        } else {
            fields.back() += ch;
        }
    }
    if (quoted)
        throw InputError(source_ + ":" + std::to_string(recordLine_) +
                         ": a quoted field does not end (its closing \" is missing)");
    if (!fields.back().empty() && fields.back().back() == '\r') fields.back().pop_back();
    ended_ = false;
    return true;
}

} // namespace rsim
