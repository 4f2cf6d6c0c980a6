// The `search` block of a campaign: unit-cube sampling (Latin-hypercube stratification, bounds,
// determinism), parsing the block (JSON-path errors), drawing runs (budget, bounds, invalid
// combinations redrawn or skipped, duplicates, lines along the cliff's dimension), and cliff
// detection (planted cliffs, smooth curves, repetitions, the index record).
#include "orchestrator/search/search.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "base/error.h"
#include "model/campaign_index.h"
#include "model/workload_fields.h"
#include "model/workload_options.h"
#include "orchestrator/campaign/campaign.h"
#include "orchestrator/search/cliff.h"
#include "orchestrator/search/sampling.h"
#include "orchestrator/sweep/sweep.h"
#include "tests/unit/test_util.h"

namespace rdmabench {
namespace {

using nlohmann::json;

// ---- sampling ---------------------------------------------------------------------------------

TEST(Sampling, LatinHypercubeHasEachStratumOncePerDimension) {
  for (size_t n : {1, 2, 3, 7, 64, 1000}) {
    for (uint64_t seed : {0ULL, 1ULL, 42ULL, 0xdeadbeefULL}) {
      SampleRng rng(seed);
      const auto rows = latin_hypercube(n, 5, rng);
      ASSERT_EQ(rows.size(), n);
      for (size_t d = 0; d < 5; ++d) {
        std::vector<size_t> strata;
        for (const auto& r : rows) {
          ASSERT_EQ(r.size(), 5u);
          EXPECT_GE(r[d], 0.0);
          EXPECT_LT(r[d], 1.0);
          strata.push_back(stratum(r[d], n));
        }
        std::sort(strata.begin(), strata.end());
        for (size_t k = 0; k < n; ++k)
          ASSERT_EQ(strata[k], k) << "n=" << n << " seed=" << seed << " dim=" << d;
      }
    }
  }
}

TEST(Sampling, SameSeedSamePointsOtherSeedOtherPoints) {
  SampleRng a(7), b(7), c(8);
  EXPECT_EQ(latin_hypercube(16, 3, a), latin_hypercube(16, 3, b));
  SampleRng a2(7);
  EXPECT_NE(latin_hypercube(16, 3, a2), latin_hypercube(16, 3, c));
  SampleRng r1(99), r2(99);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(random_point(4, r1), random_point(4, r2));
  // mt19937_64's output is fixed by the standard: the first unit draw of seed 5489 (its default)
  // is its first output 14514284786278117030 shifted to 53 bits.
  SampleRng d(5489);
  EXPECT_DOUBLE_EQ(d.unit(), static_cast<double>(14514284786278117030ULL >> 11) * 0x1.0p-53);
}

TEST(Sampling, BoundsOfDrawsAndStrata) {
  SampleRng rng(3);
  std::vector<int> seen(7, 0);
  for (int i = 0; i < 10000; ++i) {
    const double u = rng.unit();
    ASSERT_GE(u, 0.0);
    ASSERT_LT(u, 1.0);
    const uint64_t k = rng.below(7);
    ASSERT_LT(k, 7u);
    ++seen[k];
  }
  for (int s : seen) EXPECT_GT(s, 0);
  EXPECT_EQ(rng.below(1), 0u);
  EXPECT_EQ(stratum(0.0, 4), 0u);
  EXPECT_EQ(stratum(0.25, 4), 1u);
  EXPECT_EQ(stratum(0.9999999999, 4), 3u);
  EXPECT_EQ(stratum(1.0, 4), 3u);  // clamped
  EXPECT_EQ(stratum(-0.5, 4), 0u);
  for (const auto& p : {random_point(3, rng), random_point(0, rng)})
    for (double x : p) EXPECT_TRUE(x >= 0 && x < 1);
}

// ---- parsing ----------------------------------------------------------------------------------

json search_campaign(const json& search) {
  json j = json::parse(R"({"name": "s", "hosts": [{"name": "local", "server": {"host": "local"},
                                                   "client": {"host": "local"}}]})");
  j["search"] = search;
  return j;
}

json example_search() {
  return json::parse(R"({
    "method": "lhs", "budget": 16, "seed": 7,
    "space": {"sizes": {"min": 8, "max": "1M", "scale": "log2"},
              "tx_depth": {"min": 1, "max": 1024, "scale": "log2"},
              "qp": ["rc", "uc"], "mtu": [1024, 4096],
              "rx_depth": {"min": 100, "max": 200, "scale": "linear", "step": 25}},
    "fixed": {"op": "write", "iterations": 200, "inline_size": 0}
  })");
}

