// Latency probes beside a fabric's load (orchestrator/fabric/fabric_probes.h, probe_verdicts.h):
// the "probes" block and its errors, the idle round first, probe points with ids of their own
// (the load's unchanged), probes joining their load's round, the round record's ratios and the
// slow-under-load rule.
#include "orchestrator/fabric/fabric_probes.h"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>

#include "model/campaign_index.h"
#include "orchestrator/campaign/campaign.h"
#include "orchestrator/fabric/fabric_driver.h"
#include "orchestrator/fabric/fabric_point.h"
#include "orchestrator/fabric/fabric_run.h"
#include "orchestrator/fabric/probe_verdicts.h"
#include "orchestrator/fabric/round_summary.h"
#include "orchestrator/launch/result_brief.h"
#include "orchestrator/sweep/sweep.h"
#include "tests/unit/report_test_util.h"
#include "tests/unit/test_util.h"

namespace rdmabench {
namespace {

using nlohmann::json;

// Incast of degrees 1 and 2 into host a, over a, b, c.
json incast_campaign(const json& probes) {
  json j = json::parse(R"({"name": "probed", "matrix": {"op": ["write"], "sizes": [[65536]],
                           "duration_s": 2},
                           "fabric": {"hosts": ["a", "b", "c"],
                                      "pattern": {"pattern": "incast", "degrees": [1, 2],
                                                  "targets": [0]}}})");
  if (!probes.is_null()) j["fabric"]["probes"] = probes;
  return j;
}

const json kProbe = {{"workload", {{"op", "send"}, {"sizes", {8}}, {"duration_s", 1}}}};

const CampaignOptions kAllKinds{"", {}, campaign_kinds()};
Campaign parse(const json& j) {
  return parse_campaign(j, "/campaigns", "/usr/bin/rdmabench", kAllKinds);
}

std::string error_path(const json& j) {
  return testutil::catch_config_error([&] { parse(j); }).field();
}

TEST(FabricProbes, TheIdleRoundComesFirstAndTheLoadKeepsItsIds) {
  const Campaign plain = parse(incast_campaign(nullptr));
  const Campaign probed = parse(incast_campaign(kProbe));
  ASSERT_TRUE(fabric_spec(probed)->probes);
  EXPECT_EQ(fabric_spec(probed)->probes->values["mode"], "lat");  // the probe's mode, always
  // The idle round probes every load link once (b -> a, c -> a), each alone on its hosts (two
  // parts: both probes go into a), then the two incast rounds.
  ASSERT_EQ(fabric_spec(probed)->rounds.size(), 4u);
  EXPECT_EQ(fabric_spec(probed)->rounds[0].label, "probes idle part 1/2");
  EXPECT_EQ(fabric_spec(probed)->rounds[0].flows, (std::vector<Flow>{{0, 1}}));
  EXPECT_EQ(fabric_spec(probed)->rounds[1].flows, (std::vector<Flow>{{0, 2}}));
  EXPECT_EQ(fabric_spec(probed)->rounds[2].index, 2u);
  EXPECT_EQ(fabric_spec(probed)->rounds[3].label, "incast 2->host0");

  const Expansion xp = expand(plain);
  const Expansion x = expand(probed);
  std::set<std::string> plain_ids;
  for (const Point& p : xp.points) plain_ids.insert(p.id);
  std::set<std::string> load_ids;
  std::set<std::string> all_ids;
  size_t idle = 0;
  size_t beside = 0;
  for (const Point& p : x.points) {
    EXPECT_TRUE(all_ids.insert(p.id).second) << "a point id twice: " << p.id;
    if (!FabricPoint(p).probe()) load_ids.insert(p.id);
    idle += FabricPoint(p).idle_probe() ? 1 : 0;
    beside += FabricPoint(p).beside() == 0u ? 1 : 0;
  }
  EXPECT_EQ(load_ids, plain_ids);  // the load's points and ids as without probes
  EXPECT_EQ(idle, 2u);
  EXPECT_EQ(beside, 3u);  // one probe per load flow: 1 + 2
  // The idle probes come first in the expansion; each load round's probes after its load flows.
  EXPECT_TRUE(FabricPoint(x.points[0]).idle_probe());
  EXPECT_FALSE(FabricPoint(x.points[2]).probe());
  EXPECT_EQ(FabricPoint(x.points[3]).beside(), 0u);  // beside combination 0's load
  EXPECT_EQ(round_work(x, x.points[3]), x.points[2].work.get());
  EXPECT_NE(x.points[3].id.find("send-rc-lat-8"), std::string::npos) << x.points[3].id;
}

