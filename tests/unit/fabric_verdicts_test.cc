// Per-link verdicts (orchestrator/fabric/fabric_verdicts.h): the criteria block, the relative and
// absolute judgements, the best of repetitions, failed flows, the retest's settlement and the
// index record.
#include "orchestrator/fabric/fabric_verdicts.h"

#include <gtest/gtest.h>

#include <deque>
#include <string>
#include <vector>

#include "base/error.h"
#include "tests/unit/test_util.h"

namespace rdmabench {
namespace {

using nlohmann::json;

json bw_doc(double gbps, double speed = 0) {
  json d = {{"results", {{{"size", 4096}, {"gbps", gbps}, {"error", nullptr}}}}};
  if (speed > 0)
    d["devices"] = {{"client", {{"speed_gbps", speed}}}, {"server", {{"speed_gbps", speed}}}};
  return d;
}

json lat_doc(double p50) {
  return {{"results", {{{"size", 64}, {"gbps", 0.1}, {"latency", {{"p50", p50}}}}}}};
}

const json kBw = {{"op", "write"}, {"sizes", {4096}}};
const json kLat = {{"op", "write"}, {"mode", "lat"}, {"sizes", {64}}};

LinkRun run(size_t pair, const json& values, const json& doc, const std::string& error = "") {
  static std::deque<std::string> ids;  // a run's point id outlives the judge, as a Point's does
  return {pair,
          "h" + std::to_string(pair) + " -> h9",
          &values,
          ids.emplace_back("p" + std::to_string(pair)),
          doc.is_null() ? std::nullopt : std::optional(brief_of(doc)),
          error};
}

const LinkVerdict& of(const std::vector<LinkVerdict>& v, size_t pair) {
  for (const auto& x : v)
    if (x.pair == pair) return x;
  throw std::runtime_error("no verdict for pair " + std::to_string(pair));
}

TEST(FabricVerdicts, CriteriaDefaultsAndErrorsNameTheField) {
  const VerdictCriteria d = parse_verdict_criteria(json::object(), "/fabric/verdicts");
  EXPECT_EQ(d.bw_fraction, 0.93);
  EXPECT_EQ(d.lat_factor, 2.1);
  EXPECT_FALSE(d.port_fraction.has_value());
  EXPECT_TRUE(d.retest);
  const VerdictCriteria c = parse_verdict_criteria(
      {{"bw_fraction", 0.8}, {"port_fraction", 0.5}, {"retest", false}}, "/fabric/verdicts");
  EXPECT_EQ(c.bw_fraction, 0.8);
  EXPECT_EQ(*c.port_fraction, 0.5);
  EXPECT_FALSE(c.retest);
  for (const auto& [bad, field] : std::vector<std::pair<json, std::string>>{
           {{{"bw_fraction", 1.5}}, "/fabric/verdicts/bw_fraction"},
           {{{"bw_fraction", 0}}, "/fabric/verdicts/bw_fraction"},
           {{{"lat_factor", 0.9}}, "/fabric/verdicts/lat_factor"},
           {{{"port_fraction", "half"}}, "/fabric/verdicts/port_fraction"},
           {{{"retest", "yes"}}, "/fabric/verdicts/retest"},
           {{{"bw_frac", 0.9}}, "/fabric/verdicts/bw_frac"},
           {json::array(), "/fabric/verdicts"}}) {
    const ConfigError e = testutil::catch_config_error(
        [&, b = bad] { parse_verdict_criteria(b, "/fabric/verdicts"); });
    EXPECT_EQ(e.field(), field) << e.what();
  }
}

TEST(FabricVerdicts, BandwidthBelowTheShareOfTheBestLinkIsSuspect) {
  const auto v = judge_links({run(0, kBw, bw_doc(10)), run(1, kBw, bw_doc(9.5)),
                              run(2, kBw, bw_doc(8)), run(3, kBw, nullptr, "lost the connection")},
                             VerdictCriteria{});
  ASSERT_EQ(v.size(), 4u);
  EXPECT_EQ(of(v, 0).verdict, "ok");
  EXPECT_EQ(of(v, 1).verdict, "ok");  // 0.95 of the best
  EXPECT_EQ(of(v, 2).verdict, "suspect");
  EXPECT_EQ(of(v, 2).best, 10);
  EXPECT_EQ(of(v, 2).why, "8 Gb/s against the best link's 10 Gb/s");
  EXPECT_EQ(of(v, 3).verdict, "failed");
  EXPECT_EQ(of(v, 3).why, "lost the connection");
}

TEST(FabricVerdicts, LatencyAboveTheFactorOfTheBestIsSuspect) {
  const auto v = judge_links(
      {run(0, kLat, lat_doc(1000)), run(1, kLat, lat_doc(2000)), run(2, kLat, lat_doc(2200))},
      VerdictCriteria{});
  EXPECT_EQ(of(v, 0).metric, "p50_ns");
  EXPECT_EQ(of(v, 1).verdict, "ok");  // 2.0x
  EXPECT_EQ(of(v, 2).verdict, "suspect");
}

TEST(FabricVerdicts, ALinksFigureIsItsBestRepetitionAndCombinationsAreApart) {
  const json other = {{"op", "send"}, {"sizes", {4096}}};
  const auto v =
      judge_links({run(0, kBw, bw_doc(10)), run(1, kBw, bw_doc(5)), run(1, kBw, bw_doc(9.9)),
                   run(0, other, bw_doc(2)), run(1, other, bw_doc(2))},
                  VerdictCriteria{});
  ASSERT_EQ(v.size(), 4u);  // two links at two combinations
  for (const auto& x : v) EXPECT_EQ(x.verdict, "ok") << x.link << " " << x.values->dump();
}

TEST(FabricVerdicts, AbsoluteVerdictAgainstThePortSpeedWhenAsked) {
  VerdictCriteria c;
  auto v = judge_links({run(0, kBw, bw_doc(10, 100)), run(1, kBw, bw_doc(10, 100))}, c);
  EXPECT_EQ(of(v, 0).verdict, "ok");  // off by default
  c.port_fraction = 0.5;
  v = judge_links({run(0, kBw, bw_doc(10, 100)), run(1, kBw, bw_doc(60, 100))}, c);
  EXPECT_EQ(of(v, 1).verdict, "ok");
  EXPECT_EQ(of(v, 0).verdict, "suspect");
  v = judge_links({run(0, kBw, bw_doc(40, 100)), run(1, kBw, bw_doc(40, 100))}, c);
  EXPECT_EQ(of(v, 0).verdict, "suspect");  // every link equal, all under half the port speed
  EXPECT_EQ(of(v, 0).why, "40 Gb/s, below 50 % of the port speed (100 Gb/s)");
}

TEST(FabricVerdicts, TheRetestAloneSettlesASuspect) {
  const VerdictCriteria c;
  auto v = judge_links({run(0, kBw, bw_doc(10)), run(1, kBw, bw_doc(5))}, c);
  LinkVerdict congested = of(v, 1);
  settle(congested, 9.8, "", c);
  EXPECT_EQ(congested.verdict, "congested");
  EXPECT_EQ(*congested.alone, 9.8);
  LinkVerdict bad = of(v, 1);
  settle(bad, 5.1, "", c);
  EXPECT_EQ(bad.verdict, "bad");
  EXPECT_NE(bad.why.find("alone still 5.1 Gb/s"), std::string::npos) << bad.why;
  LinkVerdict failed = of(v, 1);
  settle(failed, std::nullopt, "the server refused", c);
  EXPECT_EQ(failed.verdict, "bad");
  EXPECT_NE(failed.why.find("its retest alone failed: the server refused"), std::string::npos);
  LinkVerdict unretested = of(v, 1);
  VerdictCriteria no_retest;
  no_retest.retest = false;
  settle(unretested, std::nullopt, "", no_retest);
  EXPECT_EQ(unretested.verdict, "bad");
  LinkVerdict ok = of(v, 0);
  settle(ok, 1.0, "", c);  // only suspects change
  EXPECT_EQ(ok.verdict, "ok");

  v = {of(v, 0), bad, congested};
  const auto r = verdict_record(v, c, "t");
  EXPECT_EQ(r["record"], "verdicts");
  EXPECT_EQ(r["judged"], 3);
  EXPECT_EQ(r["counts"]["ok"], 1);
  EXPECT_EQ(r["counts"]["bad"], 1);
  EXPECT_EQ(r["counts"]["congested"], 1);
  ASSERT_EQ(r["not_ok"].size(), 2u);
  EXPECT_EQ(r["not_ok"][0]["link"], "h1 -> h9");
  EXPECT_EQ(r["not_ok"][0]["alone"], 5.1);
  EXPECT_EQ(r["criteria"]["bw_fraction"], 0.93);
  const auto lines = verdict_lines(v);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0],
            "verdicts: 3 link measurement(s): 1 ok, 1 congested, 1 bad, 0 lossy, 0 failed");
  EXPECT_EQ(lines[1].rfind("  bad: h1 -> h9 at 4K: 5 Gb/s against", 0), 0u) << lines[1];
  EXPECT_NE(lines[1].find("[rule bw_fraction]"), std::string::npos) << lines[1];
}

