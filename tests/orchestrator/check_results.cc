// check_results DIR: validates a sweep's output folder for the testbed tests.
//   - every DIR/*.json is a result document that run_result_from_json accepts, with a "point"
//     object whose point_id is the file's name, and an error of null;
//   - DIR/index.jsonl parses; every point whose last status is ok has its DIR/<id>.json;
//   - DIR/env/*.json exist.
// Prints one line "ok=N failed=N skipped=N results=N lines=N envs=N" (the last status of each
// point counted) and exits 1 on any problem, printing it.
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "model/campaign_index.h"
#include "model/result.h"

namespace fs = std::filesystem;

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: check_results DIR\n";
    return 2;
  }
  const fs::path dir = argv[1];
  int problems = 0;
  auto problem = [&](const std::string& what) {
    std::cerr << "check_results: " << what << "\n";
    ++problems;
  };
  size_t results = 0;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (!e.is_regular_file() || e.path().extension() != ".json") continue;
    ++results;
    std::ifstream in(e.path());
    std::stringstream ss;
    ss << in.rdbuf();
    nlohmann::json j = nlohmann::json::parse(ss.str(), nullptr, false);
    if (j.is_discarded()) {
      problem(e.path().string() + ": not JSON");
      continue;
    }
    try {
      rdmabench::RunResult r = rdmabench::run_result_from_json(j);
      if (!r.error.empty()) problem(e.path().string() + ": error " + r.error);
      if (r.results.empty()) problem(e.path().string() + ": no size results");
    } catch (const std::exception& ex) {
      problem(e.path().string() + ": invalid result document: " + ex.what());
    }
    if (!j.contains("point") || !j["point"].is_object() ||
        j["point"].value("point_id", "") != e.path().stem().string())
      problem(e.path().string() + ": missing or wrong \"point\" object");
    else
      for (const char* k : {"campaign", "repetition", "host_pair", "matrix"})
        if (!j["point"].contains(k)) problem(e.path().string() + ": point has no " + k);
  }
  size_t bad = 0, lines = 0;
  {
    std::ifstream in(dir / "index.jsonl");
    if (!in) problem("no index.jsonl");
    std::string line;
    while (std::getline(in, line)) lines += line.empty() ? 0 : 1;
  }
  auto index = rdmabench::read_index((dir / "index.jsonl").string(), &bad);
  if (bad != 0) problem(std::to_string(bad) + " malformed index line(s)");
  size_t ok = 0, failed = 0, skipped = 0;
  for (const auto& [id, e] : index) {
    if (e.status == "ok") {
      ++ok;
      if (!fs::exists(dir / (id + ".json")))
        problem(id + ": index says ok but there is no " + id + ".json");
    } else if (e.status == "failed") {
      ++failed;
      if (e.error.empty()) problem(id + ": failed without an error text");
    } else if (e.status == "skipped") {
      ++skipped;
      if (e.error.empty()) problem(id + ": skipped without a reason");
    } else {
      problem(id + ": unknown status " + e.status);
    }
  }
  size_t envs = 0;
  if (fs::is_directory(dir / "env"))
    for (const auto& e : fs::directory_iterator(dir / "env")) {
      if (e.path().extension() != ".json") continue;
      ++envs;
      std::ifstream in(e.path());
      std::stringstream ss;
      ss << in.rdbuf();
      nlohmann::json j = nlohmann::json::parse(ss.str(), nullptr, false);
      if (j.is_discarded() || !j.contains("kernel") || !j.contains("rdma_core") ||
          !j.contains("devices"))
        problem(e.path().string() + ": not a host environment document");
    }
  if (envs == 0) problem("no env/*.json");
  std::cout << "ok=" << ok << " failed=" << failed << " skipped=" << skipped
            << " results=" << results << " lines=" << lines << " envs=" << envs << std::endl;
  return problems == 0 ? 0 : 1;
}
