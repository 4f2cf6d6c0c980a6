// `check --baseline RESULTS` (model/check_baseline.h): result documents become bounds around the
// median of their figures per op, QP type, mode and size; a workload the check cannot repeat is
// refused naming the field.
#include "model/check_baseline.h"

#include <gtest/gtest.h>

#include "base/error.h"

namespace rdmabench {
namespace {

RunResult bw_run(Op op, std::vector<std::pair<uint64_t, double>> sizes) {
  RunResult r;
  r.workload.op = op;
  for (const auto& [size, gbps] : sizes) {
    SizeResult& s = r.results.emplace_back();
    s.size = size;
    s.gbps = gbps;
  }
  return r;
}

RunResult lat_run(uint64_t size, double p50) {
  RunResult r;
  r.workload.op = Op::kSend;
  r.workload.qp = QpType::kUd;
  r.workload.mode = Mode::kLat;
  SizeResult& s = r.results.emplace_back();
  s.size = size;
  s.latency = LatencyResult{};
  s.latency->summary.count = 1000;
  s.latency->summary.p50 = p50;
  s.latency->summary.p99 = p50 * 3;
  return r;
}

TEST(CheckBaseline, ResultDocumentsBecomeBoundsAroundTheirMedians) {
  // Three repetitions of write at 64K (the median 20), one at 4K, a failed size, a latency run.
  RunResult w1 = bw_run(Op::kWrite, {{65536, 18}, {4096, 5}});
  RunResult w2 = bw_run(Op::kWrite, {{65536, 20}});
  RunResult w3 = bw_run(Op::kWrite, {{65536, 30}});
  w3.results.emplace_back().size = 8;
  w3.results.back().error = "timed out";
  RunResult l = lat_run(8, 4000);
  const auto b = baseline_from_results(
      {{"w1.json", &w1}, {"w2.json", &w2}, {"w3.json", &w3}, {"l.json", &l}}, 0.1);
  ASSERT_EQ(b.size(), 3u) << "the failed size is left out";
  std::vector<std::string> texts;
  for (const auto& e : b) texts.push_back(e.text);
  // In the order of op, QP type, mode and size.
  EXPECT_EQ(texts,
            (std::vector<std::string>{"send ud lat 8 p50 <= 4.4 us (baseline 4 us + 10 %)",
                                      "write rc bw 4K >= 4.5 Gb/s (baseline 5 Gb/s - 10 %)",
                                      "write rc bw 64K >= 18 Gb/s (baseline 20 Gb/s - 10 %)"}));
  EXPECT_EQ(b[0].stat, "p50");
  EXPECT_EQ(b[0].cmp, CheckCompare::kLe);
  EXPECT_DOUBLE_EQ(b[0].value, 4400.0);
  EXPECT_DOUBLE_EQ(b[2].value, 18.0);
  EXPECT_EQ(b[2].cmp, CheckCompare::kGe);
  // The texts parse back as the same expectations (what --json and the exports carry).
  for (const auto& e : b) EXPECT_EQ(parse_check_expectation(e.text).size, e.size) << e.text;
}

TEST(CheckBaseline, AWorkloadTheCheckCannotRepeatIsRefusedNamingTheField) {
  RunResult w = bw_run(Op::kWrite, {{65536, 20}});
  w.workload.threads = 4;
  try {
    baseline_from_results({{"out/w.json", &w}}, 0.1);
    FAIL() << "a 4-thread baseline was taken";
  } catch (const ConfigError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("out/w.json: /workload/threads = 4"), std::string::npos) << m;
    EXPECT_NE(m.find("default 1"), std::string::npos) << m;
  }
  // What the check sets itself (iterations, duration, verify) does not matter.
  w.workload.threads = 1;
  w.workload.iterations = 20;
  w.workload.verify = true;
  EXPECT_EQ(baseline_from_results({{"w.json", &w}}, 0.1).size(), 1u);
  RunResult none = bw_run(Op::kWrite, {});
  EXPECT_THROW(baseline_from_results({{"none.json", &none}}, 0.1), ConfigError);
}

}  // namespace
}  // namespace rdmabench