const CampaignOptions kAllKinds{"", {}, campaign_kinds()};
Campaign parse(const json& j) {
  return parse_campaign(j, "/campaigns", "/usr/bin/rdmabench", kAllKinds);
}

// Parsing `j` must fail with a ConfigError naming `path`; returns the message.
std::string expect_error(const json& j, const std::string& path) {
  const ConfigError e = testutil::catch_config_error([&] { parse(j); });
  EXPECT_EQ(e.field(), path) << e.what() << " for " << j.dump();
  return e.what();
}

TEST(SearchParse, DimensionsAreWorkloadFields) {
  const Search s = parse_search(example_search(), "/search");
  EXPECT_EQ(s.method, SearchMethod::kLhs);
  EXPECT_EQ(s.budget, 16u);
  EXPECT_EQ(s.seed, 7u);
  ASSERT_EQ(s.space.size(), 5u);  // in key order
  EXPECT_EQ(s.space[0].key, "mtu");
  EXPECT_EQ(s.space[0].values, (std::vector<json>{1024, 4096}));
  EXPECT_EQ(s.space[1].key, "qp");
  EXPECT_EQ(s.space[2].key, "rx_depth");
  EXPECT_EQ(s.space[2].size(), 5u);  // 100, 125, 150, 175, 200
  EXPECT_EQ(s.space[2].value(4), json(200));
  EXPECT_EQ(s.space[2].describe(), "linear 100..200 step 25 (5 values)");
  EXPECT_EQ(s.space[3].key, "sizes");
  ASSERT_EQ(s.space[3].size(), 18u);  // 8 .. 1M
  EXPECT_EQ(s.space[3].values.front(), json::parse("[8]"));
  EXPECT_EQ(s.space[3].values.back(), json::parse("[1048576]"));
  EXPECT_EQ(s.space[3].describe(), "log2 8..1M (18 values)");
  EXPECT_EQ(s.space[4].key, "tx_depth");
  EXPECT_EQ(s.space[4].size(), 11u);
  EXPECT_EQ(s.fixed, json::parse(R"({"op": "write", "iterations": 200, "inline_size": 0})"));
  EXPECT_FALSE(s.cliff.has_value());
  EXPECT_EQ(s.line_dim, -1);
  // log2 between bounds that are not powers of two: the powers inside.
  json j = example_search();
  j["space"]["tx_depth"] = json::parse(R"({"min": 3, "max": 100, "scale": "log2"})");
  EXPECT_EQ(parse_search(j, "/search").space[4].values, (std::vector<json>{4, 8, 16, 32, 64}));
  // Defaults: lhs, seed 1.
  j = json::parse(R"({"budget": 2, "space": {"qp": ["rc", "uc"]}})");
  EXPECT_EQ(parse_search(j, "/search").method, SearchMethod::kLhs);
  EXPECT_EQ(parse_search(j, "/search").seed, 1u);
}

