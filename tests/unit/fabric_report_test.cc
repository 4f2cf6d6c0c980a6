// A fabric campaign in `rdmabench plot` and `rdmabench report` (issue 18): the link matrix (a
// cell per link measured, its best figure over the repetitions, the verdicts' marks, blank for
// a link not measured) and the report's Fabric section (the verdict counts, every link that is
// not ok, the round records). The records are written by the orchestrator's own functions, the
// documents are a committed fixture's with a fabric point added.
#include <gtest/gtest.h>

#include <sstream>

#include "model/campaign_index.h"
#include "model/verdict_record.h"
#include "orchestrator/fabric/fabric_verdicts.h"
#include "orchestrator/fabric/probe_verdicts.h"
#include "orchestrator/fabric/round_summary.h"
#include "report/link_matrix.h"
#include "report/plot.h"
#include "report/report.h"
#include "tests/unit/report_test_util.h"

namespace rdmabench {
namespace {

using namespace testutil;
using nlohmann::json;

const json kValues = {{"op", "write"}, {"sizes", {4096, 65536}}};

// The Gb/s a link gets in the folder below: h1 -> h3 is the slow one, h3 -> h2 is not measured.
double link_gbps(int client, int server, int repetition) {
  if (client == 1 && server == 3) return 2.0 + repetition;
  return 10.0 * client + server + repetition;  // distinct, the second repetition better
}

// A fabric folder: hosts h1, h2, h3 and h10 (natural order puts h10 last); every ordered pair
// but h3 -> h2, two repetitions; verdicts: h1 -> h3 bad, h2 -> h1 congested; one round record.
void write_fabric_folder(const fs::path& dir) {
  fs::create_directories(dir);
  const json doc = read_json(results_fixture("qp/write_rc.json"));
  const int hosts[] = {1, 2, 3, 10};
  std::string index;
  for (int rep = 1; rep <= 2; ++rep)
    for (int c : hosts)
      for (int s : hosts) {
        if (c == s || (c == 3 && s == 2)) continue;
        json d = doc;
        const std::string client = "h" + std::to_string(c), server = "h" + std::to_string(s);
        const std::string id = client + "-" + server + "-r" + std::to_string(rep);
        d["workload"]["sizes"] = {4096, 65536};
        d["results"] = json::array({doc["results"][6], doc["results"][10]});  // 4K, 64K
        d["results"][1]["gbps"] = link_gbps(c, s, rep);
        d["results"][0]["gbps"] = 0.5;
        d["point"] = {
            {"campaign", "fab"},
            {"point_id", id},
            {"repetition", rep},
            {"host_pair", client + " -> " + server},
            {"server_host", "local"},
            {"client_host", "local"},
            {"matrix", kValues},
            {"fabric", {{"pattern", "pairwise"}, {"server", server}, {"client", client}}}};
        write_text(dir / (id + ".json"), d.dump());
        index += json{{"point_id", id}, {"status", "ok"}, {"host_pair", client + " -> " + server}}
                     .dump() +
                 "\n";
      }
  std::vector<LinkVerdict> v(3);
  v[0].link = "h1 -> h3";
  v[0].verdict = "bad";
  v[0].why = "below 0.93 of the best link's";
  v[1].link = "h2 -> h1";
  v[1].verdict = "congested";
  v[2].link = "h1 -> h2";
  v[2].verdict = "ok";
  for (LinkVerdict& x : v) {
    x.values = &kValues;
    x.size = 65536;
    x.metric = "gbps";
    x.value = 3.0;
    x.best = 33.0;
  }
  auto record = verdict_record(v, VerdictCriteria{}, "2026-11-25T00:00:00Z");
  ProbeVerdict slow;  // a latency probe beside the load, 6 times its idle p99
  slow.link = "h3 -> h1";
  slow.round = "incast 2->host0";
  slow.size = 8;
  slow.p99_ns = 60000;
  slow.idle_p99_ns = 10000;
  slow.ratio = 6;
  slow.threshold = 3;
  slow.verdict = "slow_under_load";
  slow.why = "p99 60 us beside the load, 10 us idle";
  record["probes"] = probe_verdict_json({slow}, 5, VerdictCriteria{});
  index += record.dump() + "\n";
  json flow = doc;
  flow["results"] = json::array({doc["results"][10]});
  index += round_record("pairwise 1/3", 0, 1, kValues,
                        {{"h2", "h1", brief_of(flow), 0, 0}, {"h10", "h3", brief_of(flow), 0, 0}},
                        "2026-11-25T00:00:00Z")
               .dump() +
           "\n";
  write_text(dir / "index.jsonl", index);
}

TEST(LinkMatrix, HostsInNaturalOrder) {
  EXPECT_TRUE(natural_less("h2", "h10"));
  EXPECT_FALSE(natural_less("h10", "h2"));
  EXPECT_TRUE(natural_less("node-1-a", "node-1-b"));
  EXPECT_TRUE(natural_less("h02", "h3"));
  EXPECT_FALSE(natural_less("h1", "h1"));
}

TEST(LinkMatrix, ACellPerLinkWithItsBestFigureAndTheVerdictsMarks) {
  TempDir t;
  write_fabric_folder(t.path());
  std::ostringstream notes;
  const auto runs = load_results({t.path().string()}, notes);
  const auto index = read_text(t.path() / "index.jsonl");
  const LinkMarks marks =
      link_marks(verdicts_record_from_json(parse_records(index, kVerdictsRecord).back()));
  EXPECT_EQ(marks.size(), 3u);  // the ok link is not a mark; the slow probe's link is
  const std::vector<Figure> figs = link_matrix_figures(runs, marks, "png");
  ASSERT_EQ(figs.size(), 1u);
  EXPECT_EQ(figs[0].name, "link_matrix");
  // Block 0: "client server value" per cell, hosts h1 h2 h3 h10 as indices 0..3.
  std::istringstream in(figs[0].data);
  std::map<std::pair<int, int>, std::string> cell, label;
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("# hosts:", 0) == 0) {
      EXPECT_EQ(line, "# hosts: h1 h2 h3 h10");
    }
    if (line.empty() || line[0] == '#') continue;
    std::istringstream l(line);
    int c = 0, s = 0;
    std::string rest;
    l >> c >> s;
    std::getline(l >> std::ws, rest);
    (rest.front() == '"' ? label : cell)[{c, s}] = rest;
  }
  EXPECT_EQ(cell.size(), 16u);               // the whole grid
  EXPECT_EQ(cell.at({0, 0}), "NaN");         // a host with itself
  EXPECT_EQ(cell.at({2, 1}), "NaN");         // h3 -> h2: not measured
  EXPECT_EQ(cell.at({0, 2}), "4");           // h1 -> h3: its best repetition, 2 + 2
  EXPECT_EQ(cell.at({3, 0}), "103");         // h10 -> h1: 100 + 1 + 2
  EXPECT_EQ(label.at({0, 2}), "\"4 BAD\"");  // marked bad
  EXPECT_EQ(label.at({1, 0}), "\"23 congested\"");
  EXPECT_EQ(label.at({0, 1}), "\"14\"");  // h1 -> h2: ok, just its figure
  EXPECT_NE(figs[0].script.find("with image"), std::string::npos);
  EXPECT_NE(figs[0].script.find("(2 marked)"), std::string::npos);
}

