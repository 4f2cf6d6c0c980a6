#include "report/export_set.h"

#include <algorithm>
#include <filesystem>
#include <map>

#include "base/error.h"
#include "base/file_text.h"
#include "base/number_text.h"
#include "model/campaign_index.h"
#include "model/check_expectation.h"
#include "model/verdict_record.h"
#include "model/workload.h"

namespace rdmabench {
namespace {

namespace fs = std::filesystem;

// The run's error, or its first failed size's.
std::string document_error(const RunResult& r) {
  if (!r.error.empty()) return r.error;
  for (const SizeResult& s : r.results)
    if (!s.error.empty()) return "size " + std::to_string(s.size) + ": " + s.error;
  return "";
}

ExportPoint document_point(const ResultFile& f, const std::string& suite) {
  ExportPoint p;
  p.name = fs::path(f.path).stem().string();
  p.suite = suite;
  p.error = document_error(f.run);
  p.status = p.error.empty() ? "ok" : "failed";
  for (const SizeResult& s : f.run.results) p.duration_s += s.seconds;
  p.host_pair = point_host_field(f, "host_pair");
  p.document = &f;
  return p;
}

// A sweep's folder: its documents (possibly none: every point failed), by point id.
void load_sweep_folder(const std::string& dir, ExportSet& set, std::ostream& notes) {
  const size_t first = set.documents.size();
  for (const auto& e : fs::directory_iterator(dir)) {
    if (!e.is_regular_file() || e.path().extension() != ".json") continue;
    try {
      set.documents.push_back(load_result_file(e.path().string()));
    } catch (const ConfigError& err) {
      notes << "rdmabench: note: skipping " << err.what() << "\n";
    }
  }
  std::sort(set.documents.begin() + static_cast<long>(first), set.documents.end(),
            [](const ResultFile& a, const ResultFile& b) { return a.path < b.path; });
  std::string suite = fs::path(dir).filename().string();
  std::map<std::string, size_t> by_id;
  for (size_t i = first; i < set.documents.size(); ++i) {
    const nlohmann::json& pt = set.documents[i].point;
    if (!pt.is_object()) continue;
    if (pt.contains("point_id") && pt["point_id"].is_string())
      by_id[pt["point_id"].get<std::string>()] = i;
    if (pt.contains("campaign") && pt["campaign"].is_string()) suite = pt["campaign"];
  }
  const std::string index = file_text(dir + "/index.jsonl");
  for (IndexEntry& e : parse_index_points(index)) {
    ExportPoint p;
    p.name = e.point_id;
    p.suite = suite;
    p.status = e.status == "ok" || e.status == "skipped" ? e.status : "failed";
    p.error = e.error;
    p.duration_s = e.duration_s;
    p.host_pair = e.host_pair;
    if (const auto it = by_id.find(e.point_id); it != by_id.end() && p.status == "ok")
      p.document = &set.documents[it->second];
    set.points.push_back(std::move(p));
  }
  std::vector<std::string> refused;
  if (auto v = last_verdicts_record(parse_records(index, kVerdictsRecord), refused))
    set.verdicts.emplace_back(suite, std::move(*v));
  if (auto h = last_hunt_record(parse_records(index, kHuntRecord), refused))
    set.hunts.emplace_back(suite, std::move(*h));
  for (const std::string& why : refused)
    notes << "rdmabench: note: " << dir << "/index.jsonl: " << why << "; left out\n";
}

// A file's JSON when it is a JSON object, else null.
nlohmann::json json_object_file(const std::string& path) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) return nullptr;
  nlohmann::json j = nlohmann::json::parse(file_text(path), nullptr, /*allow_exceptions=*/false);
  return j.is_object() ? j : nullptr;
}

// A check document ("check" and "expectations").
bool is_check(const nlohmann::json& j) {
  return j.contains("check") && j["check"].is_object() && j.contains("expectations") &&
         j["expectations"].is_array();
}

// A comparison (`rdmabench compare --json`: "comparisons", "not_compared", "rule").
bool is_comparison(const nlohmann::json& j) {
  return j.contains("comparisons") && j["comparisons"].is_array() && j.contains("rule") &&
         j["rule"].is_string();
}

