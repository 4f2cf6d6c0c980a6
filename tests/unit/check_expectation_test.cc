// `rdmabench check`'s expectations: the grammar, its errors, and the judging of node facts and
// traffic figures (model/check_expectation.h).
#include "model/check_expectation.h"

#include <gtest/gtest.h>

#include "base/error.h"
#include "model/result.h"

namespace rdmabench {
namespace {

CheckFacts testbed_facts() {
  return {{"fw_ver", "20.31.1014"},
          {"port",
           {{"state", "ACTIVE"},
            {"active_mtu", 1024},
            {"speed_gbps", 10.0},
            {"width", "1x"},
            {"gid_types", {"RoCE v2", "RoCE v2"}},
            {"usable_gid", true}}}};
}

std::string error_of(const std::string& text) {
  try {
    (void)parse_check_expectation(text);
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.field(), "expect");
    return e.what();
  }
  return "";
}

TEST(CheckExpectation, ParsesTrafficExpectations) {
  CheckExpectation e = parse_check_expectation("  write   bw 64K >= 90% of link ");
  EXPECT_EQ(e.text, "write bw 64K >= 90% of link");
  EXPECT_EQ(e.subject, CheckSubject::kBandwidth);
  EXPECT_EQ(e.op, Op::kWrite);
  EXPECT_EQ(e.qp, QpType::kRc);
  EXPECT_EQ(e.size, 65536u);
  EXPECT_TRUE(e.of_link);
  EXPECT_DOUBLE_EQ(e.value, 0.9);
  EXPECT_TRUE(e.traffic());

  e = parse_check_expectation("read lat 8 p99 <= 5us");
  EXPECT_EQ(e.subject, CheckSubject::kLatency);
  EXPECT_EQ(e.op, Op::kRead);
  EXPECT_EQ(e.mode, Mode::kLat);
  EXPECT_EQ(e.size, 8u);
  EXPECT_EQ(e.stat, "p99");
  EXPECT_EQ(e.cmp, CheckCompare::kLe);
  EXPECT_DOUBLE_EQ(e.value, 5000);

  e = parse_check_expectation("send ud bw 1K > 250 Mb/s");
  EXPECT_EQ(e.qp, QpType::kUd);
  EXPECT_EQ(e.op, Op::kSend);
  EXPECT_FALSE(e.of_link);
  EXPECT_DOUBLE_EQ(e.value, 0.25);

  e = parse_check_expectation("write lat 2 p99.9 < 2.5 ms");
  EXPECT_EQ(e.stat, "p99.9");
  EXPECT_DOUBLE_EQ(e.value, 2.5e6);
}

TEST(CheckExpectation, ParsesNodeFacts) {
  CheckExpectation e = parse_check_expectation("port mtu >= 4096");
  EXPECT_EQ(e.subject, CheckSubject::kPortMtu);
  EXPECT_DOUBLE_EQ(e.value, 4096);
  EXPECT_FALSE(e.traffic());
  e = parse_check_expectation("port speed>=100 Gb/s");
  EXPECT_EQ(e.subject, CheckSubject::kPortSpeed);
  EXPECT_DOUBLE_EQ(e.value, 100);
  e = parse_check_expectation("pcie speed >= 16 GT/s");
  EXPECT_EQ(e.subject, CheckSubject::kPcieSpeed);
  e = parse_check_expectation("gid = roce-v2");
  EXPECT_EQ(e.text_value, "roce-v2");
}

TEST(CheckExpectation, RefusesWhatItCannotReadNamingTheText) {
  EXPECT_NE(error_of("write bw 64K >= 90").find("unit '' is not one of: Gb/s, Mb/s"),
            std::string::npos);
  EXPECT_NE(error_of("read lat 8 p99 <= 5 fortnights").find("unit 'fortnights'"),
            std::string::npos);
  EXPECT_NE(error_of("teleport bw 64K >= 1 Gb/s").find("'teleport' is not an op"),
            std::string::npos);
  EXPECT_NE(error_of("write bw lots >= 1 Gb/s").find("'lots' is not a message size"),
            std::string::npos);
  EXPECT_NE(error_of("port state >= ACTIVE").find("port state takes = or != only"),
            std::string::npos);
  EXPECT_NE(error_of("gid = ethernet").find("gid is one of usable"), std::string::npos);
  EXPECT_NE(error_of("write bw 64K p99 >= 1 Gb/s").find("takes no percentile"), std::string::npos);
  const std::string e = error_of("fast please");
  EXPECT_NE(e.find("fast please"), std::string::npos);
  EXPECT_NE(e.find("write bw 64K >= 90% of link"), std::string::npos) << "the grammar's examples";
  EXPECT_NE(error_of("   ").find("empty"), std::string::npos);
}

TEST(CheckExpectation, JudgesNodeFacts) {
  const CheckFacts f = testbed_facts();
  EXPECT_TRUE(judge_node(parse_check_expectation("port state = active"), f).pass);
  CheckOutcome o = judge_node(parse_check_expectation("port mtu >= 4096"), f);
  EXPECT_FALSE(o.pass);
  EXPECT_EQ(o.measured, "1024");
  EXPECT_EQ(o.expected, ">= 4096");
  EXPECT_TRUE(judge_node(parse_check_expectation("port mtu = 1024"), f).pass);
  EXPECT_TRUE(judge_node(parse_check_expectation("port width = 1x"), f).pass);
  EXPECT_TRUE(judge_node(parse_check_expectation("gid = roce-v2"), f).pass);
  EXPECT_FALSE(judge_node(parse_check_expectation("gid = ib"), f).pass);
  EXPECT_TRUE(judge_node(parse_check_expectation("gid = usable"), f).pass);
  EXPECT_TRUE(judge_node(parse_check_expectation("fw >= 20.31"), f).pass);
  EXPECT_FALSE(judge_node(parse_check_expectation("fw >= 20.40.0"), f).pass);
  EXPECT_TRUE(judge_node(parse_check_expectation("fw = 20.31.1014"), f).pass);
  o = judge_node(parse_check_expectation("pcie width >= 16"), f);
  EXPECT_FALSE(o.pass);
  EXPECT_NE(o.reason.find("no PCIe link in sysfs"), std::string::npos);

  CheckFacts down = f;
  down["port"]["state"] = "DOWN";
  o = judge_node(parse_check_expectation("port state = ACTIVE"), down);
  EXPECT_FALSE(o.pass);
  EXPECT_EQ(o.measured, "DOWN");
}

TEST(CheckExpectation, JudgesTrafficFigures) {
  SizeResult r;
  r.size = 65536;
  r.gbps = 9.5;
  CheckOutcome o = judge_traffic(parse_check_expectation("write bw 64K >= 90% of link"), r, 10);
  EXPECT_TRUE(o.pass);
  EXPECT_EQ(o.measured, "9.5 Gb/s (95 % of link)");
  EXPECT_EQ(o.expected, ">= 90 % of link (9 Gb/s of 10)");
  o = judge_traffic(parse_check_expectation("write bw 64K >= 90% of link"), r, 0);
  EXPECT_FALSE(o.pass) << "an unknown link rate cannot pass a share of it";
  EXPECT_EQ(o.reason, "the port reports no link rate");
  o = judge_traffic(parse_check_expectation("write bw 64K >= 10 Gb/s"), r, 10);
  EXPECT_FALSE(o.pass);
  EXPECT_EQ(o.expected, ">= 10 Gb/s");
  EXPECT_EQ(failed_traffic(parse_check_expectation("read lat 8 p99 < 2.5ms"), "x").expected,
            "< 2.5 ms");

  r.latency = LatencyResult{};
  r.latency->summary.count = 1000;
  r.latency->summary.p50 = 2000;
  r.latency->summary.p99 = 7000;
  o = judge_traffic(parse_check_expectation("write lat 64K p99 <= 5us"), r, 10);
  EXPECT_FALSE(o.pass);
  EXPECT_EQ(o.measured, "7 us");
  EXPECT_EQ(o.expected, "<= 5 us");
  EXPECT_DOUBLE_EQ(*o.figure, 7000);
  EXPECT_TRUE(judge_traffic(parse_check_expectation("write lat 64K p50 <= 5us"), r, 10).pass);

  r.error = "completion error";
  o = judge_traffic(parse_check_expectation("write lat 64K p50 <= 5us"), r, 10);
  EXPECT_FALSE(o.pass);
  EXPECT_EQ(o.reason, "the run failed: completion error");
  const nlohmann::json j = o;
  EXPECT_EQ(j["result"], "FAIL");
  EXPECT_EQ(j["expectation"], "write lat 64K p50 <= 5us");
}

TEST(CheckExpectation, BaselineFiguresBecomeBoundsWithinTheTolerance) {
  const nlohmann::json doc = {{"expectations",
                               {{{"expectation", "port mtu >= 1024"},
                                 {"result", "PASS"},
                                 {"measured", "1024"},
                                 {"expected", ">= 1024"},
                                 {"figure", 1024}},
                                {{"expectation", "write bw 64K >= 90% of link"},
                                 {"result", "FAIL"},
                                 {"measured", "25 Gb/s"},
                                 {"expected", ">= 90 % of link"},
                                 {"figure", 25.0}},
                                {{"expectation", "send ud lat 8 p99.9 <= 5us"},
                                 {"result", "PASS"},
                                 {"measured", "4 us"},
                                 {"expected", "<= 5 us"},
                                 {"figure", 4000.0}},
                                {{"expectation", "read bw 4K >= 1 Gb/s"},
                                 {"result", "FAIL"},
                                 {"measured", ""},
                                 {"expected", ">= 1 Gb/s"},
                                 {"reason", "the run failed: x"}}}}};
  const std::vector<CheckExpectation> b = baseline_expectations(doc, 0.1, "old.json");
  ASSERT_EQ(b.size(), 2u) << "the node fact and the run that failed are left out";
  EXPECT_EQ(b[0].text, "write rc bw 64K >= 22.5 Gb/s (baseline 25 Gb/s - 10 %)");
  EXPECT_EQ(b[0].cmp, CheckCompare::kGe);
  EXPECT_FALSE(b[0].of_link);
  EXPECT_DOUBLE_EQ(b[0].value, 22.5);
  EXPECT_EQ(b[1].text, "send ud lat 8 p99.9 <= 4.4 us (baseline 4 us + 10 %)");
  EXPECT_EQ(b[1].qp, QpType::kUd);
  EXPECT_EQ(b[1].stat, "p99.9");
  EXPECT_DOUBLE_EQ(b[1].value, 4400);
  // Its text reads back (a later check's document as the next baseline).
  const CheckExpectation again = parse_check_expectation(b[0].text);
  EXPECT_EQ(again.text, b[0].text);
  EXPECT_DOUBLE_EQ(again.value, 22.5);
  EXPECT_THROW(baseline_expectations(nlohmann::json::object(), 0.1, "x.json"), ConfigError);
}

}  // namespace
}  // namespace rdmabench