// A document with rxe-like counter deltas: `sent` packets on each side, `lost` gaps
// (out-of-sequence arrivals at the server, sequence-error NAKs at the client), and as many
// retries, which do not count.
json lossy_doc(double gbps, double sent, double lost, bool shared = false) {
  json d = bw_doc(gbps);
  d["counters"] = {
      {"client",
       {{"hw_counters/sent_pkts", sent},
        {"hw_counters/rcvd_seq_err", lost / 2},
        {"hw_counters/completer_retry_err", lost}}},
      {"server", {{"hw_counters/sent_pkts", sent}, {"hw_counters/out_of_seq_request", lost / 2}}}};
  if (shared) d["point"] = {{"fabric", {{"counters_shared", true}}}};
  return d;
}

TEST(FabricVerdicts, ALinkThatLosesPacketsIsLossyWhileItsBandwidthPasses) {
  const VerdictCriteria c;  // loss_k 5, loss_floor_ppm 1000
  // Five clean-ish links (0-75 loss events per million packets) and one at 5,000 per million
  // that still reaches 96 % of the best bandwidth.
  std::vector<LinkRun> runs;
  const double clean[] = {0, 50, 100, 150, 100};
  for (size_t i = 0; i < 5; ++i) runs.push_back(run(i, kBw, lossy_doc(10, 500000, clean[i] / 2)));
  runs.push_back(run(5, kBw, lossy_doc(9.6, 500000, 5000)));
  const auto v = judge_links(runs, c);
  for (size_t i = 0; i < 5; ++i) EXPECT_EQ(of(v, i).verdict, "ok") << i;
  const LinkVerdict& l = of(v, 5);
  EXPECT_EQ(l.verdict, "lossy");
  EXPECT_EQ(l.rules, std::vector<std::string>{"lossy"});
  EXPECT_DOUBLE_EQ(*l.loss_ppm, 5000.0);
  EXPECT_DOUBLE_EQ(l.loss_threshold_ppm, 1000.0);  // median 50 + 5 x MAD 25 = 175: the floor wins
  EXPECT_NE(l.why.find("its figure passes: 9.6 Gb/s"), std::string::npos) << l.why;
  const auto r = verdict_record(v, c, "t");
  EXPECT_EQ(r["counts"]["lossy"], 1);
  EXPECT_EQ(r["not_ok"][0]["rules"].dump(), R"(["lossy"])");
  EXPECT_EQ(r["not_ok"][0]["loss_ppm"], 5000.0);
  EXPECT_EQ(r["criteria"]["loss_floor_ppm"], 1000.0);
  const auto lines = verdict_lines(v);
  EXPECT_EQ(lines[1].rfind("  lossy: h5 -> h9 at 4K: ", 0), 0u) << lines[1];
  EXPECT_NE(lines[1].find("[rule lossy]"), std::string::npos) << lines[1];
}