TEST(FabricProbes, ProbesJoinTheirLoadsRoundUnderTheCap) {
  const Campaign c = parse(incast_campaign(kProbe));
  const Expansion x = expand(c);
  std::vector<const Point*> todo;
  for (const Point& p : x.points) todo.push_back(&p);
  // Without CPU counts: the idle round's two parts, then each incast round with its probes.
  FabricRun run = plan_fabric_run(c, x, todo, {});
  ASSERT_EQ(run.groups.size(), 4u);
  EXPECT_EQ(run.groups[0].members.size(), 1u);
  EXPECT_EQ(run.groups[1].members.size(), 1u);
  EXPECT_EQ(run.groups[2].members.size(), 2u);  // 1 load flow + its probe
  EXPECT_EQ(run.groups[3].members.size(), 4u);  // 2 + 2
  // A cap of 1 (2 CPUs): the incast of 2 splits in two; every probe stays with its load flow.
  run = plan_fabric_run(c, x, todo, {{"a", 2}, {"b", 2}, {"c", 2}});
  ASSERT_EQ(run.groups.size(), 5u);
  for (const FabricRun::Group& g : run.groups) {
    std::set<size_t> links;
    for (const auto& m : g.members) links.insert(m.point->pair);
    EXPECT_EQ(links.size(), 1u);  // one link each: a load flow and its probe, or one idle probe
  }
  // --resume: a probe left to run brings its whole round back.
  const std::vector<const Point*> partners = with_round_partners(x, {&x.points[3]});
  EXPECT_EQ(partners.size(), 2u);
}

TEST(FabricProbes, NamedPairsAreProbedInEveryRound) {
  json probes = kProbe;
  probes["links"] = json::parse(R"([["c", "b"]])");
  const Campaign c = parse(incast_campaign(probes));
  ASSERT_EQ(fabric_spec(c)->rounds[0].flows.size(), 1u);  // the idle round: the pair alone
  EXPECT_EQ(fabric_spec(c)->rounds[0].flows[0], (Flow{2, 1}));
  const Expansion x = expand(c);
  size_t probes_beside = 0;
  for (const Point& p : x.points) probes_beside += FabricPoint(p).beside() == 0u ? 1 : 0;
  EXPECT_EQ(probes_beside, 2u);  // one per incast round
  std::vector<const Point*> todo;
  for (const Point& p : x.points) todo.push_back(&p);
  EXPECT_EQ(plan_fabric_run(c, x, todo, {}).groups.size(), 3u);  // idle, then 2 load rounds
}

TEST(FabricProbes, BadInputNamesTheField) {
  EXPECT_EQ(error_path(incast_campaign(json{{"workload", {{"op", "send"}, {"mode", "bw"}}}})),
            "/fabric/probes/workload/mode");
  EXPECT_EQ(error_path(incast_campaign(json{{"workload", {{"op", {"send", "write"}}}}})),
            "/fabric/probes/workload/op");
  EXPECT_EQ(error_path(incast_campaign(json{{"workload", {{"op", "sendd"}}}})),
            "/fabric/probes/workload/op");
  EXPECT_EQ(error_path(incast_campaign(json{{"workload", {{"op", "send"}}}, {"extra", 1}})),
            "/fabric/probes/extra");
  EXPECT_EQ(error_path(incast_campaign(json{{"links", "load"}})), "/fabric/probes/workload");
  json probes = kProbe;
  probes["links"] = json::parse(R"([["a", "zz"]])");
  EXPECT_EQ(error_path(incast_campaign(probes)), "/fabric/probes/links/0/1");
  probes["links"] = json::parse(R"([["a", "a"]])");
  EXPECT_EQ(error_path(incast_campaign(probes)), "/fabric/probes/links/0/1");
  probes["links"] = json::array();
  EXPECT_EQ(error_path(incast_campaign(probes)), "/fabric/probes/links");
}

