// SPDX-License-Identifier: MIT
// CSV records as RFC 4180 writes them, and as spreadsheets save them: fields separated by
// commas; a field in double quotes may hold commas, line ends and doubled quotes; lines end in
// LF or CRLF; a UTF-8 byte-order mark at the start is skipped. Read by `rsim compare`
// (triangles.csv, whose mesh names may hold any of these) and the poses reader.
#pragma once
#include <istream>
#include <string>
#include <vector>

namespace rsim {

class CsvReader {
public:
    // `source` names the input in messages ("poses.csv"). `comment` (0: none): a line that
    // begins with it, after blanks, is skipped whole before any quote in it is read.
    CsvReader(std::istream& in, std::string source, char comment = 0);

    // The next record's fields (unquoted), false at the end of the input. Throws InputError
    // "source:LINE: ..." for a quoted field that never ends.
    bool next(std::vector<std::string>& fields);
    // The line the last record started on (1-based).
    std::size_t line() const { return recordLine_; }
    // Whether the last record ended with a line end. A record without one may have been cut
    // short: a writer that stopped inside "1.25" leaves "1.2", which still reads as a number.
    bool lastRecordEnded() const { return ended_; }

private:
    std::istream& in_;
    std::string source_;
    std::size_t line_ = 1, recordLine_ = 0;
    bool ended_ = true, first_ = true;
    char comment_ = 0;
};

} // namespace rsim
