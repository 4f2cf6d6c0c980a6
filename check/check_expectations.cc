#include "check/check_expectations.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "base/error.h"
#include "model/check_baseline.h"
#include "model/workload_options.h"
#include "report/results_set.h"

namespace rdmabench {
namespace {

// --expect-file: one expectation a line, blank lines and # comments skipped.
std::vector<std::string> expectations_in(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw ConfigError("expect-file", path, "a readable file of expectations, one a line");
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) {
    const size_t first = line.find_first_not_of(" \t\r");
    if (first == std::string::npos || line[first] == '#') continue;
    lines.push_back(line);
  }
  return lines;
}

// --baseline: an earlier check's document, or result documents (a folder, or one file).
std::vector<CheckExpectation> baseline_of(const std::string& path, double tolerance) {
  std::error_code ec;
  if (!std::filesystem::is_directory(path, ec)) {
    std::ifstream in(path);
    const nlohmann::json doc = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
    if (!in.is_open() || doc.is_discarded())
      throw ConfigError("baseline", path,
                        "a readable check document (rdmabench check --json), result folder or "
                        "result document");
    if (doc.is_object() && doc.contains("expectations"))
      return baseline_expectations(doc, tolerance, path);
  }
  const std::vector<ResultFile> files = load_results({path}, std::cerr);
  std::vector<BaselineRun> runs;
  for (const ResultFile& f : files) runs.push_back({f.path, &f.run});
  return baseline_from_results(runs, tolerance);
}

}  // namespace

// The expectations given (-e, then --expect-file's), and the defaults: the port ACTIVE and a
// usable GID, unless given.
std::vector<CheckExpectation> check_expectations(const CheckRequest& a) {
  std::vector<std::string> texts = a.expect;
  if (!a.expect_file.empty())
    for (auto& line : expectations_in(a.expect_file)) texts.push_back(std::move(line));
  std::vector<CheckExpectation> ex;
  for (const auto& t : texts) ex.push_back(parse_check_expectation(t));
  if (!a.baseline.empty()) {
    const double tolerance =
        a.tolerance ? parse_number_option("tolerance", *a.tolerance, 0, 100, "%") / 100 : 0.1;
    for (auto& e : baseline_of(a.baseline, tolerance)) ex.push_back(std::move(e));
  } else if (a.tolerance) {
    throw ConfigError("tolerance", *a.tolerance, "--tolerance with --baseline only");
  }
  const auto given = [&](CheckSubject s) {
    return std::any_of(ex.begin(), ex.end(), [&](const auto& e) { return e.subject == s; });
  };
  if (!given(CheckSubject::kGid)) ex.insert(ex.begin(), parse_check_expectation("gid = usable"));
  if (!given(CheckSubject::kPortState))
    ex.insert(ex.begin(), parse_check_expectation("port state = ACTIVE"));
  return ex;
}

}  // namespace rdmabench