TEST(SearchParse, ErrorsNameTheJsonPath) {
  json j = search_campaign(example_search());
  j["matrix"] = json::parse(R"({"op": "write"})");
  EXPECT_NE(expect_error(j, "/search").find("not both"), std::string::npos);
  j = search_campaign(example_search());
  j.erase("search");
  EXPECT_NE(expect_error(j, "/matrix").find("\"search\""), std::string::npos);

  auto with = [](const std::string& ptr, const json& v) {
    json j = search_campaign(example_search());
    j[json::json_pointer(ptr)] = v;
    return j;
  };
  auto without = [](const std::string& key) {
    json j = search_campaign(example_search());
    j["search"].erase(key);
    return j;
  };
  expect_error(with("/search/method", "grid"), "/search/method");
  expect_error(with("/search/budget", 0), "/search/budget");
  expect_error(with("/search/budget", 1.5), "/search/budget");
  expect_error(with("/search/budget", 10001), "/search/budget");
  expect_error(without("budget"), "/search/budget");
  expect_error(with("/search/seed", -1), "/search/seed");
  expect_error(with("/search/bogus", 1), "/search/bogus");
  expect_error(without("space"), "/search/space");
  expect_error(with("/search/space", json::object()), "/search/space");
  // "size" is not a field (the matrix key is "sizes"): the message lists the known fields.
  EXPECT_NE(expect_error(with("/search/space/size", json::parse(R"(["8"])")), "/search/space/size")
                .find("sizes"),
            std::string::npos);
  expect_error(with("/search/space/qp/1", "xx"), "/search/space/qp/1");
  expect_error(with("/search/space/qp", json::array()), "/search/space/qp");
  expect_error(with("/search/space/qp", json::parse(R"(["rc", "rc"])")), "/search/space/qp/1");
  expect_error(with("/search/space/qp", json::parse(R"({"min": 1, "max": 2, "scale": "log2"})")),
               "/search/space/qp/min");
  expect_error(with("/search/space/mtu", 1024), "/search/space/mtu");
  expect_error(with("/search/space/tx_depth/scale", "log10"), "/search/space/tx_depth/scale");
  expect_error(with("/search/space/tx_depth/max", 0), "/search/space/tx_depth/max");
  expect_error(with("/search/space/tx_depth/min", 2000),
               "/search/space/tx_depth/max");  // max < min
  expect_error(with("/search/space/tx_depth/steps", 2), "/search/space/tx_depth/steps");
  expect_error(with("/search/space/tx_depth/step", 2), "/search/space/tx_depth/step");  // log2
  expect_error(with("/search/space/rx_depth/step", 0), "/search/space/rx_depth/step");
  expect_error(
      with("/search/space/tx_depth", json::parse(R"({"min": 5, "max": 7, "scale": "log2"})")),
      "/search/space/tx_depth/max");  // no power of two inside
  expect_error(with("/search/space/sizes/min", "8-16"), "/search/space/sizes/min");
  expect_error(
      with("/search/space/mtu", json::parse(R"({"min": 100, "max": 4096, "scale": "log2"})")),
      "/search/space/mtu/min");                                      // not an MTU
  expect_error(with("/search/fixed/qp", "rc"), "/search/fixed/qp");  // also a dimension
  expect_error(with("/search/fixed/op", json::parse(R"(["write", "send"])")), "/search/fixed/op");
  expect_error(with("/search/fixed/op", "bogus"), "/search/fixed/op");
  expect_error(with("/search/fixed", 3), "/search/fixed");
  expect_error(with("/search/cliff", json::parse(R"({"along": "iterations"})")),
               "/search/cliff/along");
  expect_error(with("/search/cliff", json::parse(R"({"along": "sizes", "metric": "latency"})")),
               "/search/cliff/metric");
  expect_error(with("/search/cliff", json::parse(R"({"along": "sizes", "threshold": 1})")),
               "/search/cliff/threshold");
  expect_error(with("/search/cliff", json::parse(R"({"along": "sizes", "threshold": 0})")),
               "/search/cliff/threshold");
  expect_error(with("/search/cliff", json::parse(R"({"metric": "bw_gbps"})")),
               "/search/cliff/along");
  expect_error(with("/search/cliff", json::parse(R"({"along": "sizes", "x": 1})")),
               "/search/cliff/x");
  // Along tx_depth (11 values), every sample is 11 runs: a budget of 10 cannot hold one.
  json j2 = with("/search/cliff", json::parse(R"({"along": "tx_depth"})"));
  j2["search"]["budget"] = 10;
  EXPECT_NE(expect_error(j2, "/search/budget").find("11"), std::string::npos);
  // A line longer than 64 values.
  j2 = with("/search/cliff", json::parse(R"({"along": "rx_depth"})"));
  j2["search"]["space"]["rx_depth"] = json::parse(R"({"min": 1, "max": 100, "scale": "linear"})");
  expect_error(j2, "/search/space/rx_depth");
  // More runs than the space has distinct points.
  json small = search_campaign(
      json::parse(R"({"budget": 5, "space": {"qp": ["rc", "uc"], "mtu": [1024, 4096]}})"));
  EXPECT_NE(expect_error(small, "/search/budget").find("only 4 distinct"), std::string::npos);
  // Excludes are a matrix feature.
  json ex = search_campaign(example_search());
  ex["exclude"] = json::parse(R"([{"qp": "uc"}])");
  expect_error(ex, "/exclude");
  // A space where random sampling finds no valid run.
  json none = search_campaign(json::parse(R"({"method": "random", "budget": 2,
      "space": {"qp": ["uc", "ud"], "tx_depth": [1, 2, 4]}, "fixed": {"op": "read"}})"));
  expect_error(none, "/search/space");
}

// ---- drawing ----------------------------------------------------------------------------------

