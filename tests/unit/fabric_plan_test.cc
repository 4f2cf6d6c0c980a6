// Fabric campaign plans (orchestrator/fabric/fabric_plan.h): the pairwise tournament (disjoint
// rounds, every pair once per direction set, byes, hard-coded rounds for 4 and 5 hosts), incast
// degrees and targets, all-to-all, ring shifts, seeded bisection matchings, explicit pairs and
// their errors, splitting rounds over the per-host cap, determinism, and JSON-path errors.
#include "orchestrator/fabric/fabric_plan.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <ostream>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "base/error.h"
#include "tests/unit/test_util.h"

namespace rdmabench {

void PrintTo(const Flow& f, std::ostream* os) {
  *os << "{s" << f.server << " c" << f.client << "}";
}

namespace {

using nlohmann::json;
using Flows = std::vector<Flow>;

FabricPattern pattern(const json& j) { return parse_fabric_pattern(j, "/fabric"); }

std::vector<Round> plan(size_t hosts, const json& j, uint32_t cap = 1000000) {
  return plan_rounds(hosts, pattern(j), cap);
}

// `f` must throw a ConfigError naming `field`; returns its message.
std::string expect_error(const std::function<void()>& f, const std::string& field) {
  const ConfigError e = testutil::catch_config_error(f);
  EXPECT_EQ(e.field(), field) << e.what();
  return e.what();
}

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

// Flows of one round as server plus client per host; fails when a host exceeds `cap`.
void expect_within_cap(const Round& r, size_t hosts, uint32_t cap) {
  std::vector<uint32_t> load(hosts);
  for (const Flow& f : r.flows) {
    ASSERT_LT(f.server, hosts);
    ASSERT_LT(f.client, hosts);
    ASSERT_NE(f.server, f.client) << r.label;
    ++load[f.server];
    ++load[f.client];
  }
  for (size_t h = 0; h < hosts; ++h) EXPECT_LE(load[h], cap) << r.label << " host " << h;
}

std::pair<uint32_t, uint32_t> unordered(const Flow& f) {
  return {std::min(f.server, f.client), std::max(f.server, f.client)};
}

void expect_indices_in_order(const std::vector<Round>& rounds) {
  for (size_t i = 0; i < rounds.size(); ++i) EXPECT_EQ(rounds[i].index, i);
}

// ---- pairwise ---------------------------------------------------------------------------------

TEST(FabricPairwise, EveryPairOncePerDirectionSetInDisjointRounds) {
  for (uint32_t n = 2; n <= 17; ++n) {
    SCOPED_TRACE("n=" + std::to_string(n));
    const auto rounds = plan(n, {{"pattern", "pairwise"}});
    const uint32_t per_set = n % 2 == 0 ? n - 1 : n;  // odd n: a bye per round, n rounds
    ASSERT_EQ(rounds.size(), 2 * per_set);
    expect_indices_in_order(rounds);
    for (uint32_t set = 0; set < 2; ++set) {
      std::set<std::pair<uint32_t, uint32_t>> pairs;
      std::vector<uint32_t> byes(n);
      for (uint32_t r = 0; r < per_set; ++r) {
        const Round& round = rounds[set * per_set + r];
        EXPECT_EQ(round.label, "pairwise " + std::to_string(r + 1) + "/" + std::to_string(per_set) +
                                   (set == 1 ? " swapped" : ""));
        ASSERT_EQ(round.flows.size(), n / 2);
        expect_within_cap(round, n, 1);  // disjoint: no host twice
        std::vector<bool> busy(n);
        for (const Flow& f : round.flows) {
          EXPECT_TRUE(pairs.insert(unordered(f)).second) << "pair twice in set " << set;
          busy[f.server] = busy[f.client] = true;
        }
        for (uint32_t h = 0; h < n; ++h) byes[h] += busy[h] ? 0 : 1;
        if (set == 1) {  // the second set: the first's rounds with the roles swapped
          const Round& first = rounds[r];
          ASSERT_EQ(first.flows.size(), round.flows.size());
          for (size_t i = 0; i < round.flows.size(); ++i)
            EXPECT_EQ(round.flows[i], (Flow{first.flows[i].client, first.flows[i].server}));
        }
      }
      EXPECT_EQ(pairs.size(), size_t{n} * (n - 1) / 2);
      for (uint32_t h = 0; h < n; ++h) EXPECT_EQ(byes[h], n % 2) << "byes of host " << h;
    }
  }
}

TEST(FabricPairwise, HardCodedRoundsForFourAndFiveHosts) {
  auto flows_of = [](const std::vector<Round>& rounds) {
    std::vector<Flows> v;
    for (const auto& r : rounds) v.push_back(r.flows);
    return v;
  };
  const std::vector<Flows> four = {{{3, 0}, {1, 2}}, {{1, 3}, {2, 0}}, {{3, 2}, {0, 1}},
                                   {{0, 3}, {2, 1}}, {{3, 1}, {0, 2}}, {{2, 3}, {1, 0}}};
  EXPECT_EQ(flows_of(plan(4, {{"pattern", "pairwise"}})), four);
  const std::vector<Flows> five = {
      {{1, 4}, {2, 3}}, {{2, 0}, {3, 4}}, {{3, 1}, {4, 0}}, {{4, 2}, {0, 1}}, {{0, 3}, {1, 2}}};
  EXPECT_EQ(flows_of(plan(5, {{"pattern", "pairwise"}, {"directions", "one"}})), five);
  EXPECT_EQ(plan(5, {{"pattern", "pairwise"}, {"directions", "one"}}).back().label, "pairwise 5/5");
}

TEST(FabricPairwise, OneDirectionIsTheFirstSet) {
  const auto both = plan(8, {{"pattern", "pairwise"}});
  const auto one = plan(8, {{"pattern", "pairwise"}, {"directions", "one"}});
  ASSERT_EQ(one.size(), 7u);
  EXPECT_TRUE(std::equal(one.begin(), one.end(), both.begin()));
}

TEST(FabricPairwise, TogetherHoldsBothDirectionsOfEachPairInOneRound) {
  for (uint32_t n = 2; n <= 9; ++n) {
    SCOPED_TRACE("n=" + std::to_string(n));
    const auto both = plan(n, {{"pattern", "pairwise"}});
    const auto together = plan(n, {{"pattern", "pairwise"}, {"directions", "together"}});
    ASSERT_EQ(together.size(), both.size() / 2);  // n - 1 rounds (odd n: n)
    std::set<std::pair<uint32_t, uint32_t>> links;
    for (size_t r = 0; r < together.size(); ++r) {
      const Round& round = together[r];
      EXPECT_EQ(round.label, "pairwise " + std::to_string(r + 1) + "/" +
                                 std::to_string(together.size()) + " both ways");
      // The first set's round and its swap, in one: each host (but a bye) serves one flow and
      // drives the other.
      Flows expected = both[r].flows;
      expected.insert(expected.end(), both[r + together.size()].flows.begin(),
                      both[r + together.size()].flows.end());
      EXPECT_EQ(round.flows, expected);
      expect_within_cap(round, n, 2);
      for (const Flow& f : round.flows)
        EXPECT_TRUE(links.insert({f.client, f.server}).second) << "a link twice";
    }
    EXPECT_EQ(links.size(), size_t{n} * (n - 1));  // every ordered pair once
  }
  // Under a per-host cap of 1 each round is split into its two directions (ids unchanged).
  const auto capped = plan(6, {{"pattern", "pairwise"}, {"directions", "together"}}, 1);
  ASSERT_EQ(capped.size(), 10u);
  EXPECT_EQ(capped[0].label, "pairwise 1/5 both ways part 1/2");
}

// ---- incast, all-to-all, ring -----------------------------------------------------------------

TEST(FabricIncast, DegreesOuterTargetsInnerClientsFollowTheTarget) {
  const auto rounds = plan(6, {{"pattern", "incast"}, {"degrees", {1, 2, 4}}, {"targets", {2, 5}}});
  ASSERT_EQ(rounds.size(), 6u);
  expect_indices_in_order(rounds);
  const std::vector<std::string> labels = {"incast 1->host2", "incast 1->host5", "incast 2->host2",
                                           "incast 2->host5", "incast 4->host2", "incast 4->host5"};
  for (size_t i = 0; i < rounds.size(); ++i) EXPECT_EQ(rounds[i].label, labels[i]);
  EXPECT_EQ(rounds[1].flows, (Flows{{5, 0}}));
  EXPECT_EQ(rounds[2].flows, (Flows{{2, 3}, {2, 4}}));
  EXPECT_EQ(rounds[5].flows, (Flows{{5, 0}, {5, 1}, {5, 2}, {5, 3}}));

  const auto all = plan(5, {{"pattern", "incast"}, {"degrees", {4}}});  // targets default "all"
  ASSERT_EQ(all.size(), 5u);
  for (uint32_t t = 0; t < 5; ++t) {
    EXPECT_EQ(all[t].label, "incast 4->host" + std::to_string(t));
    std::set<uint32_t> clients;
    for (const Flow& f : all[t].flows) {
      EXPECT_EQ(f.server, t);
      clients.insert(f.client);
    }
    EXPECT_EQ(clients.size(), 4u);
    EXPECT_EQ(clients.count(t), 0u);
  }
  EXPECT_EQ(plan(5, {{"pattern", "incast"}, {"degrees", {1}}, {"targets", "all"}}).size(), 5u);
}

TEST(FabricIncast, DegreeAndTargetCheckedAgainstTheHosts) {
  const json j = {{"pattern", "incast"}, {"degrees", {1, 5}}, {"targets", {0, 7}}};
  EXPECT_TRUE(contains(expect_error([&] { plan(5, j); }, "/fabric/degrees/1"), "1 to 4"));
  EXPECT_TRUE(contains(expect_error([&] { plan(6, j); }, "/fabric/targets/1"), "'7'"));
  EXPECT_EQ(plan(8, j).size(), 4u);
}

TEST(FabricAllToAll, EveryHostSendsToEveryOther) {
  for (uint32_t n = 2; n <= 12; ++n) {
    const auto rounds = plan(n, {{"pattern", "all-to-all"}});
    ASSERT_EQ(rounds.size(), 1u);
    EXPECT_EQ(rounds[0].label, "all-to-all");
    ASSERT_EQ(rounds[0].flows.size(), size_t{n} * (n - 1));
    std::set<std::pair<uint32_t, uint32_t>> seen;
    std::vector<uint32_t> served(n), driven(n);
    for (const Flow& f : rounds[0].flows) {
      ASSERT_NE(f.server, f.client);
      EXPECT_TRUE(seen.insert({f.server, f.client}).second);
      ++served[f.server];
      ++driven[f.client];
    }
    for (uint32_t h = 0; h < n; ++h) {
      EXPECT_EQ(served[h], n - 1);
      EXPECT_EQ(driven[h], n - 1);
    }
  }
}

TEST(FabricRing, HostSendsToHostPlusShift) {
  for (int64_t shift : {1, 2, 3, 5, -1, -3, 9}) {
    for (uint32_t n : {2U, 3U, 6U, 7U, 10U}) {
      if (shift % n == 0) continue;
      const auto rounds = plan(n, {{"pattern", "ring"}, {"shift", shift}});
      ASSERT_EQ(rounds.size(), 1u);
      EXPECT_EQ(rounds[0].label,
                std::string("ring ") + (shift > 0 ? "+" : "") + std::to_string(shift));
      std::set<std::pair<uint32_t, uint32_t>> got, want;
      for (const Flow& f : rounds[0].flows) got.insert({f.client, f.server});
      for (uint32_t i = 0; i < n; ++i)
        want.insert({i, static_cast<uint32_t>(((i + shift) % n + n) % n)});
      EXPECT_EQ(got, want) << "n=" << n << " shift=" << shift;
      EXPECT_EQ(rounds[0].flows.size(), n);
    }
  }
  EXPECT_EQ(plan(4, {{"pattern", "ring"}})[0].label, "ring +1");  // default shift 1
  EXPECT_TRUE(contains(expect_error(
                           [] {
                             plan(7, {{"pattern", "ring"}, {"shift", 14}});
                           },
                           "/fabric/shift"),
                       "multiple of 7"));
  expect_error([] { plan(4, {{"pattern", "ring"}, {"shift", -4}}); }, "/fabric/shift");
  EXPECT_EQ(plan(100000, {{"pattern", "ring"}})[0].flows.size(), 100000u);  // the largest plan
}

// ---- bisection ----------------------------------------------------------------------------------

std::set<std::pair<uint32_t, uint32_t>> matching(const Round& r) {
  std::set<std::pair<uint32_t, uint32_t>> m;
  for (const Flow& f : r.flows) m.insert(unordered(f));
  return m;
}

TEST(FabricBisection, PerfectMatchingsFreshPerRepetitionSeeded) {
  const json j = {{"pattern", "bisection"}, {"repetitions", 6}, {"seed", 7}};
  for (uint32_t n : {2U, 3U, 9U, 16U, 101U}) {
    const auto rounds = plan(n, j);
    ASSERT_EQ(rounds.size(), 6u);
    for (size_t i = 0; i < rounds.size(); ++i) {
      EXPECT_EQ(rounds[i].label, "bisection rep " + std::to_string(i + 1));
      EXPECT_EQ(rounds[i].flows.size(), n / 2);  // odd n: one host left out
      expect_within_cap(rounds[i], n, 1);        // a matching
    }
    EXPECT_EQ(plan(n, j), rounds) << "same seed, same rounds";
  }
  const auto r16 = plan(16, j);
  for (size_t a = 0; a < r16.size(); ++a)
    for (size_t b = a + 1; b < r16.size(); ++b) EXPECT_NE(matching(r16[a]), matching(r16[b]));
  EXPECT_NE(plan(16, {{"pattern", "bisection"}, {"repetitions", 6}, {"seed", 8}}), r16);
  EXPECT_EQ(plan(16, {{"pattern", "bisection"}}).size(), 1u);  // repetitions default 1
  EXPECT_EQ(plan(16, {{"pattern", "bisection"}}),
            plan(16, {{"pattern", "bisection"}, {"seed", 1}}));  // seed default 1
}

TEST(FabricBisection, SameMatchingOnEveryStandardLibrary) {
  // std::mt19937_64 and the explicit Fisher-Yates fix these rounds; a change here changes every
  // bisection campaign already planned.
  const auto rounds = plan(6, {{"pattern", "bisection"}, {"repetitions", 2}, {"seed", 1}});
  ASSERT_EQ(rounds.size(), 2u);
  EXPECT_EQ(rounds[0].flows, (Flows{{1, 3}, {0, 4}, {5, 2}}));
  EXPECT_EQ(rounds[1].flows, (Flows{{4, 0}, {2, 1}, {5, 3}}));
}

// ---- pairs --------------------------------------------------------------------------------------

TEST(FabricPairs, ExplicitRoundsAsGiven) {
  const auto rounds =
      plan(5, {{"pattern", "pairs"}, {"rounds", {{{0, 1}, {2, 3}}, {{4, 0}}, {{1, 0}}}}});
  ASSERT_EQ(rounds.size(), 3u);
  EXPECT_EQ(rounds[0].flows, (Flows{{0, 1}, {2, 3}}));
  EXPECT_EQ(rounds[1].flows, (Flows{{4, 0}}));
  EXPECT_EQ(rounds[2].label, "pairs 3/3");
}

TEST(FabricPairs, ErrorsNameThePathAndTheValue) {
  auto parse_rounds = [](const json& r) { pattern({{"pattern", "pairs"}, {"rounds", r}}); };
  std::string m = expect_error(
      [&] {
        parse_rounds({{{0, 1}, {"h2", 3}}});
      },
      "/fabric/rounds/0/1/0");
  EXPECT_TRUE(contains(m, "'\"h2\"'") && contains(m, "names")) << m;
  m = expect_error([&] { parse_rounds({{{0, 1}}, {{2, 2}}}); }, "/fabric/rounds/1/0/1");
  EXPECT_TRUE(contains(m, "other than the server")) << m;
  m = expect_error([&] { parse_rounds({{{0, 1}, {2, 0}}}); }, "/fabric/rounds/0/1/1");
  EXPECT_TRUE(contains(m, "'0'") && contains(m, "/fabric/rounds/0/0/0")) << m;
  expect_error([&] { parse_rounds({{{0, 1, 2}}}); }, "/fabric/rounds/0/0");
  expect_error([&] { parse_rounds({{{0, 1}}, json::array()}); }, "/fabric/rounds/1");
  expect_error([&] { parse_rounds(json::array()); }, "/fabric/rounds");
  expect_error([&] { parse_rounds({{{0, -1}}}); }, "/fabric/rounds/0/0/1");
  expect_error([&] { parse_rounds({{{0, 1.5}}}); }, "/fabric/rounds/0/0/1");
  expect_error([] { pattern({{"pattern", "pairs"}}); }, "/fabric/rounds");
  m = expect_error(
      [] {
        plan(4, {{"pattern", "pairs"}, {"rounds", {{{0, 1}}, {{2, 9}}}}});
      },
      "/fabric/rounds/1/0/1");
  EXPECT_TRUE(contains(m, "'9'") && contains(m, "below 4")) << m;
}

// ---- the per-host cap ---------------------------------------------------------------------------

// The parts of every capped round, joined again, must give the uncapped rounds back.
void expect_split(size_t hosts, const json& j, uint32_t cap) {
  SCOPED_TRACE(j.dump() + " hosts=" + std::to_string(hosts) + " cap=" + std::to_string(cap));
  const auto whole = plan(hosts, j);
  const auto parts = plan(hosts, j, cap);
  expect_indices_in_order(parts);
  size_t p = 0;
  for (const Round& w : whole) {
    Flows joined;
    size_t m = 0;
    for (; p < parts.size() &&
           (parts[p].label == w.label || parts[p].label.rfind(w.label + " part ", 0) == 0);
         ++p, ++m) {
      expect_within_cap(parts[p], hosts, cap);
      joined.insert(joined.end(), parts[p].flows.begin(), parts[p].flows.end());
    }
    EXPECT_EQ(joined, w.flows) << w.label;
    if (m > 1) {
      EXPECT_EQ(parts[p - 1].label,
                w.label + " part " + std::to_string(m) + "/" + std::to_string(m));
    }
  }
  EXPECT_EQ(p, parts.size());
}

TEST(FabricCap, SplitRoundsKeepEveryFlowOnceWithinTheCap) {
  for (uint32_t cap = 1; cap <= 5; ++cap) {
    for (size_t n : {2, 5, 6, 9}) {
      expect_split(n, {{"pattern", "all-to-all"}}, cap);
      expect_split(n, {{"pattern", "ring"}, {"shift", 3}}, cap);  // 6: cycles of 2, 9: of 3
      const json degrees = n > 2 ? json{1, n - 1} : json{1};
      expect_split(n, {{"pattern", "incast"}, {"degrees", degrees}}, cap);
      expect_split(n, {{"pattern", "pairwise"}}, cap);
      expect_split(n, {{"pattern", "bisection"}, {"repetitions", 3}}, cap);
    }
  }
  const auto parts = plan(5, {{"pattern", "all-to-all"}}, 2);
  ASSERT_EQ(parts.size(), 5u);
  EXPECT_EQ(parts[0].label, "all-to-all part 1/5");
}

TEST(FabricCap, PartsAreFewWhereTheOrderAllowsIt) {
  for (uint32_t cap = 1; cap <= 12; ++cap)  // even n: ceil(2 (n - 1) / cap), the fewest
    EXPECT_EQ(plan(6, {{"pattern", "all-to-all"}}, cap).size(), (10 + cap - 1) / cap);
  EXPECT_EQ(plan(8, {{"pattern", "ring"}}, 1).size(), 2u);
  EXPECT_EQ(plan(7, {{"pattern", "ring"}}, 1).size(), 3u);
  EXPECT_EQ(plan(8, {{"pattern", "ring"}, {"shift", 4}}, 1).size(), 2u);
  EXPECT_EQ(plan(8, {{"pattern", "ring"}}, 2).size(), 1u);
  EXPECT_EQ(plan(9, {{"pattern", "incast"}, {"degrees", {5}}, {"targets", {0}}}, 2).size(), 3u);
  EXPECT_EQ(plan(9, {{"pattern", "pairwise"}}, 1).size(), 18u);  // matchings: never split
}

// ---- everything else ----------------------------------------------------------------------------

TEST(FabricPlan, SameInputsSameRounds) {
  for (const json& j : {json{{"pattern", "pairwise"}}, json{{"pattern", "all-to-all"}},
                        json{{"pattern", "bisection"}, {"repetitions", 4}, {"seed", 3}}})
    EXPECT_EQ(plan(13, j, 3), plan(13, j, 3)) << j.dump();
}

TEST(FabricPlan, BadInputsNameTheField) {
  const json pw = {{"pattern", "pairwise"}};
  expect_error([&] { plan(1, pw); }, "hosts");
  expect_error([&] { plan(0, pw); }, "hosts");
  expect_error([&] { plan(100001, pw); }, "hosts");
  expect_error([&] { plan(4, pw, 0); }, "max_flows_per_host");
  std::string m = expect_error([&] { plan(100000, pw); }, "/fabric");
  EXPECT_TRUE(contains(m, "flows")) << m;
  expect_error([&] { plan(8000, {{"pattern", "all-to-all"}}); }, "/fabric");

  m = expect_error([] { pattern({{"pattern", "mesh"}}); }, "/fabric/pattern");
  EXPECT_TRUE(contains(m, "'\"mesh\"'") && contains(m, "all-to-all")) << m;
  m = expect_error([] { pattern({{"pattern", "ring"}, {"colour", 1}}); }, "/fabric/colour");
  EXPECT_TRUE(contains(m, "known keys: pattern, shift")) << m;
  m = expect_error(
      [] {
        pattern({{"pattern", "incast"}, {"degrees", {2, 2}}});
      },
      "/fabric/degrees/1");
  EXPECT_TRUE(contains(m, "duplicate")) << m;

  const json incast = {{"pattern", "incast"}, {"degrees", {1}}};
  auto with = [](json j, const char* key, const json& v) {
    j[key] = v;
    return j;
  };
  const std::vector<std::pair<json, std::string>> bad = {
      {json::array(), "/fabric"},
      {json::object(), "/fabric/pattern"},
      {json{{"pattern", 3}}, "/fabric/pattern"},
      {json{{"pattern", "all-to-all"}, {"shift", 1}}, "/fabric/shift"},
      {json{{"pattern", "pairwise"}, {"directions", "two"}}, "/fabric/directions"},
      {json{{"pattern", "incast"}}, "/fabric/degrees"},
      {with(incast, "degrees", json::array()), "/fabric/degrees"},
      {with(incast, "degrees", 2), "/fabric/degrees"},
      {with(incast, "degrees", {2, 0}), "/fabric/degrees/1"},
      {with(incast, "degrees", {1.5}), "/fabric/degrees/0"},
      {with(incast, "targets", "some"), "/fabric/targets"},
      {with(incast, "targets", {1, 1}), "/fabric/targets/1"},
      {with(incast, "targets", {"h1"}), "/fabric/targets/0"},
      {json{{"pattern", "ring"}, {"shift", 0}}, "/fabric/shift"},
      {json{{"pattern", "ring"}, {"shift", 1.5}}, "/fabric/shift"},
      {json{{"pattern", "ring"}, {"shift", "1"}}, "/fabric/shift"},
      {json{{"pattern", "ring"}, {"shift", UINT64_MAX}}, "/fabric/shift"},
      {json{{"pattern", "bisection"}, {"repetitions", 0}}, "/fabric/repetitions"},
      {json{{"pattern", "bisection"}, {"repetitions", 100001}}, "/fabric/repetitions"},
      {json{{"pattern", "bisection"}, {"seed", -1}}, "/fabric/seed"},
  };
  for (const auto& b : bad) expect_error([&] { pattern(b.first); }, b.second);
  EXPECT_EQ(pattern({{"pattern", "bisection"}, {"seed", UINT64_MAX}}).seed, UINT64_MAX);
}

}  // namespace
}  // namespace rdmabench