TEST(FabricProbes, PlacementNoteSaysWhenTheyMayShareACore) {
  const Campaign c = parse(incast_campaign(kProbe));
  EXPECT_NE(
      probe_placement_note(*fabric_spec(c)->probes, json{{"op", "write"}}).find("do not both pin"),
      std::string::npos);
  ProbeSpec pinned = *fabric_spec(c)->probes;
  pinned.values["cpus"] = "1";
  EXPECT_EQ(probe_placement_note(pinned, json{{"cpus", "0"}}), "");
  EXPECT_NE(probe_placement_note(pinned, json{{"cpus", "0-3"}}).find("CPU 1"), std::string::npos);
}

ResultBrief latency_brief(double p99) {
  ResultBrief b;
  b.document = true;
  SizeBrief s;
  s.size = 8;
  s.p50_ns = p99 / 2;
  s.p99_ns = p99;
  s.p999_ns = p99 * 2;
  b.sizes.push_back(s);
  return b;
}

TEST(FabricProbes, TheRoundRecordCarriesEachProbesRatio) {
  RoundFlowResult probe{"a", "b", latency_brief(30000), 0, 0};
  RoundFlowResult failed{"a", "c", std::nullopt, 0, 0};
  const auto record = round_record("incast 2->a", 2, 1, json{{"op", "write"}}, {}, "t",
                                   {{probe, {{8, 10000}}}, {failed, {}}});
  ASSERT_EQ(record["probes"].size(), 2u);
  EXPECT_EQ(record["probes"][0]["link"], "b -> a");
  EXPECT_DOUBLE_EQ(record["probes"][0]["ratio"].get<double>(), 3.0);
  EXPECT_DOUBLE_EQ(record["probes"][0]["p99_9_ns"].get<double>(), 60000);
  EXPECT_EQ(record["probes"][1]["error"], "the probe failed");
  EXPECT_NE(round_line(round_record_from_json(record), 3).find("load/idle p99 up to 3"),
            std::string::npos)
      << round_line(round_record_from_json(record), 3);
  // The brief carries the tail to the controller (the agents' connection).
  EXPECT_EQ(brief_from_json(to_json(latency_brief(30000))), latency_brief(30000));
}

TEST(FabricProbes, SlowUnderLoadIsAnOutlierOfTheLoadIdleRatios) {
  // Pairwise over 6 hosts with probes on the load links: 30 probes beside the load.
  json j = incast_campaign(kProbe);
  j["fabric"]["hosts"] = {"a", "b", "c", "d", "e", "f"};
  j["fabric"]["pattern"] = {{"pattern", "pairwise"}};
  const Campaign c = parse(j);
  const Expansion x = expand(c);
  ProbeJudge judge;
  const Point* slow = nullptr;
  const Point* unpaired = nullptr;
  for (const Point& p : x.points) {
    if (FabricPoint(p).idle_probe()) {
      if (c.pair_name(p.pair) != "f -> e") judge.add(p, latency_brief(10000));
    } else if (FabricPoint(p).probe()) {
      // Ratios 1.1 to 1.3, one link at 6, "f -> e" without its idle figure.
      double ratio = 1.1 + 0.1 * static_cast<double>(p.index % 3);
      if (slow == nullptr && c.pair_name(p.pair) == "b -> a") {
        slow = &p;
        ratio = 6;
      }
      if (c.pair_name(p.pair) == "f -> e") unpaired = &p;
      judge.add(p, latency_brief(10000 * ratio));
    }
  }
  ASSERT_NE(slow, nullptr);
  ASSERT_NE(unpaired, nullptr);
  size_t ok = 0;
  VerdictCriteria crit;
  std::vector<ProbeVerdict> v = judge.finish(c, x, crit, ok);
  ASSERT_EQ(v.size(), 2u);
  EXPECT_EQ(ok, 28u);
  std::map<std::string, ProbeVerdict> by_link;
  for (const ProbeVerdict& p : v) by_link[p.link] = p;
  EXPECT_EQ(by_link["b -> a"].verdict, "slow_under_load");
  EXPECT_DOUBLE_EQ(*by_link["b -> a"].ratio, 6);
  EXPECT_DOUBLE_EQ(by_link["b -> a"].threshold, 3);  // the floor: the others are close
  EXPECT_EQ(by_link["f -> e"].verdict, "no_idle");
  const std::vector<std::string> lines = probe_verdict_lines(v, ok);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0],
            "probes: 30 beside the load, 28 ok, 1 slow under load, 1 failed or without an idle "
            "figure");
  EXPECT_EQ(lines[1].rfind("slow under load: b -> a in 'pairwise", 0), 0u) << lines[1];
  EXPECT_NE(lines[1].find("(rule slow_under_load)"), std::string::npos) << lines[1];
  const auto record = probe_verdict_json(v, ok, crit);
  EXPECT_EQ(record["slow_under_load"], 1);
  EXPECT_EQ(record["probed"], 30);
  // No floor: no such verdict.
  crit.slow_floor.reset();
  v = judge.finish(c, x, crit, ok);
  EXPECT_EQ(v.size(), 1u);
  // A failed probe is listed as failed.
  judge.add_failed(*slow, "timed out");
  v = judge.finish(c, x, VerdictCriteria{}, ok);
  EXPECT_EQ(v.back().verdict, "failed");
  EXPECT_EQ(v.back().why, "timed out");
}