std::string valid(const json& values) {
  try {
    workload_from_values(values);
    return "";
  } catch (const ConfigError& e) {
    return e.what();
  }
}

bool is_power_of_two(uint64_t v) { return v != 0 && (v & (v - 1)) == 0; }

TEST(SearchDraw, BudgetBoundsAndDeterminism) {
  for (const char* method : {"lhs", "random"}) {
    json j = example_search();
    j["method"] = method;
    const Search s = parse_search(j, "/search");
    const SearchDraw d = draw_search(s, valid, "/search");
    EXPECT_EQ(d.runs.size(), 16u) << method;  // a space of 8712 points: no duplicate
    EXPECT_EQ(d.samples, 16u);
    std::set<std::string> distinct;
    for (const auto& r : d.runs) {
      distinct.insert(r.values.dump());
      EXPECT_TRUE(r.skip_reason.empty()) << r.skip_reason;
      EXPECT_EQ(r.values["op"], "write");
      EXPECT_EQ(r.values["iterations"], 200);
      const uint64_t size = r.values["sizes"][0].get<uint64_t>();
      EXPECT_TRUE(is_power_of_two(size) && size >= 8 && size <= 1048576) << size;
      const uint64_t depth = r.values["tx_depth"].get<uint64_t>();
      EXPECT_TRUE(is_power_of_two(depth) && depth >= 1 && depth <= 1024) << depth;
      const uint64_t rx = r.values["rx_depth"].get<uint64_t>();
      EXPECT_TRUE(rx >= 100 && rx <= 200 && rx % 25 == 0) << rx;
      EXPECT_TRUE(r.values["qp"] == "rc" || r.values["qp"] == "uc");
      EXPECT_TRUE(r.values["mtu"] == 1024 || r.values["mtu"] == 4096);
    }
    EXPECT_EQ(distinct.size(), d.runs.size());
    // Same seed: the same runs, hence the same point ids; another seed: other runs.
    json c = search_campaign(j);
    const Expansion x1 = expand(parse(c)), x2 = expand(parse(c));
    ASSERT_EQ(x1.points.size(), 16u);
    for (size_t i = 0; i < x1.points.size(); ++i) {
      EXPECT_EQ(x1.points[i].id, x2.points[i].id);
      EXPECT_EQ(x1.points[i].values(), d.runs[i].values);
    }
    c["search"]["seed"] = 8;
    const Expansion x3 = expand(parse(c));
    size_t same = 0;
    for (size_t i = 0; i < x3.points.size(); ++i)
      same += x3.points[i].id == x1.points[i].id ? 1 : 0;
    EXPECT_LT(same, 16u);
  }
}

TEST(SearchDraw, LhsCoversEveryValueOnceWhenTheBudgetMatches) {
  // 8 runs over dimensions of 8 values each: every value exactly once per dimension.
  const Search s = parse_search(json::parse(R"({"method": "lhs", "budget": 8, "seed": 3,
      "space": {"tx_depth": {"min": 1, "max": 128, "scale": "log2"},
                "rx_depth": {"min": 10, "max": 80, "scale": "linear", "step": 10},
                "sizes": {"min": 64, "max": "8K", "scale": "log2"}}})"),
                                "/search");
  const SearchDraw d = draw_search(s, valid, "/search");
  ASSERT_EQ(d.runs.size(), 8u);
  std::set<uint64_t> depths, rx, sizes;
  for (const auto& r : d.runs) {
    depths.insert(r.values["tx_depth"].get<uint64_t>());
    rx.insert(r.values["rx_depth"].get<uint64_t>());
    sizes.insert(r.values["sizes"][0].get<uint64_t>());
  }
  EXPECT_EQ(depths, (std::set<uint64_t>{1, 2, 4, 8, 16, 32, 64, 128}));
  EXPECT_EQ(rx, (std::set<uint64_t>{10, 20, 30, 40, 50, 60, 70, 80}));
  EXPECT_EQ(sizes, (std::set<uint64_t>{64, 128, 256, 512, 1024, 2048, 4096, 8192}));
  // 16 runs over 2 values: each value 8 times.
  const Search s2 = parse_search(json::parse(R"({"budget": 16,
      "space": {"qp": ["rc", "uc"], "tx_depth": {"min": 1, "max": 1024, "scale": "linear"}}})"),
                                 "/search");
  std::map<std::string, int> qps;
  for (const auto& r : draw_search(s2, valid, "/search").runs)
    ++qps[r.values["qp"].get<std::string>()];
  EXPECT_EQ(qps["rc"], 8);
  EXPECT_EQ(qps["uc"], 8);
}

