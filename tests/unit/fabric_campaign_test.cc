// Fabric campaigns' pure parts: the "fabric" block (inline hosts, a hostfile, host names in
// "pairs"), the links and points it expands to, point ids that do not move with the per-host cap,
// and JSON-path (or hostfile-line) errors.
#include "orchestrator/fabric/fabric_campaign.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>

#include "base/error.h"
#include "orchestrator/campaign/campaign.h"
#include "orchestrator/fabric/fabric_driver.h"
#include "orchestrator/fabric/fabric_run.h"
#include "orchestrator/fabric/round_summary.h"
#include "orchestrator/fabric/start_delay.h"
#include "orchestrator/launch/clock_offset.h"
#include "orchestrator/launch/launcher.h"
#include "orchestrator/sweep/dry_run.h"
#include "orchestrator/sweep/sweep.h"
#include "tests/unit/test_util.h"

namespace rdmabench {
namespace {

using nlohmann::json;

json fabric_campaign(const json& fabric) {
  json j = json::parse(R"({"name": "fab", "matrix": {"op": ["write", "send"], "sizes": [[64]]}})");
  j["fabric"] = fabric;
  return j;
}

json four_hosts() {
  return json::parse(R"(["h1", {"host": "h2", "device": "rxe0", "connect_address": "10.0.0.2"},
                         {"host": "local", "name": "l1"}, {"host": "local", "name": "l2"}])");
}

const CampaignOptions kAllKinds{"", {}, campaign_kinds()};
Campaign parse(const json& j, const std::string& dir = "/campaigns") {
  return parse_campaign(j, dir, "/usr/bin/rdmabench-self", kAllKinds);
}

std::string expect_error(const json& j, const std::string& path) {
  const ConfigError e = testutil::catch_config_error([&] { parse(j); });
  EXPECT_EQ(e.field(), path) << e.what() << " for " << j.dump();
  return e.what();
}

TEST(FabricCampaign, PairwiseExpandsToEveryLinkOncePerCombination) {
  const Campaign c =
      parse(fabric_campaign({{"hosts", four_hosts()}, {"pattern", {{"pattern", "pairwise"}}}}));
  ASSERT_TRUE(fabric_spec(c));
  EXPECT_EQ(fabric_spec(c)->rounds.size(), 6u);  // 3 rounds, then the same swapped
  EXPECT_EQ(c.pair_count(), 12u);                // every ordered pair of 4 hosts: a link each
  EXPECT_EQ(c.flow_count(), 12u);
  EXPECT_FALSE(fabric_spec(c)->start_delay_s);  // the synchronised start's default: "auto"
  EXPECT_FALSE(fabric_spec(parse(fabric_campaign({{"hosts", four_hosts()},
                                                  {"pattern", {{"pattern", "pairwise"}}},
                                                  {"start_delay_s", "auto"}})))
                   ->start_delay_s);
  EXPECT_EQ(fabric_spec(parse(fabric_campaign({{"hosts", four_hosts()},
                                               {"pattern", {{"pattern", "pairwise"}}},
                                               {"start_delay_s", 0.5}})))
                ->start_delay_s,
            0.5);
  std::set<std::string> links;
  for (size_t i = 0; i < c.pair_count(); ++i) links.insert(c.pair(i).name);
  EXPECT_EQ(links.size(), 12u);
  EXPECT_TRUE(links.count("h1 -> h2") == 1 && links.count("h2 -> h1") == 1);
  // A link's server end and the address its clients connect to come from the server host.
  for (size_t i = 0; i < c.pair_count(); ++i)
    if (const HostPair p = c.pair(i); p.name == "h1 -> h2") {
      EXPECT_EQ(p.server.host, "h2");
      EXPECT_EQ(p.server.device, "rxe0");
      EXPECT_EQ(p.client.host, "h1");
      EXPECT_EQ(p.client.rdmabench, "rdmabench");
      EXPECT_EQ(p.connect_address, "10.0.0.2");
    } else if (p.name == "l1 -> l2") {
      EXPECT_EQ(p.server.rdmabench, "/usr/bin/rdmabench-self");  // "local": this rdmabench
      EXPECT_EQ(p.connect_address, "");
    }
  const Expansion x = expand(c);
  ASSERT_EQ(x.points.size(), 24u);  // 12 flows x 2 combinations
  std::set<std::string> ids;
  for (const auto& p : x.points) {
    ASSERT_TRUE(p.round);
    ids.insert(p.id);
    // Each point is one flow of its round.
    bool found = false;
    for (const Flow& f : fabric_spec(c)->rounds[*p.round].flows)
      found = found || link_name(*fabric_spec(c), f) == c.pair_name(p.pair);
    EXPECT_TRUE(found) << p.id;
  }
  EXPECT_EQ(ids.size(), x.points.size());
  // Rounds in order within a combination: the first combination's points come round by round.
  for (size_t i = 1; i < 12; ++i) EXPECT_LE(*x.points[i - 1].round, *x.points[i].round);
}

TEST(FabricCampaign, IdsDoNotMoveWithThePerHostCap) {
  json f = {{"hosts", four_hosts()}, {"pattern", {{"pattern", "all-to-all"}}}};
  const Expansion whole = expand(parse(fabric_campaign(f)));
  f["max_flows_per_host"] = 2;
  const Campaign split = parse(fabric_campaign(f));
  EXPECT_GT(fabric_spec(split)->rounds.size(), 1u);
  EXPECT_NE(fabric_spec(split)->rounds[0].label.find(" part "), std::string::npos);
  const Expansion parts = expand(split);
  std::set<std::string> a, b;
  for (const auto& p : whole.points) a.insert(p.id);
  for (const auto& p : parts.points) b.insert(p.id);
  EXPECT_EQ(a, b);
  EXPECT_EQ(unsplit_label("all-to-all part 2/3"), "all-to-all");
  EXPECT_EQ(unsplit_label("ring +1"), "ring +1");
}

TEST(FabricCampaign, ALinkInSeveralRoundsIsSeveralPoints) {
  // Incast degrees 1 and 2 onto host 0: h2 -> h1 is measured in both rounds.
  const Campaign c = parse(fabric_campaign(
      {{"hosts", four_hosts()},
       {"pattern", {{"pattern", "incast"}, {"degrees", {1, 2}}, {"targets", {0}}}}}));
  const Expansion x = expand(c);
  ASSERT_EQ(x.points.size(), 6u);  // (1 + 2 flows) x 2 combinations
  std::set<std::string> ids;
  for (const auto& p : x.points) ids.insert(p.id);
  EXPECT_EQ(ids.size(), 6u);
  EXPECT_EQ(c.pair_count(), 2u);  // two links in all
  EXPECT_EQ(c.flow_count(), 3u);  // h2 -> h1 in both rounds
}

TEST(FabricCampaign, PairsMayNameHosts) {
  const Campaign c = parse(fabric_campaign(
      {{"hosts", four_hosts()},
       {"pattern",
        {{"pattern", "pairs"}, {"rounds", json::parse(R"([[["h1", "l2"], [1, 2]]])")}}}}));
  ASSERT_EQ(fabric_spec(c)->rounds.size(), 1u);
  EXPECT_EQ(link_name(*fabric_spec(c), fabric_spec(c)->rounds[0].flows[0]), "l2 -> h1");
  EXPECT_EQ(link_name(*fabric_spec(c), fabric_spec(c)->rounds[0].flows[1]), "l1 -> h2");
  const std::string msg = expect_error(
      fabric_campaign(
          {{"hosts", four_hosts()},
           {"pattern", {{"pattern", "pairs"}, {"rounds", json::parse(R"([[["h9", 1]]])")}}}}),
      "/fabric/pattern/rounds/0/0/0");
  EXPECT_NE(msg.find("h1, h2, l1, l2"), std::string::npos) << msg;
}

TEST(FabricCampaign, Hostfile) {
  const std::string text =
      "# five hosts\n"
      "node1 device=mlx5_0 connect_address=10.0.0.1\n"
      "\n"
      "node2 gid_index=3   # rack 2\n"
      "node3 name=n3 rdmabench=/opt/rb/rdmabench\n";
  const auto hosts = parse_hostfile(text, "hosts.txt", "/self");
  ASSERT_EQ(hosts.size(), 3u);
  EXPECT_EQ(hosts[0].name, "node1");
  EXPECT_EQ(hosts[0].spec.device, "mlx5_0");
  EXPECT_EQ(hosts[0].connect_address, "10.0.0.1");
  EXPECT_EQ(hosts[1].spec.gid_index, 3);
  EXPECT_EQ(hosts[2].name, "n3");
  EXPECT_EQ(hosts[2].spec.host, "node3");
  EXPECT_EQ(hosts[2].spec.rdmabench, "/opt/rb/rdmabench");
  // Errors name the file and line.
  auto err = [](const std::string& t) {
    return testutil::catch_config_error([&] { parse_hostfile(t, "hosts.txt", "/self"); });
  };
  EXPECT_EQ(err("a\nb colour=red\n").field(), "hosts.txt:2/colour");
  EXPECT_EQ(err("a\nb device\n").field(), "hosts.txt:2");
  EXPECT_EQ(err("a gid_index=x\n").field(), "hosts.txt:1/gid_index");
  EXPECT_EQ(err("a device=x device=y\n").field(), "hosts.txt:1/device");

  // Through a campaign: relative to the campaign file's folder.
  char dir[] = "/tmp/rdmabench-fabric-test.XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  const std::string file = std::string(dir) + "/hosts.txt";
  std::ofstream(file) << text;
  const Campaign c =
      parse(fabric_campaign({{"hostfile", "hosts.txt"}, {"pattern", {{"pattern", "ring"}}}}), dir);
  EXPECT_EQ(fabric_spec(c)->hostfile, file);
  EXPECT_EQ(fabric_spec(c)->hosts.size(), 3u);
  EXPECT_EQ(fabric_spec(c)->rounds.at(0).flows.size(), 3u);
  std::remove(file.c_str());
  expect_error(fabric_campaign({{"hostfile", "missing.txt"}, {"pattern", {{"pattern", "ring"}}}}),
               "/fabric/hostfile");
  rmdir(dir);
}

TEST(FabricRun, GroupsPointsByRoundAndAppliesTheAutoCap) {
  const json hosts = json::parse(R"(["a", "b", "c", "d"])");
  const json incast = {{"pattern", "incast"}, {"degrees", {3}}, {"targets", {0}}};
  const Campaign c = parse(fabric_campaign({{"hosts", hosts}, {"pattern", incast}}));
  const Expansion x = expand(c);
  std::vector<const Point*> todo;
  for (const auto& p : x.points) todo.push_back(&p);
  // Without CPU counts: one round of 3 flows per combination (write, send).
  FabricRun run = plan_fabric_run(c, x, todo, {});
  ASSERT_EQ(run.groups.size(), 2u);
  EXPECT_EQ(run.groups[0].members.size(), 3u);
  EXPECT_NE(run.note.find("no host told its CPUs"), std::string::npos) << run.note;
  for (const auto& m : run.groups[0].members) {
    EXPECT_EQ(run.server_name(m), "a");
    EXPECT_EQ(run.fields(m)["fabric"]["round"], "incast 3->host0");
    EXPECT_EQ(run.fields(m)["fabric"]["flows_in_round"], 3);
    EXPECT_EQ(run.fields(m)["fabric"]["pattern"], "incast");
    EXPECT_EQ(run.fields(m)["fabric"]["server"], "a");
  }
  // "auto" with 2 CPUs on one host: 1 flow per host, so the round runs as 3 parts.
  run = plan_fabric_run(c, x, todo, {{"a", 8}, {"b", 2}, {"c", 16}});
  ASSERT_EQ(run.groups.size(), 6u);
  EXPECT_EQ(run.note, "max flows per host: auto = 1 (the fewest CPUs, b: 2 CPUs, minus one)");
  EXPECT_EQ(run.fields(run.groups[1].members.at(0))["fabric"]["round"], "incast 3->host0 part 2/3");
  // Same points, same ids: the split only regroups them.
  size_t members = 0;
  for (const auto& g : run.groups) members += g.members.size();
  EXPECT_EQ(members, todo.size());
  // An explicit cap wins over the CPUs.
  const Campaign capped =
      parse(fabric_campaign({{"hosts", hosts}, {"pattern", incast}, {"max_flows_per_host", 3}}));
  const Expansion xc = expand(capped);
  std::vector<const Point*> all;
  for (const auto& p : xc.points) all.push_back(&p);
  run = plan_fabric_run(capped, xc, all, {{"a", 2}});
  EXPECT_EQ(run.groups.size(), 2u);
  EXPECT_EQ(run.note, "max flows per host: 3");
  // Only what is still to run: a resumed round runs its missing flows.
  run = plan_fabric_run(capped, xc, {all[1], all[4]}, {});
  ASSERT_EQ(run.groups.size(), 2u);
  EXPECT_EQ(run.groups[0].members.size(), 1u);
}

// "auto" is one cap for every host: the fewest online CPUs of any host, minus one. Incast 2 -> a,
// where a and c have 8 CPUs and b has 2: the cap is 1 for a as well, so the round runs as two
// parts of one flow each (a cap of each host's own CPUs - 1 would leave a at 7, and the round
// whole). The dry run says the same rule.
TEST(FabricRun, TheAutoCapIsTheFewestCpusOfAnyHostForEveryHost) {
  const json incast = {{"pattern", "incast"}, {"degrees", {2}}, {"targets", {0}}};
  const Campaign c = parse(fabric_campaign({{"hosts", {"a", "b", "c"}}, {"pattern", incast}}));
  const Expansion x = expand(c);
  std::vector<const Point*> todo;
  for (const auto& p : x.points) todo.push_back(&p);
  const FabricRun run = plan_fabric_run(c, x, todo, {{"a", 8}, {"b", 2}, {"c", 8}});
  EXPECT_EQ(run.note, "max flows per host: auto = 1 (the fewest CPUs, b: 2 CPUs, minus one)");
  ASSERT_EQ(run.groups.size(), 4u);  // 2 parts x 2 combinations (write, send)
  for (const auto& g : run.groups) {
    ASSERT_EQ(g.members.size(), 1u);
    EXPECT_EQ(run.server_name(g.members[0]), "a");  // the 8-CPU host, capped at 1 too
  }
  // With every host at 8 CPUs the cap is 7: one round of both flows.
  EXPECT_EQ(plan_fabric_run(c, x, todo, {{"a", 8}, {"b", 8}, {"c", 8}}).groups.size(), 2u);

  std::map<std::string, std::unique_ptr<Launcher>> launchers;
  for (const FabricHost& h : fabric_spec(c)->hosts)
    launchers[h.spec.host] = make_ssh_launcher(h.spec.host, {});
  std::ostringstream dry;
  print_dry_run(dry, c, x, launchers, {}, "out/fab");
  EXPECT_NE(dry.str().find("max flows per host: auto (the fewest online CPUs of any host, minus "
                           "one, for every host; applied when the sweep runs"),
            std::string::npos)
      << dry.str();
}

// --resume: every round with a flow still to run runs whole (its finished flows as well), so a
// flow is measured under its round's load; rounds with nothing to run stay out.
TEST(FabricRun, ResumeRunsARoundWithItsPartners) {
  const json hosts = json::parse(R"(["a", "b", "c", "d"])");
  const Campaign c =
      parse(fabric_campaign({{"hosts", hosts}, {"pattern", {{"pattern", "pairwise"}}}}));
  const Expansion x = expand(c);  // 6 rounds x 2 flows x 2 combinations
  ASSERT_EQ(x.points.size(), 24u);
  const Point* missing = &x.points[5];
  std::vector<const Point*> partners = with_round_partners(x, {missing});
  ASSERT_EQ(partners.size(), 2u);  // its round's two flows, in expansion order
  for (const Point* p : partners) {
    EXPECT_EQ(p->round, missing->round);
    EXPECT_EQ(p->repetition, missing->repetition);
    EXPECT_EQ(p->work, missing->work);
  }
  EXPECT_TRUE(partners[0] == missing || partners[1] == missing);
  EXPECT_NE(partners[0]->pair, partners[1]->pair);
  // Two flows of one round and one of another: two rounds, four points.
  const Point* other = nullptr;
  for (const Point& p : x.points)
    if (p.round != missing->round && p.work == missing->work) other = &p;
  ASSERT_NE(other, nullptr);
  EXPECT_EQ(with_round_partners(x, {partners[0], partners[1], other}).size(), 4u);
  EXPECT_TRUE(with_round_partners(x, {}).empty());
}

TEST(RoundSummary, TotalsHostsFairnessAndSpread) {
  EXPECT_TRUE(jain_index({}).is_null());
  EXPECT_TRUE(jain_index({0, 0}).is_null());
  EXPECT_DOUBLE_EQ(jain_index({3, 3, 3}).get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(jain_index({4, 0, 0, 0}).get<double>(), 0.25);  // one takes all: 1/n
  EXPECT_DOUBLE_EQ(jain_index({1, 2}).get<double>(), 9.0 / 10.0);
  auto doc = [](double gbps, double p50) {
    return brief_of(
        json{{"results", {{{"size", 4096}, {"gbps", gbps}, {"latency", {{"p50", p50}}}}}}});
  };
  // b -> a and c -> a at 1 and 3 Gb/s, d -> c failed.
  const auto r =
      round_record("incast 2->host0", 4, 2, json{{"op", "write"}},
                   {{"a", "b", doc(1, 5000)}, {"a", "c", doc(3, 7000)}, {"c", "d", std::nullopt}},
                   "2026-11-25T00:00:00Z");
  EXPECT_EQ(r["record"], "round");
  EXPECT_EQ(r["flows"], 3);
  EXPECT_EQ(r["ok"], 2);
  EXPECT_EQ(r["failed"], 1);
  const auto& s = r["sizes"].at(0);
  EXPECT_EQ(s["size"], 4096);
  EXPECT_DOUBLE_EQ(s["total_gbps"].get<double>(), 4.0);
  EXPECT_DOUBLE_EQ(s["jain"].get<double>(), 16.0 / 20.0);
  EXPECT_DOUBLE_EQ(s["gbps"]["median"].get<double>(), 2.0);
  EXPECT_DOUBLE_EQ(s["p50_ns"]["max"].get<double>(), 7000.0);
  EXPECT_DOUBLE_EQ(s["hosts"]["a"]["in_gbps"].get<double>(), 4.0);
  EXPECT_DOUBLE_EQ(s["hosts"]["c"]["out_gbps"].get<double>(), 3.0);
  EXPECT_DOUBLE_EQ(s["hosts"]["c"]["in_gbps"].get<double>(), 0.0);  // its own flow failed
  EXPECT_EQ(round_line(round_record_from_json(r), 6),
            "round 5/6 'incast 2->host0': 2 ok, 1 failed; 4K: total 4 Gb/s, flows 1/2/3 "
            "(min/median/max), fairness 0.8, p50 6 us (median)");
}

TEST(RoundSummary, WindowsOverlapOnTheControllersClock) {
  EXPECT_FALSE(window_overlap({}).has_value());
  EXPECT_DOUBLE_EQ(window_overlap({{10, 20}})->fraction, 1.0);
  // Common 12..20 of the longest, 10 s: 0.8.
  const auto o = window_overlap({{10, 20}, {12, 21}, {11, 20.5}});
  EXPECT_DOUBLE_EQ(o->fraction, 0.8);
  EXPECT_DOUBLE_EQ(o->common_s, 8.0);
  EXPECT_DOUBLE_EQ(window_overlap({{0, 1}, {2, 3}})->fraction, 0.0);  // one after the other
  auto doc = [](double start, double end) {
    return brief_of(json{{"results",
                          {{{"size", 64},
                            {"gbps", 1.0},
                            {"window", {{"start_unix_s", start}, {"end_unix_s", end}}}}}}});
  };
  // b's clock runs 5 s ahead of the controller's: corrected, both flows ran 100..110.
  const auto aligned = round_record(
      "pairwise 1/3", 0, 1, json::object(),
      {{"a", "b", doc(105, 115), 5.0, 0.002}, {"b", "a", doc(100, 110), 0.0, 0.001}}, "t");
  EXPECT_DOUBLE_EQ(aligned["sizes"][0]["overlap"].get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(aligned["sizes"][0]["clock_uncertainty_s"].get<double>(), 0.002);
  EXPECT_FALSE(aligned["overlap_low"].get<bool>());
  // Uncorrected, the same windows overlap by half: the round is marked, and its line says so.
  const auto apart = round_record("pairwise 1/3", 0, 1, json::object(),
                                  {{"a", "b", doc(105, 115)}, {"b", "a", doc(100, 110)}}, "t");
  EXPECT_DOUBLE_EQ(apart["overlap_min"].get<double>(), 0.5);
  EXPECT_TRUE(apart["overlap_low"].get<bool>());
  EXPECT_NE(round_line(round_record_from_json(apart), 3).find("overlap 50 % - OVERLAP BELOW 90 %"),
            std::string::npos)
      << round_line(round_record_from_json(apart), 3);
  // Documents without windows (older engines): no overlap figures, nothing marked.
  const auto none =
      round_record("r", 0, 1, json::object(),
                   {{"a", "b", brief_of(json{{"results", {{{"size", 64}, {"gbps", 1.0}}}}})}}, "t");
  EXPECT_TRUE(none["overlap_min"].is_null());
  EXPECT_FALSE(none["overlap_low"].get<bool>());
}

TEST(ClockOffset, TheShortestRoundTripCounts) {
  EXPECT_FALSE(best_offset({}).has_value());
  // Host 2 s ahead; the second sample's round trip (0.2 s) is the shortest.
  const auto o = best_offset({{100.0, 102.9, 101.0}, {200.0, 202.1, 200.2}, {300, 302.5, 300.6}});
  ASSERT_TRUE(o.has_value());
  EXPECT_NEAR(o->offset_s, 2.0, 1e-9);
  EXPECT_NEAR(o->uncertainty_s, 0.1, 1e-9);
  EXPECT_EQ(o->samples, 3u);
}

TEST(ClockOffset, ThisHostsOwnClockIsWithinTheUncertainty) {
  const auto l = make_local_launcher();
  const ClockOffset o = measure_clock_offset(*l, 3, 30);
  EXPECT_EQ(o.samples, 3u);
  // One clock on both ends: the reading lies inside the round trip, so |offset| <= half of it.
  EXPECT_LE(std::abs(o.offset_s), o.uncertainty_s + 1e-6);
}

TEST(FabricCampaign, ErrorsNameTheJsonPath) {
  const json pattern = {{"pattern", "pairwise"}};
  expect_error(fabric_campaign({{"pattern", pattern}}), "/fabric/hosts");
  expect_error(fabric_campaign({{"hosts", {"a"}}, {"pattern", pattern}}), "/fabric/hosts");
  expect_error(fabric_campaign({{"hosts", {"a", "a"}}, {"pattern", pattern}}), "/fabric/hosts/1");
  expect_error(fabric_campaign({{"hosts", {"a", 7}}, {"pattern", pattern}}), "/fabric/hosts/1");
  expect_error(
      fabric_campaign({{"hosts", {"a", {{"host", "b"}, {"nme", "x"}}}}, {"pattern", pattern}}),
      "/fabric/hosts/1/nme");
  expect_error(
      fabric_campaign({{"hosts", {"a", {{"host", "b"}, {"name", "x y"}}}}, {"pattern", pattern}}),
      "/fabric/hosts/1/name");
  expect_error(fabric_campaign({{"hosts", {"a", "b"}}}), "/fabric/pattern");
  expect_error(fabric_campaign({{"hosts", {"a", "b"}}, {"pattern", {{"pattern", "mesh"}}}}),
               "/fabric/pattern/pattern");
  expect_error(
      fabric_campaign({{"hosts", {"a", "b"}}, {"pattern", pattern}, {"max_flows_per_host", 0}}),
      "/fabric/max_flows_per_host");
  expect_error(fabric_campaign({{"hosts", {"a", "b"}}, {"pattern", pattern}, {"colour", 1}}),
               "/fabric/colour");
  for (const json& bad : {json(-1), json(61), json("3"), json("Auto")})
    expect_error(
        fabric_campaign({{"hosts", {"a", "b"}}, {"pattern", pattern}, {"start_delay_s", bad}}),
        "/fabric/start_delay_s");
  json both = fabric_campaign({{"hosts", {"a", "b"}}, {"pattern", pattern}});
  both["hosts"] = json::array();
  expect_error(both, "/hosts");
}

}  // namespace
}  // namespace rdmabench

namespace rdmabench {
namespace {

PointOutcome started(double waited, double late) {
  PointOutcome o;
  o.brief = brief_of({{"setup", {{"start", {{"waited_s", waited}, {"late_s", late}}}}}});
  return o;
}

TEST(StartDelay, AutoFollowsWhatTheRoundsNeeded) {
  StartDelay fixed(0.5);
  fixed.observe(0.5, {started(0, 2)});
  EXPECT_EQ(fixed.next(), 0.5);  // a number is used as it is

  StartDelay d(std::nullopt);
  EXPECT_EQ(d.next(), StartDelay::kFirst);
  d.observe(3, {PointOutcome{}});  // nothing measured: unchanged
  EXPECT_EQ(d.next(), StartDelay::kFirst);
  d.observe(3, {started(2.9, 0), started(2.5, 0)});  // the slowest needed 0.5 s
  EXPECT_DOUBLE_EQ(d.next(), 2 * 0.5 + 0.05);
  d.observe(1.05, {started(1.0, 0)});  // 0.05 s: the last three rounds' most still counts
  EXPECT_DOUBLE_EQ(d.next(), 1.05);
  d.observe(1.05, {started(0, 0.45)});  // a late client: it needed 1.5 s
  EXPECT_DOUBLE_EQ(d.next(), 3.05);
  for (int i = 0; i < 3; ++i) d.observe(0.1, {started(0.1, 0)});  // needs nothing: the floor
  EXPECT_DOUBLE_EQ(d.next(), StartDelay::kMin);
  d.observe(0.05, {started(0, 100)});
  EXPECT_DOUBLE_EQ(d.next(), StartDelay::kMax);
}

}  // namespace
}  // namespace rdmabench
