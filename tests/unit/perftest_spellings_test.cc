// README "Coming from perftest": every row's perftest command line and its rdmabench one parse to
// the same workload, device and result file. The rows are read from the README itself, so the table
// cannot drift from what the client accepts.
#include <gtest/gtest.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "cli/perftest_compat.h"
#include "cli/workload_cli.h"

namespace rdmabench {
namespace {

struct Parsed {
  nlohmann::json workload;
  std::string device;
  std::string json_file;
};

// The client's options that the table uses: the workload options, -d, --json and perftest's.
Parsed parse(std::vector<std::string> args) {
  CLI::App app;
  std::string server;
  std::string device;
  std::string json_file;
  WorkloadArgs wa;
  PerftestCompat perftest;
  app.add_option("server", server);
  app.add_option("-d,--device,--ib-dev", device);
  app.add_option("--json", json_file);
  add_workload_options(&app, wa);
  add_perftest_compat(&app, perftest);
  std::reverse(args.begin(), args.end());  // CLI11 takes the arguments in reverse order
  app.parse(args);
  nlohmann::json w = build_workload(wa);
  return {w, device, perftest_json_file(perftest, json_file)};
}

std::vector<std::string> words(const std::string& s) {
  std::istringstream in(s);
  std::vector<std::string> w;
  for (std::string x; in >> x;) w.push_back(x);
  return w;
}

// perftest's programs: the op and mode each one measures.
const std::map<std::string, std::vector<std::string>> kTools = {
    {"ib_write_bw", {"--op", "write", "--mode", "bw"}},
    {"ib_write_lat", {"--op", "write", "--mode", "lat"}},
    {"ib_send_bw", {"--op", "send", "--mode", "bw"}},
    {"ib_send_lat", {"--op", "send", "--mode", "lat"}},
    {"ib_read_bw", {"--op", "read", "--mode", "bw"}},
    {"ib_read_lat", {"--op", "read", "--mode", "lat"}},
    {"ib_atomic_bw", {"--op", "fetch_add", "--mode", "bw"}},
    {"ib_atomic_lat", {"--op", "fetch_add", "--mode", "lat"}},
};

// The rows of README.md's "Coming from perftest" table: {perftest command, rdmabench command}.
std::vector<std::pair<std::string, std::string>> readme_rows() {
  std::ifstream in(std::string(RDMABENCH_SOURCE_DIR) + "/README.md");
  std::vector<std::pair<std::string, std::string>> rows;
  bool in_section = false;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind('#', 0) == 0) in_section = line == "## Coming from perftest";
    if (!in_section || line.rfind("| `ib_", 0) != 0) continue;
    const auto a = line.find('`') + 1;
    const auto b = line.find('`', a);
    const auto c = line.find('`', b + 1) + 1;
    const auto d = line.find('`', c);
    rows.emplace_back(line.substr(a, b - a), line.substr(c, d - c));
  }
  return rows;
}

TEST(PerftestSpellings, EveryReadmeRowParsesToTheSameWorkload) {
  const auto rows = readme_rows();
  ASSERT_GE(rows.size(), 8u) << "the README's Coming from perftest table was not found";
  for (const auto& [perftest, ours] : rows) {
    SCOPED_TRACE(perftest + "  vs  " + ours);
    std::vector<std::string> p = words(perftest);
    ASSERT_TRUE(kTools.count(p[0])) << "unknown perftest program " << p[0];
    std::vector<std::string> pa = {"HOST"};
    pa.insert(pa.end(), kTools.at(p[0]).begin(), kTools.at(p[0]).end());
    pa.insert(pa.end(), p.begin() + 1, p.end());
    std::vector<std::string> r = words(ours);
    ASSERT_GE(r.size(), 3u);
    ASSERT_EQ(r[0], "rdmabench");
    ASSERT_EQ(r[1], "client");
    const Parsed a = parse(pa);
    const Parsed b = parse(std::vector<std::string>(r.begin() + 2, r.end()));
    EXPECT_EQ(a.workload, b.workload);
    EXPECT_EQ(a.device, b.device);
    EXPECT_EQ(a.json_file, b.json_file);
  }
}

TEST(PerftestSpellings, CompatFlagsSayTheyAreNotNeeded) {
  PerftestCompat c;
  EXPECT_TRUE(perftest_compat_notes(c).empty());
  EXPECT_EQ(perftest_json_file(c, ""), "");
  c.cpu_freq = c.report_gbits = c.out_json = true;
  EXPECT_EQ(perftest_compat_notes(c).size(), 3u);
  EXPECT_EQ(perftest_json_file(c, ""), "perftest_out.json");
  c.out_json_file = "r.json";
  EXPECT_EQ(perftest_json_file(c, ""), "r.json");
  EXPECT_EQ(perftest_json_file(c, "mine.json"), "mine.json");
}

}  // namespace
}  // namespace rdmabench