TEST(FabricProbes, VerdictCriteriaTakeTheSlowRule) {
  const VerdictCriteria c =
      parse_verdict_criteria(json{{"slow_k", 3}, {"slow_floor", 2.5}}, "/fabric/verdicts");
  EXPECT_EQ(c.slow_k, 3);
  EXPECT_EQ(c.slow_floor, 2.5);
  EXPECT_FALSE(parse_verdict_criteria(json{{"slow_floor", nullptr}}, "/v").slow_floor);
  EXPECT_EQ(testutil::catch_config_error([] {
              parse_verdict_criteria(json{{"slow_floor", 0.5}}, "/v");
            }).field(),
            "/v/slow_floor");
  EXPECT_DOUBLE_EQ(outlier_threshold({1, 1, 1, 10}, 5, 2), 2);
  EXPECT_DOUBLE_EQ(outlier_threshold({1, 2, 3, 4, 100}, 1, 0), 4);  // median 3 + MAD 1
}

// The rule on recorded documents (tests/fixtures/probes: a ring over the four testbed guests,
// 2026-11-28, a netem rate of 10 Mbit/s with a deep queue planted on rb-host4 -> rb-host1, the
// load keeping 32 writes in flight; docs/fabrics.md "What makes a link bad"): the testbed makes
// that probe slow under load in most runs, but its idle p99 varies too much between runs (6 to 31
// ms) for a CI test to count on it, so the rule is proven here on one such run's documents.
TEST(FabricProbes, ARecordedDeepQueueIsSlowUnderLoadAndTheCleanLinksAreNot) {
  const std::string dir = (testutil::kFixtureRoot / "probes").string();
  const Campaign c = parse(json::parse(testutil::read_text(dir + "/queue-campaign.json")));
  const Expansion x = expand(c);
  ProbeJudge judge;
  size_t documents = 0;
  for (const Point& p : x.points) {
    if (!FabricPoint(p).probe()) continue;
    const json doc = json::parse(testutil::read_text(dir + "/" + p.id + ".json"));
    ASSERT_EQ(doc["point"]["point_id"], p.id);  // the ids the recorded sweep gave
    judge.add(p, brief_of(doc));
    ++documents;
  }
  EXPECT_EQ(documents, 8u);  // 4 idle, 4 beside the load
  size_t ok = 0;
  const std::vector<ProbeVerdict> v = judge.finish(c, x, fabric_spec(c)->verdicts, ok);
  EXPECT_EQ(ok, 3u);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].link, "rb-host4 -> rb-host1");
  EXPECT_EQ(v[0].verdict, "slow_under_load");
  EXPECT_GT(*v[0].ratio, 7.5);  // 60.6 ms beside the load, 7.5 ms idle
  EXPECT_DOUBLE_EQ(v[0].threshold, 5);
  // What the sweep wrote then agrees: its verdict record judged the same.
  std::string last;
  for (const json& r : parse_records(testutil::read_text(dir + "/index.jsonl"), "verdicts"))
    last = r["probes"]["not_ok"][0]["link"];
  EXPECT_EQ(last, "rb-host4 -> rb-host1");
}