TEST(SearchDraw, InvalidCombinationsRandomRedrawsLhsSkips) {
  const json space = json::parse(
      R"({"qp": ["rc", "uc"], "tx_depth": {"min": 1, "max": 1024, "scale": "linear"}})");
  json j = {{"method", "random"},
            {"budget", 8},
            {"seed", 5},
            {"space", space},
            {"fixed", {{"op", "read"}}}};
  const SearchDraw r = draw_search(parse_search(j, "/search"), valid, "/search");
  ASSERT_EQ(r.runs.size(), 8u);
  EXPECT_GT(r.redrawn, 0u);  // read on UC: redrawn
  EXPECT_EQ(r.invalid, 0u);
  for (const auto& run : r.runs) {
    EXPECT_EQ(run.values["qp"], "rc");
    EXPECT_TRUE(run.skip_reason.empty());
  }
  j["method"] = "lhs";
  const SearchDraw l = draw_search(parse_search(j, "/search"), valid, "/search");
  ASSERT_EQ(l.runs.size(), 8u);  // the design is kept: half of it UC, skipped with the reason
  EXPECT_EQ(l.invalid, 4u);
  EXPECT_EQ(l.redrawn, 0u);
  for (const auto& run : l.runs) {
    if (run.values["qp"] == "uc")
      EXPECT_NE(run.skip_reason.find("UC QPs support send, send_imm, write and write_imm only"),
                std::string::npos);
    else
      EXPECT_TRUE(run.skip_reason.empty());
  }
  // In a campaign, those runs become skipped points (recorded, never run), like the matrix's.
  const Expansion x = expand(parse(search_campaign(j)));
  size_t skipped = 0;
  for (const auto& p : x.points) skipped += p.skipped() ? 1 : 0;
  EXPECT_EQ(skipped, 4u);
}

TEST(SearchDraw, LhsDropsDuplicateSamples) {
  // 4 rows over 2 x 2 values: LHS gives each value twice per dimension, so two rows may repeat.
  size_t with_duplicates = 0;
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    json j = {
        {"budget", 4}, {"seed", seed}, {"space", {{"qp", {"rc", "uc"}}, {"mtu", {1024, 4096}}}}};
    const SearchDraw d = draw_search(parse_search(j, "/search"), valid, "/search");
    EXPECT_EQ(d.samples + d.duplicates, 4u);
    EXPECT_EQ(d.runs.size(), d.samples);
    std::set<std::string> distinct;
    for (const auto& r : d.runs) distinct.insert(r.values.dump());
    EXPECT_EQ(distinct.size(), d.runs.size());
    with_duplicates += d.duplicates != 0 ? 1 : 0;
    // Random sampling redraws instead: always the budget.
    j["method"] = "random";
    EXPECT_EQ(draw_search(parse_search(j, "/search"), valid, "/search").runs.size(), 4u);
  }
  EXPECT_GT(with_duplicates, 0u);
}

TEST(SearchDraw, LineAlongSizesIsOneRunPerSample) {
  const Search s = parse_search(json::parse(R"({"budget": 6, "seed": 2,
      "space": {"sizes": {"min": 64, "max": "16K", "scale": "log2"}, "qp": ["rc", "uc"],
                "tx_depth": {"min": 4, "max": 64, "scale": "log2"}},
      "fixed": {"op": "write"},
      "cliff": {"metric": "bw_gbps", "threshold": 0.3, "along": "sizes"}})"),
                                "/search");
  ASSERT_GE(s.line_dim, 0);
  EXPECT_EQ(s.runs_per_sample(), 1u);
  const SearchDraw d = draw_search(s, valid, "/search");
  ASSERT_EQ(d.runs.size(), 6u);
  for (const auto& r : d.runs)
    EXPECT_EQ(r.values["sizes"], json::parse("[64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384]"));
}

