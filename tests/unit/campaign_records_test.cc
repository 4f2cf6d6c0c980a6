// The campaign folder's records read and written through one type each: the round record
// (model/round_record.h) and the verdicts record (model/verdict_record.h). A record round
// trips exactly; an index recorded before the type existed (tests/fixtures/probes, 2026-11-28:
// the six-host deep-queue campaign with probes) reads back whole, and writing what was read gives
// the recorded lines back; malformed records are refused naming the path.
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "base/error.h"
#include "model/campaign_index.h"
#include "model/round_record.h"
#include "model/verdict_record.h"
#include "tests/unit/report_test_util.h"

namespace rdmabench {
namespace {

using nlohmann::json;

RoundRecord sample() {
  RoundRecord r;
  r.round = "incast 2->h0";
  r.round_index = 3;
  r.repetition = 2;
  r.matrix = json{{"op", "write"}, {"sizes", {4096}}};
  r.flows = 3;
  r.ok = 2;
  r.failed = 1;
  RoundSize s;
  s.size = 4096;
  s.flows = 2;
  s.total_gbps = 4.5;
  s.jain = 0.8;
  s.gbps = {1.5, 2.25, 3};
  s.p50_ns = MinMedianMax{5000, 6000, 7000};
  s.overlap = 0.95;
  s.common_window_s = 1.9;
  s.clock_uncertainty_s = 0.001;
  s.hosts["h0"] = {4.5, 0};
  s.hosts["h1"] = {0, 1.5};
  r.sizes.push_back(s);
  RoundSize small;  // no fairness, no windows, no per-host rates
  small.size = 8;
  small.flows = 1;
  small.total_gbps = 0.1;
  small.gbps = {0.1, 0.1, 0.1};
  r.sizes.push_back(small);
  r.overlap_min = 0.95;
  r.time = "2026-11-29T00:00:00Z";
  RoundProbeEntry p;
  p.link = "h1 -> h0";
  p.server = "h0";
  p.client = "h1";
  p.size = 8;
  p.p50_ns = 30000;
  p.p99_ns = 90000;
  p.p99_9_ns = 120000;
  p.idle_p99_ns = 30000;
  p.ratio = 3;
  RoundProbeEntry failed;
  failed.link = "h2 -> h0";
  failed.server = "h0";
  failed.client = "h2";
  failed.error = "the probe failed";
  r.probes = std::vector<RoundProbeEntry>{p, failed};
  return r;
}

TEST(RoundRecord, RoundTripsThroughItsJson) {
  const RoundRecord r = sample();
  const nlohmann::ordered_json j = to_json(r);
  EXPECT_EQ(j["record"], kRoundRecord);
  const RoundRecord back = round_record_from_json(json::parse(j.dump()));
  EXPECT_EQ(to_json(back).dump(), j.dump());
  EXPECT_EQ(back.sizes.at(0).hosts.at("h1").out_gbps, 1.5);
  EXPECT_FALSE(back.sizes.at(1).jain.has_value());
  EXPECT_FALSE(back.sizes.at(1).overlap.has_value());
  ASSERT_TRUE(back.probes.has_value());
  EXPECT_EQ(back.probes->at(1).error, "the probe failed");
  EXPECT_FALSE(back.probes->at(1).size.has_value());
}

TEST(RoundRecord, AFolderRecordedBeforeTheTypeReadsBackLineForLine) {
  const std::string text = testutil::read_text(testutil::kFixtureRoot / "probes" / "index.jsonl");
  const std::vector<json> lines = parse_records(text, kRoundRecord);
  ASSERT_GE(lines.size(), 3u);
  std::vector<std::string> refused;
  const std::vector<RoundRecord> records = round_records_from_json(lines, refused);
  EXPECT_TRUE(refused.empty()) << refused.front();
  ASSERT_EQ(records.size(), lines.size());
  size_t idle = 0;
  for (size_t i = 0; i < lines.size(); ++i) {
    EXPECT_EQ(json::parse(to_json(records[i]).dump()), lines[i]) << "record " << i + 1;
    idle += is_idle_probe_round(records[i].round) ? 1 : 0;
  }
  EXPECT_GE(idle, 1u) << "the fixture's idle probe round";
  EXPECT_TRUE(records.back().probes.has_value());
}

TEST(RoundRecord, MalformedRecordsNameThePath) {
  json j = json::parse(to_json(sample()).dump());
  j["sizes"][0]["total_gbps"] = "fast";
  try {
    round_record_from_json(j);
    ADD_FAILURE() << "a string total was read";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.field(), "/sizes/0/total_gbps");
  }
  json k = json::parse(to_json(sample()).dump());
  k.erase("round_index");
  std::vector<std::string> refused;
  EXPECT_TRUE(round_records_from_json({k, json(7)}, refused).empty());
  ASSERT_EQ(refused.size(), 2u);
  EXPECT_NE(refused[0].find("round record 1: "), std::string::npos) << refused[0];
  EXPECT_NE(refused[0].find("round_index"), std::string::npos) << refused[0];
  EXPECT_FALSE(is_idle_probe_round("probes idler"));
  EXPECT_TRUE(is_idle_probe_round("probes idle part 2/3"));
}

}  // namespace
}  // namespace rdmabench