TEST(LinkMatrix, PlotOfAFabricFolderDrawsItWithGnuplot) {
  TempDir t;
  write_fabric_folder(t.path() / "fab");
  PlotOptions opt;
  opt.inputs = {(t.path() / "fab").string()};
  opt.out_dir = (t.path() / "plots").string();
  std::ostringstream notes;
  const auto images = run_plot(opt, notes);
  const fs::path png = t.path() / "plots" / "link_matrix.png";
  EXPECT_TRUE(std::find(images.begin(), images.end(), png.string()) != images.end());
  ASSERT_TRUE(fs::exists(png));
  EXPECT_EQ(read_text(png).substr(1, 3), "PNG");
  EXPECT_NE(read_text(t.path() / "plots" / "link_matrix.gp").find("BAD"), std::string::npos);
}

// With a link that lost packets (h1 -> h3's 64 KiB size: 1,000 gaps in 1,000,000 packets, its own
// deltas), a loss matrix is drawn beside the figure's: that link's cell, the others 0, and a
// link whose deltas were shared blank.
TEST(LinkMatrix, ALossMatrixWhenALinkLostPackets) {
  TempDir t;
  write_fabric_folder(t.path());
  for (const char* id : {"h1-h3-r1", "h1-h3-r2"}) {
    json d = read_json(t.path() / (std::string(id) + ".json"));
    d["results"][1]["counters"] = {
        {"client", {{"hw_counters/sent_pkts", 500000}, {"hw_counters/rcvd_seq_err", 500}}},
        {"server", {{"hw_counters/sent_pkts", 500000}, {"hw_counters/out_of_seq_request", 500}}}};
    write_text(t.path() / (std::string(id) + ".json"), d.dump());
  }
  json shared = read_json(t.path() / "h2-h1-r1.json");
  shared["point"]["fabric"]["counters_shared"] = true;
  write_text(t.path() / "h2-h1-r1.json", shared.dump());
  std::ostringstream notes;
  const auto runs = load_results({t.path().string()}, notes);
  const std::vector<Figure> figs = link_matrix_figures(runs, {}, "png");
  ASSERT_EQ(figs.size(), 2u);
  EXPECT_EQ(figs[1].name, "link_loss");
  EXPECT_NE(figs[1].script.find("gaps per million packets"), std::string::npos);
  std::istringstream in(figs[1].data);
  std::map<std::pair<int, int>, std::string> cell;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#' || line.find('"') != std::string::npos) continue;
    std::istringstream l(line);
    int c = 0, s = 0;
    std::string v;
    l >> c >> s >> v;
    cell[{c, s}] = v;
  }
  EXPECT_EQ(cell.at({0, 2}), "1000");  // h1 -> h3
  EXPECT_EQ(cell.at({0, 1}), "0");     // h1 -> h2: clean
  EXPECT_EQ(cell.at({1, 0}), "0");     // h2 -> h1: its second repetition had its deltas alone
  // Without a lost packet anywhere, no loss matrix (ACellPerLink... above: one figure).
}