// The sweep's judge at a million links: names asked of a function only for the links it lists,
// each group's table made for every link at once, a lossy and a failed link among them; the same
// verdicts as a judge that keeps every run's name.
TEST(FabricVerdicts, AJudgeThatNamesLinksOnDemandGivesTheSameVerdicts) {
  std::vector<LinkRun> runs;
  for (size_t i = 0; i < 5; ++i) runs.push_back(run(i, kBw, lossy_doc(10, 500000, 20)));
  runs.push_back(run(5, kBw, lossy_doc(9.6, 500000, 5000)));
  runs.push_back(run(6, kBw, bw_doc(2)));
  runs.push_back(run(7, kBw, nullptr, "connection refused"));
  std::vector<size_t> asked;
  LinkJudge named(
      [&](size_t pair) {
        asked.push_back(pair);
        return "h" + std::to_string(pair) + " -> h9";
      },
      10);
  for (LinkRun r : runs) {
    r.link.clear();
    named.add(r);
  }
  size_t ok = 0;
  const auto v = named.finish(VerdictCriteria{}, false, &ok);
  EXPECT_EQ(ok, 5u);
  EXPECT_EQ(asked, (std::vector<size_t>{5, 6, 7}));  // only the links listed
  const auto all = judge_links(runs, VerdictCriteria{});
  ASSERT_EQ(v.size(), 3u);
  for (const LinkVerdict& x : v) {
    const LinkVerdict& y = of(all, x.pair);
    EXPECT_EQ(x.link, y.link);
    EXPECT_EQ(x.verdict, y.verdict) << x.pair;
    EXPECT_EQ(x.why, y.why) << x.pair;
    EXPECT_EQ(x.value, y.value) << x.pair;
    EXPECT_EQ(x.loss_ppm, y.loss_ppm) << x.pair;
    EXPECT_EQ(x.point_id, y.point_id) << x.pair;
  }
  EXPECT_EQ(of(v, 5).verdict, "lossy");
  EXPECT_EQ(of(v, 6).verdict, "suspect");
  EXPECT_EQ(of(v, 7).verdict, "failed");
  EXPECT_EQ(of(v, 7).why, "connection refused");
}