TEST(SearchDraw, LineAlongAnotherFieldRunsEachValue) {
  const Search s = parse_search(json::parse(R"({"budget": 14, "seed": 2,
      "space": {"sizes": {"min": 64, "max": "16K", "scale": "log2"}, "qp": ["rc", "uc"],
                "tx_depth": [1, 4, 16, 64]},
      "cliff": {"metric": "msg_rate", "along": "tx_depth"}})"),
                                "/search");
  EXPECT_EQ(s.runs_per_sample(), 4u);
  EXPECT_TRUE(s.along_order().empty());  // numbers: ordered by value
  const SearchDraw d = draw_search(s, valid, "/search");
  ASSERT_EQ(d.runs.size(), 12u);  // 14 / 4 = 3 samples of 4 runs
  for (size_t k = 0; k < 3; ++k) {
    for (size_t i = 0; i < 4; ++i) {
      json a = d.runs[4 * k + i].values, b = d.runs[4 * k].values;
      EXPECT_EQ(a["tx_depth"], json(std::vector<int>{1, 4, 16, 64}[i]));
      a.erase("tx_depth");
      b.erase("tx_depth");
      EXPECT_EQ(a, b) << "runs of one sample differ only along tx_depth";
    }
  }
  // A categorical line is ordered as the space lists it.
  const Search q = parse_search(json::parse(R"({"budget": 3, "space": {"qp": ["uc", "rc", "ud"]},
      "fixed": {"op": "send"}, "cliff": {"along": "qp"}})"),
                                "/search");
  EXPECT_EQ(q.along_order(), (std::vector<json>{"uc", "rc", "ud"}));
}

// ---- cliffs -----------------------------------------------------------------------------------

std::vector<CliffObservation> curve(const std::string& line, const std::vector<double>& metrics,
                                    const std::string& rep = "r1") {
  std::vector<CliffObservation> out;
  for (size_t i = 0; i < metrics.size(); ++i) {
    CliffObservation o;
    o.line = line;
    o.line_values = {{"line", line}};
    o.x = std::ldexp(1.0, static_cast<int>(i) + 6);  // 64, 128, ...
    o.value = static_cast<uint64_t>(o.x);
    o.metric = metrics[i];
    o.point_id = line + "-" + std::to_string(i) + "-" + rep;
    out.push_back(o);
  }
  return out;
}

TEST(Cliffs, PlantedStepIsFoundOnce) {
  const CliffScan s = find_cliffs(curve("a", {1, 2, 4, 8, 9, 4, 4.1, 4}), 0.3);
  ASSERT_EQ(s.cliffs.size(), 1u);
  const Cliff& c = s.cliffs[0];
  EXPECT_EQ(c.at.value, json(64 << 5));
  EXPECT_DOUBLE_EQ(c.at.metric, 4);
  EXPECT_DOUBLE_EQ(c.previous.metric, 9);
  EXPECT_EQ(c.previous.value, json(64 << 4));
  ASSERT_TRUE(c.next.has_value());
  EXPECT_DOUBLE_EQ(c.next->metric, 4.1);
  EXPECT_NEAR(c.drop, 5.0 / 9.0, 1e-12);
  EXPECT_EQ(c.shape, "step");
  EXPECT_EQ(c.at.point_ids, std::vector<std::string>{"a-5-r1"});
  EXPECT_EQ(c.line, json::parse(R"({"line": "a"})"));
  EXPECT_EQ(s.lines, 1u);
  EXPECT_EQ(s.values, 8u);
}

TEST(Cliffs, DipAndEnd) {
  CliffScan s = find_cliffs(curve("a", {5, 6, 2, 6.1, 6}), 0.3);
  ASSERT_EQ(s.cliffs.size(), 1u);
  EXPECT_EQ(s.cliffs[0].shape, "dip");
  EXPECT_DOUBLE_EQ(s.cliffs[0].at.metric, 2);
  s = find_cliffs(curve("a", {5, 6, 7, 3}), 0.3);
  ASSERT_EQ(s.cliffs.size(), 1u);
  EXPECT_EQ(s.cliffs[0].shape, "end");
  EXPECT_FALSE(s.cliffs[0].next.has_value());
  // The first point is never a cliff, however low.
  EXPECT_TRUE(find_cliffs(curve("a", {0.1, 6, 7}), 0.3).cliffs.empty());
}