// Latency probes: instead of a matrix of the probes' own figures, each probed link's worst p99
// beside the load over its idle p99, the slow one marked.
TEST(LinkMatrix, ProbesGiveTheirLoadIdleRatio) {
  TempDir t;
  const json doc = read_json(results_fixture("lat/send.json"));
  const json probe_values = {{"op", "send"}, {"mode", "lat"}, {"sizes", {8}}};
  auto write = [&](const std::string& name, const std::string& client, const std::string& kind,
                   double p99) {
    json d = doc;
    d["results"] = json::array({doc["results"][0]});
    d["results"][0]["latency"]["p99"] = p99;
    d["point"] = {{"point_id", name},
                  {"matrix", probe_values},
                  {"fabric", {{"server", "h1"}, {"client", client}, {"probe", kind}}}};
    write_text(t.path() / (name + ".json"), d.dump());
  };
  write("i2", "h2", "idle", 10000);
  write("l2a", "h2", "load", 30000);
  write("l2b", "h2", "load", 60000);  // the worst beside the load counts
  write("i3", "h3", "idle", 20000);
  write("l3", "h3", "load", 30000);
  std::ostringstream notes;
  const auto runs = load_results({t.path().string()}, notes);
  VerdictsRecord record;
  ProbeNotOk slow;
  slow.link = "h2 -> h1";
  slow.verdict = "slow_under_load";
  record.probes = ProbeVerdicts{};
  record.probes->not_ok.push_back(slow);
  const std::vector<Figure> figs = link_matrix_figures(runs, link_marks(record), "png");
  ASSERT_EQ(figs.size(), 1u);
  EXPECT_EQ(figs[0].name, "link_probe_ratio");
  // Hosts h1 h2 h3: h2 -> h1 is client 1, server 0: 60 / 10; h3 -> h1: 30 / 20.
  EXPECT_NE(figs[0].data.find("\n1 0 6\n"), std::string::npos) << figs[0].data;
  EXPECT_NE(figs[0].data.find("\n2 0 1.5\n"), std::string::npos) << figs[0].data;
  EXPECT_NE(figs[0].data.find("1 0 \"6 SLOW\""), std::string::npos) << figs[0].data;
  EXPECT_NE(figs[0].script.find("probe p99 beside the load / idle"), std::string::npos);
}

TEST(LinkMatrix, NoneWithoutFabricDocuments) {
  std::ostringstream notes;
  const auto runs = load_results({results_fixture("bw")}, notes);
  EXPECT_TRUE(link_matrix_figures(runs, {}, "png").empty());
  // A verdicts line that does not read is refused where the folder is read, naming the member.
  std::vector<std::string> refused;
  EXPECT_FALSE(last_verdicts_record(
                   {json::parse(R"({"record": "verdicts", "not_ok": [1, {"link": 2}]})")}, refused)
                   .has_value());
  ASSERT_EQ(refused.size(), 1u);
  EXPECT_NE(refused[0].find("/criteria"), std::string::npos) << refused[0];
}

TEST(FabricReport, VerdictsRoundsAndTheMatrixAreInThePage) {
  TempDir t;
  write_fabric_folder(t.path() / "fab");
  ReportOptions opt;
  opt.inputs = {(t.path() / "fab").string()};
  opt.out_file = (t.path() / "r.html").string();
  std::ostringstream notes;
  run_report(opt, notes);
  const std::string html = read_text(t.path() / "r.html");
  EXPECT_NE(html.find("<section id=\"fabric\">"), std::string::npos);
  EXPECT_NE(html.find("3 link measurement(s) judged"), std::string::npos) << html;
  EXPECT_NE(html.find("1 bad</span>"), std::string::npos);
  EXPECT_NE(html.find("data-link=\"h1 -&gt; h3\""), std::string::npos);
  EXPECT_NE(html.find("data-link=\"h2 -&gt; h1\""), std::string::npos);
  EXPECT_EQ(html.find("data-link=\"h1 -&gt; h2\""), std::string::npos) << "an ok link is listed";
  EXPECT_NE(html.find("<tr class=\"round\"><td>pairwise 1/3</td>"), std::string::npos);
  EXPECT_NE(html.find("Link matrix: every link of the fabric"), std::string::npos);
  // The probes: 6 beside the load, 5 ok, the slow one listed with its figures.
  EXPECT_NE(html.find("6 probe(s) beside the load, each against its link's idle p99 (slow under "
                      "load: load/idle p99 above 3 and the probes&#39; median + 5 MAD)"),
            std::string::npos)
      << html;
  EXPECT_NE(html.find("<tr class=\"probe\" data-link=\"h3 -&gt; h1\"><td><code>h3 -&gt; h1</code>"
                      "</td><td class=\"bad\">slow_under_load</td><td>incast 2-&gt;host0</td>"),
            std::string::npos)
      << html;
}

}  // namespace
}  // namespace rdmabench