TEST(FabricVerdicts, TheLossThresholdFollowsThePopulationAndSharedDeltasDoNotCount) {
  VerdictCriteria c;
  c.loss_floor_ppm = 10;
  // Every link loses about 2,000 per million (a lossy hub for all): none stands out.
  std::vector<LinkRun> runs;
  for (size_t i = 0; i < 6; ++i)
    runs.push_back(run(i, kBw, lossy_doc(10, 100000, 200 + 3 * static_cast<double>(i))));
  auto v = judge_links(runs, c);
  for (size_t i = 0; i < 6; ++i) EXPECT_EQ(of(v, i).verdict, "ok") << of(v, i).why;
  // A link whose deltas were shared with another flow of its round is never lossy by them.
  runs.push_back(run(6, kBw, lossy_doc(10, 100000, 50000, true)));
  v = judge_links(runs, c);
  EXPECT_EQ(of(v, 6).verdict, "ok");
  EXPECT_TRUE(of(v, 6).loss_shared);
  EXPECT_FALSE(of(v, 6).loss_ppm.has_value());
  // A link that is slow and lossy: its bandwidth verdict stands, and lossy is its second rule.
  runs.push_back(run(7, kBw, lossy_doc(2, 100000, 50000)));
  v = judge_links(runs, c);
  EXPECT_EQ(of(v, 7).verdict, "suspect");
  EXPECT_EQ(of(v, 7).rules, (std::vector<std::string>{"bw_fraction", "lossy"}));
  EXPECT_NE(of(v, 7).why.find("; lossy too: "), std::string::npos) << of(v, 7).why;
  // No floor: no loss verdict at all.
  c.loss_floor_ppm.reset();
  v = judge_links(runs, c);
  EXPECT_FALSE(of(v, 7).lossy);
}

TEST(FabricVerdicts, LossCriteriaAreCheckedByName) {
  const VerdictCriteria c =
      parse_verdict_criteria({{"loss_k", 3}, {"loss_floor_ppm", 200}}, "/fabric/verdicts");
  EXPECT_EQ(c.loss_k, 3);
  EXPECT_EQ(*c.loss_floor_ppm, 200);
  EXPECT_FALSE(parse_verdict_criteria({{"loss_floor_ppm", nullptr}}, "/v").loss_floor_ppm);
  try {
    parse_verdict_criteria({{"loss_floor_ppm", -1}}, "/fabric/verdicts");
    FAIL() << "accepted a negative floor";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("/fabric/verdicts/loss_floor_ppm"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace rdmabench
