#pragma once
// Helpers shared by the report and compare unit tests: temporary folders, files, the result
// fixtures (tests/fixtures/results, tests/fixtures/campaign) and environment guards.
#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "base/temp_dir.h"
#include "tests/unit/test_util.h"

namespace rdmabench::testutil {

namespace fs = std::filesystem;

inline const fs::path kFixtureRoot = fs::path(__FILE__).parent_path().parent_path() / "fixtures";
inline std::string results_fixture(const std::string& rel) {
  return (kFixtureRoot / "results" / rel).string();
}
inline std::string campaign_fixture() { return (kFixtureRoot / "campaign" / "results").string(); }

inline std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + p.string());
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

inline void write_text(const fs::path& p, const std::string& text) {
  std::ofstream out(p, std::ios::binary);
  out << text;
  if (!out) throw std::runtime_error("cannot write " + p.string());
}

inline nlohmann::json read_json(const fs::path& p) { return nlohmann::json::parse(read_text(p)); }

// The *.json files directly in a folder, in name order.
inline std::vector<fs::path> json_files(const fs::path& dir) {
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.is_regular_file() && e.path().extension() == ".json") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  return files;
}

using rdmabench::TempDir;

// Copies every result document of `src` into `dst` (created), passing each through `edit`.
inline void copy_docs(const fs::path& src, const fs::path& dst,
                      const std::function<void(nlohmann::json&)>& edit = {}) {
  fs::create_directories(dst);
  for (const auto& f : json_files(src)) {
    nlohmann::json j = read_json(f);
    if (j.contains("tool") && edit) edit(j);
    write_text(dst / f.filename(), j.dump(2));
  }
}

// Scales a bandwidth-mode size result as if it had taken `1 / factor` times as long (rates
// times `factor`, seconds divided by it), keeping the document consistent.
inline void scale_rate(nlohmann::json& s, double factor) {
  s["seconds"] = s["seconds"].get<double>() / factor;
  s["gbps"] = s["gbps"].get<double>() * factor;
  s["mmsg_per_s"] = s["mmsg_per_s"].get<double>() * factor;
  for (auto& t : s["threads"]) {
    t["seconds"] = t["seconds"].get<double>() / factor;
    t["gbps"] = t["gbps"].get<double>() * factor;
    t["mmsg_per_s"] = t["mmsg_per_s"].get<double>() * factor;
  }
}

// Multiplies every latency of a latency-mode size result (summary and histogram) by `factor`.
inline void scale_latency(nlohmann::json& s, double factor) {
  auto& l = s["latency"];
  for (const char* k : {"min", "max", "mean", "stdev", "p50", "p90", "p99", "p99_9", "p99_99"})
    l[k] = l[k].get<double>() * factor;
  for (auto& b : l["buckets"]) {
    b[0] = b[0].get<double>() * factor;
    b[1] = b[1].get<double>() * factor;
  }
}

}  // namespace rdmabench::testutil
