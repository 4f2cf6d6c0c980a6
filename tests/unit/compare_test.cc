// rdmabench compare: the change-detection rule (pure functions) and the comparison of the
// committed result fixtures with copies in which a regression is planted by the test itself.
#include "report/compare.h"

#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

#include "base/error.h"
#include "report/change_detection.h"
#include "report/comparison.h"
#include "report/results_set.h"
#include "tests/unit/report_test_util.h"

namespace rdmabench {
namespace {

using namespace testutil;
using nlohmann::json;

constexpr bool kHigherIsBetter = true;
constexpr bool kLowerIsBetter = false;

// --- the rule ----------------------------------------------------------------------------------

TEST(ChangeDetection, PlantedRegressionBeyondTheSpreadIsFlagged) {
  Change c = judge_change({10.0, 10.2, 9.9}, {8.0, 8.1, 7.9}, kHigherIsBetter, ChangeRule{});
  EXPECT_TRUE(c.real);
  EXPECT_EQ(c.verdict, Verdict::kRegression);
  EXPECT_NEAR(c.change_pct, -20.0, 1e-9);
  EXPECT_DOUBLE_EQ(c.a.median, 10.0);
  EXPECT_DOUBLE_EQ(c.a.min, 9.9);
  EXPECT_DOUBLE_EQ(c.a.max, 10.2);
  EXPECT_EQ(c.a.n, 3u);
}

TEST(ChangeDetection, OverlappingRangesAreNoiseEvenForALargeMedianChange) {
  // Medians 10 -> 8.5 (-15 %), but A's spread reaches down into B's.
  Change c = judge_change({10.0, 12.0, 7.0}, {8.5, 8.0, 9.0}, kHigherIsBetter, ChangeRule{});
  EXPECT_FALSE(c.real);
  EXPECT_EQ(c.verdict, Verdict::kNoise);
  EXPECT_NEAR(c.change_pct, -15.0, 1e-9);
}

TEST(ChangeDetection, ImprovementIsNotARegression) {
  Change c = judge_change({10.0, 10.1}, {12.0, 12.2}, kHigherIsBetter, ChangeRule{});
  EXPECT_TRUE(c.real);
  EXPECT_EQ(c.verdict, Verdict::kImprovement);
  EXPECT_GT(c.change_pct, 0);
}

TEST(ChangeDetection, LatencyDirectionIsInverted) {
  // Latency going up is the regression, going down the improvement.
  EXPECT_EQ(judge_change({5.0, 5.05}, {6.0, 6.1}, kLowerIsBetter, ChangeRule{}).verdict,
            Verdict::kRegression);
  EXPECT_EQ(judge_change({5.0, 5.05}, {4.0, 4.1}, kLowerIsBetter, ChangeRule{}).verdict,
            Verdict::kImprovement);
  // The same numbers read as bandwidth mean the opposite.
  EXPECT_EQ(judge_change({5.0, 5.05}, {6.0, 6.1}, kHigherIsBetter, ChangeRule{}).verdict,
            Verdict::kImprovement);
}

TEST(ChangeDetection, SingleRepetitionsUseTheNoiseFloor) {
  ChangeRule rule;  // floor 2 %, threshold 5 %
  // Bands 10 +/- 0.2 and 9.7 +/- 0.194 overlap: noise.
  EXPECT_EQ(judge_change({10.0}, {9.7}, kHigherIsBetter, rule).verdict, Verdict::kNoise);
  // 10 +/- 0.2 = [9.8, 10.2] vs 9.5 +/- 0.19 = [9.31, 9.69]: real, but -5 % is not beyond 5 %.
  Change c = judge_change({10.0}, {9.5}, kHigherIsBetter, rule);
  EXPECT_TRUE(c.real);
  EXPECT_EQ(c.verdict, Verdict::kChanged);
  EXPECT_DOUBLE_EQ(c.band_a.low, 9.8);
  EXPECT_DOUBLE_EQ(c.band_a.high, 10.2);
  // -10 %: a regression.
  EXPECT_EQ(judge_change({10.0}, {9.0}, kHigherIsBetter, rule).verdict, Verdict::kRegression);
  // A larger floor swallows it.
  rule.noise_floor_pct = 6;
  EXPECT_EQ(judge_change({10.0}, {9.0}, kHigherIsBetter, rule).verdict, Verdict::kNoise);
}

TEST(ChangeDetection, AgreeingRepetitionsStillGetTheNoiseFloor) {
  // Histogram percentiles of repetitions are often equal; 2 % apart is within the floor.
  EXPECT_EQ(judge_change({5.0, 5.0, 5.0}, {5.1, 5.1}, kLowerIsBetter, ChangeRule{}).verdict,
            Verdict::kNoise);
  // With no floor the same numbers are a real (small) change.
  ChangeRule none{5, 0};
  Change c = judge_change({5.0, 5.0, 5.0}, {5.1, 5.1}, kLowerIsBetter, none);
  EXPECT_TRUE(c.real);
  EXPECT_EQ(c.verdict, Verdict::kChanged);
}

TEST(ChangeDetection, TouchingBandsOverlap) {
  ChangeRule none{5, 0};
  // A = [9, 10], B = [8, 9]: they share 9, so not real however far the medians are.
  EXPECT_EQ(judge_change({9.0, 10.0}, {8.0, 9.0}, kHigherIsBetter, none).verdict, Verdict::kNoise);
}

TEST(ChangeDetection, ThresholdDecidesBetweenChangedAndRegression) {
  ChangeRule rule{20, 0};
  EXPECT_EQ(judge_change({10.0, 10.1}, {8.5, 8.6}, kHigherIsBetter, rule).verdict,
            Verdict::kChanged);
  rule.threshold_pct = 10;
  EXPECT_EQ(judge_change({10.0, 10.1}, {8.5, 8.6}, kHigherIsBetter, rule).verdict,
            Verdict::kRegression);
}

TEST(ChangeDetection, ZeroBaselineAndEmptyInput) {
  Change c = judge_change({0.0}, {0.0}, kHigherIsBetter, ChangeRule{});
  EXPECT_EQ(c.change_pct, 0);
  EXPECT_EQ(c.verdict, Verdict::kNoise);
  c = judge_change({0.0}, {1.0}, kLowerIsBetter, ChangeRule{});
  EXPECT_TRUE(std::isinf(c.change_pct));
  EXPECT_EQ(c.verdict, Verdict::kRegression);
  EXPECT_THROW(judge_change({}, {1.0}, kHigherIsBetter, ChangeRule{}), std::invalid_argument);
  EXPECT_THROW(judge_change({1.0}, {}, kHigherIsBetter, ChangeRule{}), std::invalid_argument);
}

TEST(ChangeDetection, MetricNames) {
  EXPECT_EQ(parse_metrics({}), default_metrics());
  EXPECT_EQ(parse_metrics({"p99.9,gbps", "gbps"}),
            (std::vector<Metric>{Metric::kP999, Metric::kGbps}));
  try {
    parse_metrics({"gbps,latency"});
    FAIL() << "expected ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.field(), "--metric");
    EXPECT_EQ(e.value(), "latency");
    EXPECT_NE(e.allowed().find("p99.9"), std::string::npos);
  }
  EXPECT_THROW(parse_percent("--threshold", "abc", 0, 1000), ConfigError);
  EXPECT_THROW(parse_percent("--threshold", "-1", 0, 1000), ConfigError);
  EXPECT_THROW(parse_percent("--threshold", "5%", 0, 1000), ConfigError);
  EXPECT_DOUBLE_EQ(parse_percent("--threshold", "7.5", 0, 1000), 7.5);
}

// --- result sets ---------------------------------------------------------------------------

std::vector<ResultFile> load(const std::string& path) {
  std::ostringstream notes;
  return load_results({path}, notes);
}

// Result fixture folder `src` copied to `dst`, with `edit` applied to every size result of
// size `size` (every size when 0).
void plant(const std::string& src, const fs::path& dst, uint64_t size,
           const std::function<void(json&)>& edit) {
  copy_docs(src, dst, [&](json& doc) {
    for (auto& s : doc["results"])
      if (size == 0 || s["size"].get<uint64_t>() == size) edit(s);
  });
}

const MatchedMetric* find_row(const Comparison& c, uint64_t size, Metric m) {
  for (const auto& r : c.rows)
    if (r.size == size && r.metric == m) return &r;
  return nullptr;
}

TEST(Compare, IdenticalSetsHaveNoChange) {
  auto a = load(results_fixture("repeat"));
  Comparison c = compare_results(a, a, default_metrics(), ChangeRule{});
  // One workload (three repetitions), 11 sizes, two bandwidth metrics.
  EXPECT_EQ(c.matched_points, 11u);
  EXPECT_EQ(c.rows.size(), 22u);
  EXPECT_TRUE(c.unmatched.empty());
  EXPECT_EQ(c.regressions, 0u);
  for (const auto& r : c.rows) {
    EXPECT_EQ(r.change.verdict, Verdict::kNoise);
    EXPECT_EQ(r.a.size(), 3u);
    EXPECT_EQ(r.change.change_pct, 0);
  }
}

TEST(Compare, PlantedBandwidthRegressionIsFlaggedAndOnlyThere) {
  TempDir dir;
  // B: the three repetitions with the 4 KiB measurement taking twice as long.
  plant(results_fixture("repeat"), dir.path() / "b", 4096, [](json& s) { scale_rate(s, 0.5); });
  auto a = load(results_fixture("repeat"));
  auto b = load((dir.path() / "b").string());
  Comparison c = compare_results(a, b, default_metrics(), ChangeRule{});
  const MatchedMetric* gbps = find_row(c, 4096, Metric::kGbps);
  ASSERT_NE(gbps, nullptr);
  // The plant really is beyond A's spread (the fixtures are noisy Soft-RoCE runs).
  ASSERT_LT(gbps->change.b.max, gbps->change.a.min);
  EXPECT_EQ(gbps->change.verdict, Verdict::kRegression);
  EXPECT_NEAR(gbps->change.change_pct, -50.0, 1e-6);
  EXPECT_EQ(find_row(c, 4096, Metric::kMmsg)->change.verdict, Verdict::kRegression);
  EXPECT_EQ(c.regressions, 2u);
  for (const auto& r : c.rows) {
    if (r.size != 4096) {
      EXPECT_EQ(r.change.verdict, Verdict::kNoise) << r.size;
    }
  }

  std::ostringstream out, notes;
  CompareOptions opt;
  opt.a = results_fixture("repeat");
  opt.b = (dir.path() / "b").string();
  EXPECT_EQ(run_compare(opt, out, notes), 1);
  EXPECT_NE(out.str().find("REGRESSION"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("2 regression(s)"), std::string::npos) << out.str();
  // Swapped, the same change is an improvement and not a failure.
  std::swap(opt.a, opt.b);
  std::ostringstream out2;
  EXPECT_EQ(run_compare(opt, out2, notes), 0);
  EXPECT_NE(out2.str().find("0 regression(s), 2 improvement(s)"), std::string::npos) << out2.str();
  // A threshold above the change lets it through (real, but "changed").
  std::swap(opt.a, opt.b);
  opt.threshold = "60";
  std::ostringstream out3;
  EXPECT_EQ(run_compare(opt, out3, notes), 0);
}

TEST(Compare, NoiseWithinTheSpreadIsNotFlagged) {
  TempDir dir;
  // 1 % slower everywhere: inside the 2 % floor of every band.
  plant(results_fixture("repeat"), dir.path() / "b", 0, [](json& s) { scale_rate(s, 0.99); });
  Comparison c = compare_results(load(results_fixture("repeat")), load((dir.path() / "b").string()),
                                 default_metrics(), ChangeRule{});
  EXPECT_EQ(c.rows.size(), 22u);
  for (const auto& r : c.rows) EXPECT_EQ(r.change.verdict, Verdict::kNoise) << r.size;

  // Repetitions 1+2 against 2+3: the ranges share repetition 2, so nothing can be real.
  fs::create_directories(dir.path() / "a12");
  fs::create_directories(dir.path() / "b23");
  fs::copy_file(results_fixture("repeat/write_1.json"), dir.path() / "a12/1.json");
  fs::copy_file(results_fixture("repeat/write_2.json"), dir.path() / "a12/2.json");
  fs::copy_file(results_fixture("repeat/write_2.json"), dir.path() / "b23/2.json");
  fs::copy_file(results_fixture("repeat/write_3.json"), dir.path() / "b23/3.json");
  c = compare_results(load((dir.path() / "a12").string()), load((dir.path() / "b23").string()),
                      default_metrics(), ChangeRule{5, 0});
  EXPECT_EQ(c.rows.size(), 22u);
  for (const auto& r : c.rows) EXPECT_FALSE(r.change.real) << r.size;
}

TEST(Compare, LatencyIncreaseIsARegressionAndDecreaseAnImprovement) {
  TempDir dir;
  // A single repetition each (lat/write.json): the noise floor applies.
  fs::create_directories(dir.path() / "a");
  fs::copy_file(results_fixture("lat/write.json"), dir.path() / "a/write.json");
  plant((dir.path() / "a").string(), dir.path() / "slow", 8,
        [](json& s) { scale_latency(s, 1.5); });
  plant((dir.path() / "a").string(), dir.path() / "fast", 8,
        [](json& s) { scale_latency(s, 0.5); });
  plant((dir.path() / "a").string(), dir.path() / "same", 0,
        [](json& s) { scale_latency(s, 1.01); });
  auto a = load((dir.path() / "a").string());
  const auto metrics = parse_metrics({"p50,p99,p99.9,gbps"});

  Comparison slow = compare_results(a, load((dir.path() / "slow").string()), metrics, ChangeRule{});
  EXPECT_EQ(slow.rows.size(), 8u * 3);  // 8 sizes x 3 percentiles; no Gb/s for latency runs
  for (Metric m : {Metric::kP50, Metric::kP99, Metric::kP999}) {
    EXPECT_EQ(find_row(slow, 8, m)->change.verdict, Verdict::kRegression);
    EXPECT_NEAR(find_row(slow, 8, m)->change.change_pct, 50.0, 1e-6);
    EXPECT_EQ(find_row(slow, 16, m)->change.verdict, Verdict::kNoise);
  }
  EXPECT_EQ(slow.regressions, 3u);
  Comparison fast = compare_results(a, load((dir.path() / "fast").string()), metrics, ChangeRule{});
  EXPECT_EQ(fast.regressions, 0u);
  EXPECT_EQ(fast.improvements, 3u);
  Comparison same = compare_results(a, load((dir.path() / "same").string()), metrics, ChangeRule{});
  EXPECT_EQ(same.regressions + same.improvements, 0u);
}

TEST(Compare, UnmatchedWorkloadsAndSizesAreListed) {
  TempDir dir;
  // B: the write repetitions without their 64 KiB result.
  copy_docs(results_fixture("repeat"), dir.path() / "b", [](json& doc) {
    auto& r = doc["results"];
    r.erase(r.size() - 1);
    doc["workload"]["sizes"].erase(doc["workload"]["sizes"].size() - 1);
  });
  Comparison c = compare_results(load(results_fixture("bw")), load((dir.path() / "b").string()),
                                 default_metrics(), ChangeRule{});
  // write matches (10 sizes); send and read are only in A (11 sizes each); 64K of write too.
  EXPECT_EQ(c.matched_points, 10u);
  size_t only_a = 0;
  for (const auto& u : c.unmatched) {
    EXPECT_EQ(u.why, "only in A");
    ++only_a;
  }
  EXPECT_EQ(only_a, 23u);
  std::string text = comparison_text(c, ChangeRule{});
  EXPECT_NE(text.find("send rc bw 64K: only in A"), std::string::npos) << text;
  EXPECT_NE(text.find("write rc bw 64K: only in A"), std::string::npos) << text;
}

TEST(Compare, FailedSizesAreNotComparedButListed) {
  TempDir dir;
  plant(results_fixture("repeat"), dir.path() / "b", 1024, [](json& s) { s["error"] = "timeout"; });
  Comparison c = compare_results(load(results_fixture("repeat")), load((dir.path() / "b").string()),
                                 default_metrics(), ChangeRule{});
  EXPECT_EQ(c.matched_points, 10u);
  ASSERT_EQ(c.unmatched.size(), 1u);
  EXPECT_EQ(c.unmatched[0].size, 1024u);
  EXPECT_EQ(c.unmatched[0].why, "failed in B");
}

TEST(Compare, HostPairIsPartOfTheIdentity) {
  TempDir dir;
  copy_docs(results_fixture("repeat"), dir.path() / "b", [](json& doc) {
    doc["point"] = {{"host_pair", "elsewhere"}, {"point_id", "x"}};
  });
  CompareOptions opt;
  opt.a = results_fixture("repeat");
  opt.b = (dir.path() / "b").string();
  std::ostringstream out, notes;
  try {
    run_compare(opt, out, notes);
    FAIL() << "expected ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("none of the 22 workload sizes matches"),
              std::string::npos)
        << e.what();
  }
}

TEST(Compare, JsonHasEveryComparisonWithBothSidesAndTheVerdict) {
  TempDir dir;
  plant(results_fixture("repeat"), dir.path() / "b", 4096, [](json& s) { scale_rate(s, 0.5); });
  CompareOptions opt;
  opt.a = results_fixture("repeat");
  opt.b = (dir.path() / "b").string();
  opt.json = true;
  opt.metrics = {"gbps"};
  std::ostringstream out, notes;
  EXPECT_EQ(run_compare(opt, out, notes), 1);
  json j = json::parse(out.str());
  EXPECT_EQ(j["threshold_pct"], 5.0);
  EXPECT_EQ(j["noise_floor_pct"], 2.0);
  EXPECT_EQ(j["regressions"], 1);
  ASSERT_EQ(j["comparisons"].size(), 11u);
  const json a_docs = json::array({read_json(results_fixture("repeat/write_1.json")),
                                   read_json(results_fixture("repeat/write_2.json")),
                                   read_json(results_fixture("repeat/write_3.json"))});
  for (size_t i = 0; i < j["comparisons"].size(); ++i) {
    const json& row = j["comparisons"][i];
    EXPECT_EQ(row["metric"], "gbps");
    EXPECT_EQ(row["workload"]["op"], "write");
    EXPECT_EQ(row["a"]["n"], 3);
    EXPECT_EQ(row["a"]["values"].size(), 3u);
    // The values are the documents' own numbers.
    for (size_t k = 0; k < 3; ++k)
      EXPECT_EQ(row["a"]["values"][k].get<double>(), a_docs[k]["results"][i]["gbps"].get<double>());
    EXPECT_EQ(row["verdict"], row["size"] == 4096 ? "regression" : "noise");
  }
}

TEST(CompareErrors, BadInputIsAConfigError) {
  TempDir empty;
  std::ostringstream out, notes;
  auto run = [&](const std::string& a, const std::string& b) {
    CompareOptions opt;
    opt.a = a;
    opt.b = b;
    return run_compare(opt, out, notes);
  };
  EXPECT_THROW(run(results_fixture("repeat"), empty.str()), ConfigError);
  EXPECT_THROW(run(results_fixture("repeat"), results_fixture("no/such/folder")), ConfigError);
  EXPECT_THROW(run(results_fixture("foreign/devices.json"), results_fixture("repeat")),
               ConfigError);
  // Bandwidth against latency runs: nothing in common.
  EXPECT_THROW(run(results_fixture("bw"), results_fixture("lat")), ConfigError);
  CompareOptions opt;
  opt.a = opt.b = results_fixture("repeat");
  opt.threshold = "five";
  EXPECT_THROW(run_compare(opt, out, notes), ConfigError);
  opt.threshold.reset();
  opt.metrics = {"bogus"};
  EXPECT_THROW(run_compare(opt, out, notes), ConfigError);
  EXPECT_TRUE(out.str().empty());
}

}  // namespace
}  // namespace rdmabench