// ---- the verdicts record (model/verdict_record.h) ----------------------------------------------

namespace rdmabench {
namespace {

TEST(VerdictsRecord, RoundTripsThroughItsJson) {
  VerdictsRecord r;
  r.criteria.port_fraction = 0.8;
  r.criteria.slow_floor = std::nullopt;
  r.judged = 12;
  r.counts = {{"ok", 10}, {"bad", 1}, {"lossy", 1}};
  LinkNotOk bad;
  bad.link = "h1 -> h0";
  bad.matrix = json{{"op", "write"}};
  bad.size = 65536;
  bad.metric = "gbps";
  bad.value = 3;
  bad.best = 30;
  bad.alone = 3.1;
  bad.verdict = "bad";
  bad.rules = {"bw_fraction", "lossy"};
  bad.loss_ppm = 4000;
  bad.loss_threshold_ppm = 1000;
  bad.why = "3 Gb/s, 0.1 of the best";
  bad.point_id = "p1";
  r.not_ok.push_back(bad);
  r.time = "2026-11-29T00:00:00Z";
  ProbeVerdicts p;
  p.probed = 4;
  p.ok = 2;
  p.slow_under_load = 1;
  p.failed = 1;
  ProbeNotOk slow;
  slow.link = "h2 -> h0";
  slow.round = "incast 2->h0";
  slow.point_id = "p2";
  slow.verdict = slow.rule = "slow_under_load";
  slow.why = "p99 6 x idle";
  slow.size = 8;
  slow.p99_ns = 60000;
  slow.ratio = 6;
  slow.threshold = 3;
  ProbeNotOk failed;
  failed.link = "h3 -> h0";
  failed.round = "probes idle";
  failed.point_id = "p3";
  failed.verdict = "failed";
  failed.why = "no result";
  p.not_ok = {slow, failed};
  r.probes = p;
  const nlohmann::ordered_json j = to_json(r);
  EXPECT_EQ(j["record"], kVerdictsRecord);
  EXPECT_FALSE(j["probes"]["not_ok"][1].contains("size")) << "a failed probe has no figures";
  const VerdictsRecord back = verdicts_record_from_json(json::parse(j.dump()));
  EXPECT_EQ(json::parse(to_json(back).dump()), json::parse(j.dump()));
  EXPECT_EQ(back.criteria.port_fraction, 0.8);
  EXPECT_FALSE(back.criteria.slow_floor.has_value());
  EXPECT_EQ(back.not_ok.at(0).rules, (std::vector<std::string>{"bw_fraction", "lossy"}));
}

TEST(VerdictsRecord, AFolderRecordedBeforeTheTypeReadsBack) {
  const std::string text = testutil::read_text(testutil::kFixtureRoot / "probes" / "index.jsonl");
  const std::vector<json> lines = parse_records(text, kVerdictsRecord);
  ASSERT_EQ(lines.size(), 1u);
  std::vector<std::string> refused;
  const std::optional<VerdictsRecord> r = last_verdicts_record(lines, refused);
  ASSERT_TRUE(r.has_value()) << refused.front();
  EXPECT_EQ(json::parse(to_json(*r).dump()), lines.back());
  ASSERT_TRUE(r->probes.has_value());
  EXPECT_EQ(r->probes->probed, r->probes->ok + r->probes->not_ok.size());
}

TEST(VerdictsRecord, AnOlderRecordsMissingCriteriaTakeTheDefaults) {
  const json old = json::parse(
      R"({"record": "verdicts", "criteria": {"bw_fraction": 0.5}, "judged": 1,
          "counts": {"ok": 1}, "not_ok": [], "time": "t"})");
  const VerdictsRecord r = verdicts_record_from_json(old);
  EXPECT_EQ(r.criteria.bw_fraction, 0.5);
  EXPECT_EQ(r.criteria.lat_factor, VerdictCriteria{}.lat_factor);
  EXPECT_EQ(r.criteria.loss_floor_ppm, VerdictCriteria{}.loss_floor_ppm);
  json bad = old;
  bad["not_ok"] = json::array({json{{"link", "a -> b"}}});
  try {
    verdicts_record_from_json(bad);
    ADD_FAILURE() << "a link without its figures was read";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.field(), "/not_ok/0/matrix");
  }
}

}  // namespace
}  // namespace rdmabench