TEST(Cliffs, SmoothCurvesHaveNone) {
  std::vector<double> rising, saturating, gentle, noisy;
  for (int i = 0; i < 18; ++i) {
    rising.push_back(std::pow(2.0, i));
    saturating.push_back(10 * (1 - std::exp(-0.5 * i)) + 0.01);
    gentle.push_back(100 * std::pow(0.8, i));  // 20 % less per step: under a 30 % threshold
    noisy.push_back(8 * (1 + 0.1 * ((i % 3) - 1)));
  }
  for (const auto& c : {rising, saturating, gentle, noisy}) {
    const CliffScan s = find_cliffs(curve("a", c), 0.3);
    EXPECT_TRUE(s.cliffs.empty()) << s.cliffs.size();
    EXPECT_EQ(s.lines, 1u);
  }
  // ... but the gentle decline is a cliff at every step for a 10 % threshold.
  EXPECT_EQ(find_cliffs(curve("a", gentle), 0.1).cliffs.size(), 17u);
  // Exactly the threshold is not more than it.
  EXPECT_TRUE(find_cliffs(curve("a", {10, 7.5}), 0.25).cliffs.empty());
  EXPECT_EQ(find_cliffs(curve("a", {10, 7.49}), 0.25).cliffs.size(), 1u);
}

TEST(Cliffs, LinesAreSeparateAndRepetitionsAveraged) {
  // Interleaved lines at very different levels never compare with each other.
  auto obs = curve("high", {10, 10, 10});
  for (auto& o : curve("low", {1, 1, 1})) obs.push_back(o);
  CliffScan s = find_cliffs(obs, 0.3);
  EXPECT_TRUE(s.cliffs.empty());
  EXPECT_EQ(s.lines, 2u);
  // Two repetitions: 10 and 2 at the third value average to 6 (a 40 % drop from 10).
  obs = curve("a", {10, 10, 10, 10}, "r1");
  for (auto& o : curve("a", {10, 10, 2, 10}, "r2")) obs.push_back(o);
  s = find_cliffs(obs, 0.3);
  ASSERT_EQ(s.cliffs.size(), 1u);
  EXPECT_DOUBLE_EQ(s.cliffs[0].at.metric, 6);
  EXPECT_EQ(s.cliffs[0].at.point_ids, (std::vector<std::string>{"a-2-r1", "a-2-r2"}));
  EXPECT_EQ(s.cliffs[0].shape, "dip");
  EXPECT_EQ(s.values, 4u);
  // A line of one value cannot show a cliff and is not counted; bad metrics are ignored.
  obs = curve("single", {5});
  auto nan = curve("n", {10, NAN, 10, -1, 10});
  obs.insert(obs.end(), nan.begin(), nan.end());
  s = find_cliffs(obs, 0.3);
  EXPECT_TRUE(s.cliffs.empty());
  EXPECT_EQ(s.lines, 1u);
  EXPECT_EQ(s.values, 3u);
}

json result_doc(const std::vector<std::pair<uint64_t, double>>& gbps) {
  json doc = {{"results", json::array()}};
  for (const auto& [size, g] : gbps)
    doc["results"].push_back(
        {{"size", size}, {"gbps", g}, {"mmsg_per_s", g * 1000 / 8 / size}, {"error", nullptr}});
  return doc;
}

TEST(Cliffs, ObservationsFromResultDocuments) {
  const json values =
      json::parse(R"({"op": "write", "qp": "rc", "sizes": [64, 128, 256], "tx_depth": 16})");
  CliffSpec along_sizes{CliffMetric::kBwGbps, 0.3, "sizes"};
  json doc = result_doc({{64, 1.0}, {128, 2.0}, {256, 0.5}});
  doc["results"][1]["error"] = "timeout";  // a failed size is left out
  auto obs = cliff_observations(doc, values, "local", "p1", along_sizes, {});
  ASSERT_EQ(obs.size(), 2u);
  EXPECT_EQ(obs[0].x, 64);
  EXPECT_EQ(obs[1].value, json(256));
  EXPECT_EQ(obs[0].line, obs[1].line);
  EXPECT_EQ(obs[0].line_values,
            json::parse(R"({"op": "write", "qp": "rc", "tx_depth": 16, "host_pair": "local"})"));
  const CliffScan s = find_cliffs(obs, 0.3);
  ASSERT_EQ(s.cliffs.size(), 1u);
  EXPECT_EQ(s.cliffs[0].at.value, json(256));

  // Along tx_depth: each size starts its own line; the position is the point's tx_depth.
  CliffSpec along_depth{CliffMetric::kMsgRate, 0.3, "tx_depth"};
  obs = cliff_observations(result_doc({{64, 1.0}, {128, 2.0}}), values, "local", "p1", along_depth,
                           {});
  ASSERT_EQ(obs.size(), 2u);
  EXPECT_NE(obs[0].line, obs[1].line);
  EXPECT_EQ(obs[0].x, 16);
  EXPECT_DOUBLE_EQ(obs[0].metric, 1.0 * 1000 / 8 / 64);
  EXPECT_EQ(obs[0].line_values["sizes"], json::parse("[64]"));
  EXPECT_FALSE(obs[0].line_values.contains("tx_depth"));
  // Other host pairs are other lines.
  auto other = cliff_observations(result_doc({{64, 1.0}}), values, "h1-h2", "p2", along_depth, {});
  ASSERT_EQ(other.size(), 1u);
  EXPECT_NE(other[0].line, obs[0].line);

  // Categorical: the position is the index in the space's list.
  CliffSpec along_qp{CliffMetric::kBwGbps, 0.3, "qp"};
  obs = cliff_observations(result_doc({{64, 1.0}}), values, "local", "p1", along_qp, {"uc", "rc"});
  ASSERT_EQ(obs.size(), 1u);
  EXPECT_EQ(obs[0].x, 1);
  // Not a result document: nothing.
  EXPECT_TRUE(
      cliff_observations(json::parse(R"({"results": 3})"), values, "l", "p", along_qp, {}).empty());
  EXPECT_TRUE(cliff_observations(json(), values, "l", "p", along_sizes, {}).empty());
}