// A check: suite "check", one point per expectation (its host in the class name).
void load_check(const std::string& path, const nlohmann::json& j, ExportSet& set) {
  const nlohmann::json& c = j["check"];
  const auto text = [](const nlohmann::json& o, const char* k) {
    return o.contains(k) ? (o[k].is_string() ? o[k].get<std::string>() : o[k].dump()) : "";
  };
  ExportCheck check{text(c, "host"), text(c, "device"), text(c, "port"),
                    j.value("verdict", std::string()) == "PASS", j["expectations"]};
  for (size_t i = 0; i < check.expectations.size(); ++i) {
    const CheckOutcome o = check_outcome_from_json(check.expectations[i],
                                                   path + ": /expectations/" + std::to_string(i));
    ExportPoint p;
    p.name = o.expectation;
    p.suite = "check";
    p.status = o.pass ? "ok" : "failed";
    if (!o.pass) p.error = outcome_detail(o);
    p.host_pair = check.host;
    set.points.push_back(std::move(p));
  }
  set.checks.push_back(std::move(check));
}

// A comparison: suite "compare", one point per compared figure ("LABEL SIZE METRIC"), failed
// when it is a regression; the figures that could not be compared are skipped with the reason.
void load_comparison(const std::string& path, const nlohmann::json& j, ExportSet& set) {
  const auto name = [](const nlohmann::json& r) {
    const std::string size = r.contains("size") && r["size"].is_number_unsigned()
                                 ? format_size(r["size"].get<uint64_t>())
                                 : "?";
    return r.value("label", std::string("?")) + " " + size +
           (r.contains("metric") ? " " + r.value("metric", std::string()) : "");
  };
  const auto median = [](const nlohmann::json& r, const char* side) {
    const nlohmann::json& m =
        r.contains(side) ? r[side].value("median", nlohmann::json()) : nullptr;
    return m.is_number() ? three_digits(m.get<double>()) : std::string("?");
  };
  for (const nlohmann::json& r : j["comparisons"]) {
    if (!r.is_object())
      throw ConfigError(path + ": /comparisons", r.dump(), "objects, as compare --json writes");
    ExportPoint p;
    p.name = name(r);
    p.suite = "compare";
    p.status = r.value("verdict", std::string()) == "regression" ? "failed" : "ok";
    if (p.status == "failed") {
      const nlohmann::json& pct = r.value("change_pct", nlohmann::json());
      p.error = "a regression: " + r.value("metric", std::string("?")) + " " + median(r, "a") +
                " -> " + median(r, "b") +
                (pct.is_number() ? " (" + three_digits(pct.get<double>()) + " %)" : "") +
                "; the rule: " + j["rule"].get<std::string>();
    }
    set.points.push_back(std::move(p));
  }
  if (j.contains("not_compared") && j["not_compared"].is_array())
    for (const nlohmann::json& r : j["not_compared"]) {
      if (!r.is_object()) continue;
      ExportPoint p;
      p.name = name(r);
      p.suite = "compare";
      p.status = "skipped";
      p.error = r.value("why", std::string("not compared"));
      set.points.push_back(std::move(p));
    }
}

}  // namespace

ExportSet load_export_set(const std::vector<std::string>& inputs, std::ostream& notes) {
  ExportSet set;
  std::vector<std::pair<size_t, std::string>> loose;  // documents outside a sweep's index
  for (const std::string& in : inputs) {
    std::error_code ec;
    if (fs::is_directory(in, ec) && fs::exists(in + "/index.jsonl", ec)) {
      load_sweep_folder(in, set, notes);
      continue;
    }
    if (const nlohmann::json j = json_object_file(in); !j.is_null()) {
      if (is_check(j)) {
        load_check(in, j, set);
        continue;
      }
      if (is_comparison(j)) {
        load_comparison(in, j, set);
        continue;
      }
    }
    const size_t first = set.documents.size();
    for (ResultFile& f : load_results({in}, notes)) set.documents.push_back(std::move(f));
    for (size_t i = first; i < set.documents.size(); ++i) loose.emplace_back(i, "results");
  }
  for (const auto& [i, suite] : loose)
    set.points.push_back(document_point(set.documents[i], suite));
  if (set.points.empty())
    throw ConfigError("results", "", "no workload point in them (an empty index?)");
  return set;
}

}  // namespace rdmabench
