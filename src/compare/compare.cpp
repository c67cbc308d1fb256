// SPDX-License-Identifier: MIT
#include "compare/compare.h"

#include <algorithm>

#include "compare/checks.h"
#include "compare/report.h"
#include "compare/result_dir.h"
#include "output/file_modules.h"
#include "util/error.h"
#include "util/owned_files.h"

namespace rsim {
namespace {

namespace fs = std::filesystem;
using namespace compare;

// What the report files start with, by which a later call knows them as its own and may replace
// them (util/owned_files.h).
constexpr const char* kJsonMarker = "  \"tool\": \"rsim compare\"";
constexpr const char* kJunitMarker = "<testsuite name=\"rsim compare";

// A report file must not land inside a results directory being compared (it would no longer be
// one rsim recognises) nor replace anything not written by an earlier `rsim compare`.
void checkReportFile(const fs::path& file, const char* marker, const char* option, const fs::path& a, const fs::path& b) {
    if (file.empty()) return;
    std::error_code ec;
    for (fs::path p = fs::absolute(file).parent_path(); !p.empty(); p = p.parent_path()) {
        for (const fs::path& dir : {a, b})
            if (fs::equivalent(p, dir, ec))
                throw InputError(file.string() + ": is inside " + dir.string() +
                                 ", a results directory being compared; write the " + option + " report elsewhere");
        if (p == p.parent_path()) break;
    }
    checkReplaceableFile(file, marker, std::string("rsim compare ") + option);
}

nlohmann::ordered_json header(const fs::path& a, const fs::path& b, const CompareOptions& o, bool pass) {
    nlohmann::ordered_json j;
    j["tool"] = "rsim compare";
    j["schema"] = 2;
    j["a"] = a.string();
    j["b"] = b.string();
    j["result"] = pass ? "pass" : "fail";
    j["options"] = {{"tol_m", o.toleranceM},         {"max_fraction", o.maxFraction}, {"tol_rel", o.toleranceRel},
                    {"noise_fraction", o.noiseFraction}, {"signal_rtol", o.signalRtol},   {"images", o.images},
                    {"signal", o.checkSignal},           {"settings", o.checkSettings},   {"excluded", o.excluded}};
    return j;
}

// JSON text; a name that is not UTF-8 (a mesh file's) has its bad bytes replaced, not the dump failing.
std::string jsonText(const nlohmann::ordered_json& j) {
    return j.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

// The batch as a whole: the same poses on both sides, and its own files sound.
Comparison batchChecks(const fs::path& a, const fs::path& b, const std::vector<std::string>& onlyA,
                       const std::vector<std::string>& onlyB) {
    Comparison c;
    auto listed = [](const std::vector<std::string>& names) {
        std::string s;
        for (const auto& n : names) s += (s.empty() ? "" : ", ") + n;
        return s;
    };
    Check poses;
    poses.name = "poses";
    poses.beyond = onlyA.size() + onlyB.size();
    poses.toleranceText = "the same in both";
    poses.pass = poses.beyond == 0;
    poses.failure = "poses in one batch only:" + (onlyA.empty() ? "" : " A: " + listed(onlyA)) +
                    (onlyB.empty() ? "" : " B: " + listed(onlyB));
    c.checks.push_back(poses);
    std::vector<std::string> bad;
    for (const auto& [dir, side] : {std::pair{a, "A"}, std::pair{b, "B"}}) {
        std::error_code ec;
        if (!fs::is_regular_file(dir / "batch.h5", ec)) bad.push_back(std::string("batch.h5 missing in ") + side);
        else if (!hdf5().readable(dir / "batch.h5")) bad.push_back(std::string("batch.h5 unreadable in ") + side);
    }
    Check files;
    files.name = "batch files";
    files.compared = 2;
    files.beyond = bad.size();
    files.toleranceText = "batch.h5 readable";
    files.pass = bad.empty();
    files.failure = listed(bad);
    c.checks.push_back(files);
    return c;
}

int verdict(std::ostream& out, const std::vector<std::string>& failures) {
    out << '\n';
    if (failures.empty()) {
        out << "rsim compare: PASS\n";
        return kExitOk;
    }
    std::string reason;
    for (const auto& f : failures) reason += (reason.empty() ? "" : "; ") + f;
    out << "rsim compare: FAIL (" << reason << ")\n";
    return kExitDifferent;
}

int compareOne(const fs::path& a, const fs::path& b, const CompareOptions& o, std::ostream& out) {
    const Comparison c = compareDirectories(readResultDir(a), readResultDir(b), o);
    out << "rsim compare\n  A: " << a.string() << "\n  B: " << b.string() << "\n\n";
    printComparison(out, c, o.showWorst);
    if (!o.jsonFile.empty()) {
        nlohmann::ordered_json j = header(a, b, o, c.pass());
        const nlohmann::ordered_json body = comparisonJson(c);
        for (const auto& [key, value] : body.items())
            if (key != "result") j[key] = value;
        writeFileAtomically(o.jsonFile, jsonText(j));
    }
    if (!o.junitFile.empty()) writeFileAtomically(o.junitFile, junitTestsuite("rsim compare", {{"", &c}}));
    return verdict(out, c.failures());
}

// Two batches: the same poses, each pose's directory compared as a run's.
int compareBatches(const fs::path& a, const fs::path& b, const CompareOptions& o, std::ostream& out) {
    const std::vector<std::string> pa = poseDirectories(a), pb = poseDirectories(b);
    std::vector<std::string> common, onlyA, onlyB;
    std::set_intersection(pa.begin(), pa.end(), pb.begin(), pb.end(), std::back_inserter(common));
    std::set_difference(pa.begin(), pa.end(), pb.begin(), pb.end(), std::back_inserter(onlyA));
    std::set_difference(pb.begin(), pb.end(), pa.begin(), pa.end(), std::back_inserter(onlyB));
    std::vector<Comparison> poses;
    for (const std::string& name : common) poses.push_back(compareDirectories(readResultDir(a / name), readResultDir(b / name), o));
    const Comparison batch = batchChecks(a, b, onlyA, onlyB);

    out << "rsim compare (batches of " << pa.size() << " and " << pb.size() << " poses)\n  A: " << a.string()
        << "\n  B: " << b.string() << "\n\n";
    printComparison(out, batch, 0);
    std::vector<std::string> failures = batch.failures();
    std::size_t passed = 0;
    for (std::size_t p = 0; p < poses.size(); ++p) {
        if (poses[p].pass()) {
            ++passed;
            continue;
        }
        out << "\npose " << common[p] << ":\n";
        printComparison(out, poses[p], o.showWorst);
        for (const std::string& f : poses[p].failures()) failures.push_back(common[p] + ": " + f);
    }
    out << "\n  " << passed << " of " << common.size() << " poses in both pass\n";
    if (!o.jsonFile.empty()) {
        nlohmann::ordered_json j = header(a, b, o, failures.empty());
        j["poses_only_in_a"] = onlyA;
        j["poses_only_in_b"] = onlyB;
        j["batch"] = comparisonJson(batch);
        nlohmann::ordered_json list = nlohmann::ordered_json::array();
        for (std::size_t p = 0; p < poses.size(); ++p) {
            nlohmann::ordered_json e;
            e["pose"] = common[p];
            const nlohmann::ordered_json body = comparisonJson(poses[p]);
            for (const auto& [key, value] : body.items()) e[key] = value;
            list.push_back(std::move(e));
        }
        j["poses"] = std::move(list);
        writeFileAtomically(o.jsonFile, jsonText(j));
    }
    if (!o.junitFile.empty()) {
        std::vector<std::pair<std::string, const Comparison*>> parts = {{"batch/", &batch}};
        for (std::size_t p = 0; p < poses.size(); ++p) parts.emplace_back(common[p] + "/", &poses[p]);
        writeFileAtomically(o.junitFile, junitTestsuite("rsim compare", parts));
    }
    return verdict(out, failures);
}

} // namespace

int compareResults(const fs::path& a, const fs::path& b, const CompareOptions& options, std::ostream& out) {
    for (const fs::path& dir : {a, b})
        if (std::error_code ec; !fs::is_directory(dir, ec))
            throw InputError(dir.string() + ": no such directory (expected an rsim results directory)");
    // The report files first: nothing is compared when they could not be written.
    checkReportFile(options.jsonFile, kJsonMarker, "--json", a, b);
    checkReportFile(options.junitFile, kJunitMarker, "--junit", a, b);
    const bool batchA = isBatchDirectory(a), batchB = isBatchDirectory(b);
    if (batchA != batchB)
        throw InputError((batchA ? a : b).string() + " is a batch's results (batch.csv, one folder per pose) and " +
                         (batchA ? b : a).string() + " is one run's; compare a batch with a batch, or one pose's "
                         "folder with a run");
    return batchA ? compareBatches(a, b, options, out) : compareOne(a, b, options, out);
}

} // namespace rsim