// The rule against the six recorded runs of the deep-queue step (tests/fixtures/probes/
// six-runs.json; run 2 is the documents above): for every set of clean ratios consistent with
// what each run recorded (the exact ones of run 4; the middle one on a 0.1 grid between the
// recorded extremes for runs 1 to 3; for runs 5 and 6, all three on that grid within 0.8 to 4.8
// where the old rule, median + 5 MAD of all four probes, called the planted link slow, as it
// did), the planted probe is slow under load and no clean probe is. The old rule missed run 4.
TEST(FabricProbes, SixRecordedDeepQueueRunsFlagThePlantedLinkAndNoCleanOne) {
  const json six = json::parse(
      testutil::read_text((testutil::kFixtureRoot / "probes" / "six-runs.json").string()));
  const double k = six["slow_k"];
  const double floor = six["slow_floor"];
  // Judges planted + clean as one group of four: the planted probe (index 0) above its bar,
  // every clean one at or below its own.
  const auto judged_right = [&](double planted, const std::vector<double>& clean) {
    std::vector<double> r{planted};
    r.insert(r.end(), clean.begin(), clean.end());
    if (r[0] <= slow_threshold(r, 0, k, floor)) return false;
    for (size_t i = 1; i < r.size(); ++i)
      if (r[i] > slow_threshold(r, i, k, floor)) return false;
    return true;
  };
  std::vector<double> grid;
  for (int t = 8; t <= 48; ++t) grid.push_back(t / 10.0);
  size_t sets = 0;
  ASSERT_EQ(six["runs"].size(), 6u);
  for (const json& run : six["runs"]) {
    const double planted = run["planted"];
    const int n = run["run"];
    if (run.contains("clean")) {
      const std::vector<double> clean = run["clean"];
      EXPECT_TRUE(judged_right(planted, clean)) << "run " << n;
      // The old rule's bar of all four, as recorded: above the planted ratio.
      std::vector<double> all{planted};
      all.insert(all.end(), clean.begin(), clean.end());
      EXPECT_NEAR(outlier_threshold(all, k, floor), run["old_rule_bar"].get<double>(), 1e-9);
      EXPECT_GT(outlier_threshold(all, k, floor), planted) << "the old rule missed run " << n;
      ++sets;
      continue;
    }
    const double lo = run["clean_min"];
    const double hi = run["clean_max"];
    if (!run.value("old_rule_flagged", false)) {
      for (double mid : grid) {
        if (mid < lo - 1e-9 || mid > hi + 1e-9) continue;
        EXPECT_TRUE(judged_right(planted, {lo, mid, hi})) << "run " << n << ", middle " << mid;
        ++sets;
      }
      continue;
    }
    for (size_t a = 0; a < grid.size(); ++a)
      for (size_t b = a; b < grid.size(); ++b)
        for (size_t c = b; c < grid.size(); ++c) {
          const std::vector<double> clean{grid[a], grid[b], grid[c]};
          std::vector<double> all{planted};
          all.insert(all.end(), clean.begin(), clean.end());
          if (outlier_threshold(all, k, floor) >= planted) continue;  // not what was recorded
          EXPECT_TRUE(judged_right(planted, clean))
              << "run " << n << ", clean " << clean[0] << " " << clean[1] << " " << clean[2];
          ++sets;
        }
  }
  EXPECT_GT(sets, 15000u);  // every run judged, most of them over many consistent sets
  // The bar itself: the others' median + k MAD, or the floor; one outlier among the others
  // moves neither.
  EXPECT_DOUBLE_EQ(slow_threshold({8.0, 4.8, 3.0, 2.2}, 0, 5, 5), 7.0);  // 3.0 + 5 x 0.8
  EXPECT_DOUBLE_EQ(slow_threshold({8.0, 4.8, 3.0, 2.2}, 1, 5, 5), 7.0);
  EXPECT_DOUBLE_EQ(slow_threshold({6.0}, 0, 5, 3), 3);  // alone: the floor
  EXPECT_DOUBLE_EQ(slow_threshold({6.0, 100.0}, 0, 5, 3), 100);
}

}  // namespace
}  // namespace rdmabench