TEST(Cliffs, IndexRecordRoundTrip) {
  CliffSpec spec{CliffMetric::kBwGbps, 0.3, "sizes"};
  const CliffScan scan = find_cliffs(curve("a", {1, 2, 4, 8, 9, 4, 4.1, 4}), 0.3);
  const nlohmann::ordered_json rec = cliffs_record(spec, scan, "2024-01-01T00:00:00Z");
  EXPECT_EQ(rec["record"], "cliffs");
  EXPECT_EQ(rec["metric"], "bw_gbps");
  EXPECT_EQ(rec["along"], "sizes");
  EXPECT_EQ(rec["lines"], 1);
  ASSERT_EQ(rec["cliffs"].size(), 1u);
  EXPECT_EQ(rec["cliffs"][0]["point_id"], "a-5-r1");
  EXPECT_EQ(rec["cliffs"][0]["value"], 2048);
  EXPECT_EQ(rec["cliffs"][0]["previous"]["value"], 1024);
  EXPECT_EQ(rec["cliffs"][0]["next"]["metric"], 4.1);
  EXPECT_EQ(rec["cliffs"][0]["shape"], "step");

  // In an index: point lines stay readable, the record is not a bad line, the last one counts.
  const std::string text =
      R"({"point_id":"p1","status":"ok","duration_s":1,"error":null,"host_pair":"local","repetition":1,"time":"t"})"
      "\n" +
      cliffs_record(spec, CliffScan{}, "t0").dump() + "\n" + rec.dump() + "\n" +
      R"({"point_id":"p2","status":"failed","duration_s":1,"error":"x","host_pair":"local","repetition":1,"time":"t"})"
      "\n";
  size_t bad = 99;
  const auto index = parse_index(text, &bad);
  EXPECT_EQ(bad, 0u);
  EXPECT_EQ(index.size(), 2u);
  std::vector<std::string> refused;
  const auto cliffs = last_cliffs_record(parse_records(text, kCliffsRecord), refused);
  ASSERT_TRUE(cliffs.has_value());
  EXPECT_TRUE(refused.empty());
  EXPECT_EQ(cliffs->cliffs.size(), 1u);
  EXPECT_EQ(cliffs->time, "2024-01-01T00:00:00Z");
  EXPECT_EQ(to_json(*cliffs).dump(), rec.dump());  // read back through the one type
  EXPECT_FALSE(last_cliffs_record(
                   parse_records(R"({"point_id":"p1","status":"ok"})", kCliffsRecord), refused)
                   .has_value());
  nlohmann::json malformed = nlohmann::json::parse(rec.dump());
  malformed["cliffs"][0]["drop"] = "much";
  EXPECT_FALSE(last_cliffs_record({malformed}, refused).has_value());
  ASSERT_EQ(refused.size(), 1u);
  EXPECT_NE(refused[0].find("/cliffs/0/drop"), std::string::npos) << refused[0];

  std::ostringstream out;
  print_cliffs(out, spec, scan);
  EXPECT_NE(out.str().find("1 in 1 line(s)"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("a-5-r1: sizes 2K 4 after 9 at 1K (-55.6 %), step"), std::string::npos)
      << out.str();
}

}  // namespace
}  // namespace rdmabench
