// The figures of a fabric's round records (report/round_figures.h): each host's in/out Gb/s in
// an incast or all-to-all round, and Jain's fairness against the incast degree. The records are
// written by the orchestrator's own round_record, from a committed fixture's document.
#include "report/round_figures.h"

#include <gtest/gtest.h>

#include <sstream>

#include "orchestrator/fabric/round_summary.h"
#include "report/plot.h"
#include "tests/unit/report_test_util.h"

namespace rdmabench {
namespace {

using namespace testutil;
using nlohmann::json;

const json kValues = {{"op", "write"}, {"sizes", {65536}}};

// A flow of `gbps` from `client` to `server` at 64 KiB.
RoundFlowResult flow(const std::string& client, const std::string& server, double gbps) {
  static const json doc = read_json(results_fixture("qp/write_rc.json"));
  json d = doc;
  d["results"] = json::array({doc["results"][10]});
  d["results"][0]["gbps"] = gbps;
  return {server, client, brief_of(d), 0, 0};
}

json record(const std::string& label, const std::vector<RoundFlowResult>& flows) {
  return json::parse(round_record(label, 0, 1, kValues, flows, "2026-11-25T00:00:00Z").dump());
}

// Round records as the report reads them (model/round_record.h); `refused`: how many lines
// are expected not to be round records.
std::vector<RoundRecord> typed(const std::vector<json>& lines, size_t refused = 0) {
  std::vector<std::string> why;
  std::vector<RoundRecord> out = round_records_from_json(lines, why);
  EXPECT_EQ(why.size(), refused) << (why.empty() ? "" : why.front());
  return out;
}

// Incast into h0 at degrees 1 and 2 (fair), and 3 (one client starved); a pairwise round, a
// round split by the per-host cap and an all-to-all round of two hosts.
std::vector<json> records() {
  return {
      record("incast 1->host0", {flow("h1", "h0", 5)}),
      record("incast 2->host0", {flow("h1", "h0", 4), flow("h2", "h0", 4)}),
      record("incast 3->host0", {flow("h1", "h0", 6), flow("h2", "h0", 6), flow("h3", "h0", 0)}),
      record("pairwise 1/3", {flow("h1", "h0", 9), flow("h3", "h2", 9)}),
      record("incast 3->host1 part 1/2", {flow("h2", "h1", 1), flow("h3", "h1", 1)}),
      record("all-to-all", {flow("h0", "h1", 2), flow("h1", "h0", 3)})};
}

TEST(RoundFigures, HostTrafficPerIncastAndAllToAllRoundAndFairnessPerDegree) {
  std::ostringstream notes;
  const std::vector<Figure> figs = round_figures(typed(records()), "png", notes);
  std::vector<std::string> names;
  for (const Figure& f : figs) names.push_back(f.name);
  // Three incast rounds and the all-to-all (not pairwise, not the split part), then fairness.
  EXPECT_EQ(names, (std::vector<std::string>{"host_traffic", "host_traffic_2", "host_traffic_3",
                                             "host_traffic_4", "incast_fairness"}));
  // Incast 3: h0 served 12 Gb/s in all, each client sent its own.
  const std::string& t3 = figs[2].data;
  EXPECT_NE(t3.find("\"h0\" 12 0\n"), std::string::npos) << t3;
  EXPECT_NE(t3.find("\"h1\" 0 6\n"), std::string::npos) << t3;
  EXPECT_NE(t3.find("\"h3\" 0 0\n"), std::string::npos) << t3;
  EXPECT_NE(figs[3].data.find("\"h0\" 3 2\n"), std::string::npos) << figs[3].data;
  EXPECT_NE(figs[3].script.find("Host traffic: all-to-all at 64KiB"), std::string::npos);
  // Fairness: 1 at degrees 1 and 2, (12^2) / (3 * 72) = 2/3 at degree 3; one target.
  const std::string& fair = figs[4].data;
  EXPECT_NE(fair.find("# target host0\n1 1\n2 1\n3 0.66666"), std::string::npos) << fair;
  EXPECT_EQ(fair.find("host1"), std::string::npos) << "the split round is left out";
  EXPECT_TRUE(notes.str().empty());
}

TEST(RoundFigures, NoneForPairwiseOrLatencyOrMalformedRecords) {
  std::ostringstream notes;
  json lat = record("incast 1->host0", {flow("h1", "h0", 5)});
  for (auto& s : lat["sizes"]) s.erase("hosts");  // latency rounds carry no per-host rates
  EXPECT_TRUE(round_figures(typed({record("pairwise 1/3", {flow("h1", "h0", 9)}), lat, json(7),
                                   json::parse(R"({"round": "incast 2->host0", "sizes": [1]})")},
                                  2),
                            "png", notes)
                  .empty());
}

// A latency probe's brief: p99 `p99_us` at 8 bytes.
RoundProbe probe(const std::string& client, const std::string& server, double p99_us,
                 double idle_us) {
  ResultBrief b;
  b.document = true;
  SizeBrief s;
  s.size = 8;
  s.p99_ns = p99_us * 1000;
  b.sizes.push_back(s);
  return {{server, client, b, 0, 0}, {{8, idle_us * 1000}}};
}

TEST(RoundFigures, ProbeP99AgainstTheIncastDegreePerTarget) {
  std::vector<json> r;
  for (int degree = 1; degree <= 3; ++degree) {
    std::vector<RoundFlowResult> load;
    std::vector<RoundProbe> probes;
    for (int c = 1; c <= degree; ++c) {
      load.push_back(flow("h" + std::to_string(c), "h0", 4));
      probes.push_back(probe("h" + std::to_string(c), "h0", 10.0 * degree * c, 5));
    }
    r.push_back(json::parse(round_record("incast " + std::to_string(degree) + "->host0", 0, 1,
                                         kValues, load, "t", probes)
                                .dump()));
  }
  r.push_back(record("incast 1->host1", {flow("h2", "h1", 5)}));  // no probes: no point
  std::ostringstream notes;
  const std::vector<Figure> figs = round_figures(typed(r), "png", notes);
  ASSERT_GE(figs.size(), 2u);
  const Figure& incast = figs[figs.size() - 2];
  ASSERT_EQ(incast.name, "incast_probe_p99");
  // The worst probe per degree (degree x the last client's 10 us x degree), the idle at 0.
  EXPECT_NE(incast.data.find("# target host0\n0 5\n1 10\n2 40\n3 90\n"), std::string::npos)
      << incast.data;
  EXPECT_EQ(incast.data.find("host1"), std::string::npos) << incast.data;
  EXPECT_NE(incast.script.find("Latency probes under incast — load write"), std::string::npos);
  // Latency against load: each probe at its round's total Gb/s (4, 8, 12 at 64 KiB).
  const Figure& load = figs.back();
  ASSERT_EQ(load.name, "probe_p99_load");
  EXPECT_NE(load.data.find("4 10\n8 20\n8 40\n12 30\n12 60\n12 90\n"), std::string::npos)
      << load.data;
}

TEST(RoundFigures, PlotOfAFolderRendersThemWithGnuplot) {
  TempDir t;
  const fs::path dir = t.path() / "fab";
  fs::create_directories(dir);
  // One flow document (plot needs a measurement) and the records in the index.
  json doc = read_json(results_fixture("qp/write_rc.json"));
  write_text(dir / "f.json", doc.dump());
  std::string index;
  for (const json& r : records()) index += r.dump() + "\n";
  index += round_record("incast 1->host0", 0, 1, kValues, {flow("h1", "h0", 5)}, "t",
                        {probe("h1", "h0", 20, 10)})
               .dump() +
           "\n";
  write_text(dir / "index.jsonl", index);
  PlotOptions opt;
  opt.inputs = {dir.string()};
  opt.out_dir = (t.path() / "plots").string();
  std::ostringstream notes;
  run_plot(opt, notes);
  for (const char* name : {"host_traffic_3.png", "incast_fairness.png", "incast_probe_p99.png",
                           "probe_p99_load.png"}) {
    const fs::path png = t.path() / "plots" / name;
    ASSERT_TRUE(fs::exists(png)) << name;
    EXPECT_EQ(read_text(png).substr(1, 3), "PNG") << name;
  }
}

}  // namespace
}  // namespace rdmabench
