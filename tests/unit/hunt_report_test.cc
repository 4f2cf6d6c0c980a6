// A hunt's record read back (model/hunt_record.h: round trip, errors naming the member), and what
// the report and the JUnit export make of it: the "Anomalies" section, the figures, one failing
// test case per anomaly (and none for the hunt's evaluations, which are measurements).
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "base/error.h"
#include "model/hunt_record.h"
#include "report/anomalies_section.h"
#include "report/export_set.h"
#include "report/hunt_figures.h"
#include "report/junit_export.h"
#include "tests/unit/report_test_util.h"

namespace rdmabench {
namespace {

using nlohmann::json;

HuntRecord sample() {
  HuntRecord r;
  r.budget = 16;
  r.seed = 1;
  r.evaluations = 9;
  HuntAnomaly a;
  a.state = "confirmed";
  a.values = {{"mtu", 4096}, {"tos", 0}, {"op", "send"}};
  a.found_at = 3;
  a.found = {true, 3.2, {{"loss", 25.0, 2500, 100}, {"throughput", 0.4, 1, 2}}};
  a.fired = {"loss"};
  a.repeat = a.found;
  a.resets.push_back({"mtu", 4096, 1024, true, HuntScore{false, 0.3, {{"loss", 0, 0, 100}}}, ""});
  a.resets.push_back({"op", "send", "write", false, a.found, ""});
  a.trigger = {{"mtu", 4096}};
  a.confirm_values = {{"mtu", 4096}, {"op", "write"}};
  a.confirm = a.found;
  a.counters_found = {{"client", {{"retransmissions", 12}}}, {"server", {{"out_of_sequence", 3}}}};
  a.counters_confirm = {{"server", {{"out_of_sequence", 2}}}};
  a.reproduce_server = "rdmabench server --once";
  a.reproduce_client = "rdmabench client 10.0.0.1 --mtu 4096 --tos '<0>'";
  a.also_at = {7};
  r.anomalies.push_back(a);
  HuntAnomaly c;
  c.state = "not repeated";
  c.values = {{"mtu", 1024}};
  c.found_at = 5;
  c.found = a.found;
  c.fired = {"loss"};
  r.candidates.push_back(c);
  for (uint64_t e = 1; e <= 9; ++e)
    r.scores.push_back({e,
                        e == 4   ? "repeat"
                        : e >= 5 ? "reset"
                                 : "search",
                        0.2, e == 3 ? 25 : 0.2, e == 3});
  r.time = "2026-11-29T03:00:00Z";
  return r;
}

TEST(HuntRecord, RoundTripsAndNamesABadMember) {
  const HuntRecord r = sample();
  const json j = json::parse(to_json(r).dump());
  EXPECT_EQ(j["record"], "hunt");
  const HuntRecord back = hunt_record_from_json(j);
  EXPECT_EQ(to_json(back).dump(), to_json(r).dump());
  json bad = j;
  bad["anomalies"][0]["found_at"] = "three";
  try {
    hunt_record_from_json(bad);
    FAIL() << "accepted";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.field(), "/anomalies/0/found_at");
  }
  std::vector<std::string> refused;
  EXPECT_FALSE(last_hunt_record({bad}, refused).has_value());
  ASSERT_EQ(refused.size(), 1U);
  // The counters that moved: an object of sides, named when not; absent in an older record.
  EXPECT_EQ(back.anomalies[0].counters_found["client"]["retransmissions"], 12);
  json counters = j;
  counters["anomalies"][0]["counters"]["confirm"] = 5;
  try {
    hunt_record_from_json(counters);
    FAIL() << "accepted";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.field(), "/anomalies/0/counters/confirm");
  }
  counters["anomalies"][0].erase("counters");
  EXPECT_TRUE(hunt_record_from_json(counters).anomalies[0].counters_found.empty());
}

TEST(HuntReport, AnomaliesSectionListsTriggerResetsAndReproduce) {
  std::string h;
  anomalies_section(h, {sample()});
  EXPECT_NE(h.find("<h2>Anomalies (1)</h2>"), std::string::npos);
  EXPECT_NE(h.find("mtu=4096"), std::string::npos);
  EXPECT_NE(h.find("1 candidate(s) not repeated"), std::string::npos);
  EXPECT_NE(h.find("the anomaly went away (in the trigger)"), std::string::npos);
  EXPECT_NE(h.find("--tos &#39;&lt;0&gt;&#39;"), std::string::npos);  // escaped
  EXPECT_NE(h.find("found: client: retransmissions 12; server: out_of_sequence 3; in its "
                   "confirmation: server: out_of_sequence 2."),
            std::string::npos)
      << h;
  std::string none;
  HuntRecord clean = sample();
  clean.anomalies.clear();
  anomalies_section(none, {clean});
  EXPECT_NE(none.find("It found none."), std::string::npos);
  std::string nothing;
  anomalies_section(nothing, {});
  EXPECT_TRUE(nothing.empty());
}

TEST(HuntReport, FiguresForTheScoresAndEachAnomaly) {
  const std::vector<Figure> f = hunt_figures({sample()}, "png");
  ASSERT_EQ(f.size(), 2U);
  EXPECT_EQ(f[0].name, "hunt_scores");
  EXPECT_NE(f[0].data.find("3 25\n"), std::string::npos);
  EXPECT_NE(f[0].data.find("3 25 \"#1\""), std::string::npos);  // the anomaly marked
  EXPECT_EQ(f[1].name, "anomaly_resets");
  EXPECT_NE(f[1].data.find("\"mtu back\" 0\n"), std::string::npos);  // its worst ratio
  EXPECT_NE(f[1].script.find("trigger mtu=4096"), std::string::npos);
}

TEST(HuntReport, JunitHasAFailingCasePerAnomalyAndNotTheEvaluations) {
  TempDir dir;
  const std::string d = dir.str();
  std::string index =
      R"({"point_id":"e0001-x","status":"failed","error":"refused","host_pair":"p","repetition":1,"time":"t"})"
      "\n";
  index += to_json(sample()).dump() + "\n";
  testutil::write_text(d + "/index.jsonl", index);
  std::ostringstream notes;
  const ExportSet set = load_export_set({d}, notes);
  ASSERT_EQ(set.hunts.size(), 1U);
  const std::string xml = junit_xml(set);
  EXPECT_NE(xml.find("name=\"anomaly 1: mtu=4096\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("failures=\"1\""), std::string::npos) << xml;
  EXPECT_EQ(xml.find("e0001-x"), std::string::npos) << xml;
  EXPECT_NE(xml.find("rdmabench client 10.0.0.1"), std::string::npos) << xml;
}

}  // namespace
}  // namespace rdmabench
