// The brief a controller reads instead of a client's result document (launch/result_brief.h):
// made from a committed fixture, carried over the agents' connection, and the stored document
// with its "point" member added as text.
#include "orchestrator/launch/result_brief.h"

#include <gtest/gtest.h>

#include "base/error.h"
#include "tests/unit/report_test_util.h"

namespace rdmabench {
namespace {

using nlohmann::json;

TEST(ResultBrief, FiguresPortSpeedAndStartFromADocument) {
  const json doc = testutil::read_json(testutil::results_fixture("qp/write_rc.json"));
  const ResultBrief b = brief_of(doc);
  EXPECT_TRUE(b.document);
  EXPECT_EQ(b.invalid, "");
  EXPECT_EQ(b.error, "");
  ASSERT_EQ(b.sizes.size(), doc["results"].size());
  const json& r = doc["results"][10];
  const uint64_t size = r["size"].get<uint64_t>();
  ASSERT_TRUE(b.figure(size, "gbps").has_value());
  EXPECT_DOUBLE_EQ(*b.figure(size, "gbps"), r["gbps"].get<double>());
  EXPECT_FALSE(b.figure(size + 1, "gbps").has_value());
  EXPECT_FALSE(b.figure(size, "p50_ns").has_value());  // a bandwidth run: no latency
  // A failed size has no figure; the run's error and an invalid document are told.
  json failed = doc;
  failed["results"][10]["error"] = "timed out";
  failed["error"] = "size 65536: timed out";
  const ResultBrief f = brief_of(failed);
  EXPECT_FALSE(f.figure(size, "gbps").has_value());
  EXPECT_EQ(f.error, "size 65536: timed out");
  json invalid = doc;
  invalid.erase("workload");
  EXPECT_NE(brief_of(invalid).invalid, "");
  EXPECT_FALSE(brief_of_output("not json").document);
  EXPECT_FALSE(brief_of_output("[1, 2]").document);
  // The slower end's port speed; none unless both ends tell.
  json speeds = doc;
  speeds["devices"]["client"]["speed_gbps"] = 100;
  speeds["devices"]["server"]["speed_gbps"] = 25;
  EXPECT_EQ(brief_of(speeds).port_gbps, 25.0);
  speeds["devices"]["server"].erase("speed_gbps");
  EXPECT_FALSE(brief_of(speeds).port_gbps.has_value());
  json started = doc;
  started["setup"]["start"] = {{"waited_s", 0.25}, {"late_s", 0.0}};
  EXPECT_EQ(brief_of(started).start_waited_s, 0.25);
}

TEST(ResultBrief, LossFiguresOfTheRunAndOfEachSizeAndWhetherTheyWereShared) {
  json doc = testutil::read_json(testutil::results_fixture("qp/write_rc.json"));
  doc["counters"] = {{"client", {{"hw_counters/sent_pkts", 1000}, {"hw_counters/rcvd_seq_err", 2}}},
                     {"server", {{"hw_counters/sent_pkts", 1000}}}};
  const uint64_t s0 = doc["results"][0]["size"], s1 = doc["results"][1]["size"];
  doc["results"][1]["counters"] = {
      {"client", {{"hw_counters/sent_pkts", 100}}},
      {"server", {{"hw_counters/sent_pkts", 100}, {"hw_counters/out_of_seq_request", 4}}}};
  ResultBrief b = brief_of(doc);
  EXPECT_EQ(b.loss_ppm, 1000.0);      // 2 gaps in 2,000 packets: the run's
  EXPECT_EQ(b.loss_at(s0), 1000.0);   // a size without its own deltas: the run's
  EXPECT_EQ(b.loss_at(s1), 20000.0);  // 4 in 200: its own
  EXPECT_FALSE(b.loss_shared);
  doc["point"] = {{"fabric", {{"counters_shared", true}}}};
  EXPECT_TRUE(brief_of(doc).loss_shared);
  // On the agents' wire: the figures travel (whether they were shared is the sweep's to say).
  b = brief_from_json(json::parse(to_json(b).dump()));
  EXPECT_EQ(b.loss_ppm, 1000.0);
  EXPECT_EQ(b.loss_at(s1), 20000.0);
  // The size's counters that moved (a hunt records them) and its congestion figure: none here
  // (rxe has no congestion counter), and both travel.
  EXPECT_EQ(b.sizes[1].counters_moved, json({{"server", {{"out_of_sequence", 4}}}}));
  EXPECT_FALSE(b.sizes[1].congestion_ppm.has_value());
  doc["results"][1]["counters"]["server"]["hw_counters/np_cnp_sent"] = 10;
  b = brief_from_json(json::parse(to_json(brief_of(doc)).dump()));
  EXPECT_EQ(b.sizes[1].congestion_ppm, 50000.0);  // 10 CNPs in 200 packets
  EXPECT_EQ(b.sizes[1].counters_moved["server"]["cnp_sent"], 10);
  EXPECT_TRUE(b.sizes[0].counters_moved.empty());
  // No packet counters (siw): no figure.
  doc.erase("counters");
  doc["results"][1].erase("counters");
  EXPECT_FALSE(brief_of(doc).loss_ppm.has_value());
}

TEST(ResultBrief, TheWireKeepsEverythingAndRefusesMalformedBriefs) {
  ResultBrief b = brief_of(testutil::read_json(testutil::results_fixture("qp/write_rc.json")));
  b.start_late_s = 0.5;
  b.error = "an error";
  b.sizes[0].p50_ns = 1234.5;
  b.sizes[1].error = "failed";
  const ResultBrief back = brief_from_json(json::parse(to_json(b).dump()));
  EXPECT_EQ(back, b);
  EXPECT_THROW(brief_from_json(json::object()), PeerError);
  EXPECT_THROW(brief_from_json({{"document", true}, {"sizes", 3}}), PeerError);
  EXPECT_THROW(brief_from_json({{"document", true}, {"sizes", {{{"gbps", 1}}}}}), PeerError);
  EXPECT_THROW(brief_from_json({{"document", true}, {"port_gbps", "fast"}}), PeerError);
  EXPECT_THROW(brief_from_json({{"document", true}, {"error", 7}}), PeerError);
  EXPECT_THROW(
      brief_from_json({{"document", true}, {"sizes", {{{"size", 8}, {"counters_moved", 3}}}}}),
      PeerError);
}

TEST(ResultBrief, APointMemberAddedToTheDocumentsText) {
  const json point = {{"point_id", "p1"}, {"matrix", {{"op", "write"}, {"sizes", {64, 128}}}}};
  const json doc = testutil::read_json(testutil::results_fixture("qp/write_rc.json"));
  const std::string text = with_member(doc.dump(2) + "\n", "point", point);
  json expected = doc;
  expected["point"] = point;
  EXPECT_EQ(json::parse(text), expected);
  EXPECT_EQ(text.substr(text.size() - 2), "\n}");
  // Compact text and an empty object too; what is not an object's text is an internal error.
  EXPECT_EQ(json::parse(with_member(R"({"a":1})", "point", point)),
            json({{"a", 1}, {"point", point}}));
  EXPECT_EQ(json::parse(with_member("{ }", "point", point)), json({{"point", point}}));
  EXPECT_EQ(json::parse(with_member(R"({"s":"line\nbreak"})", "point", {{"t", "a\nb"}})),
            json({{"s", "line\nbreak"}, {"point", {{"t", "a\nb"}}}}));
  EXPECT_THROW(with_member("[1]", "point", point), Error);
  EXPECT_THROW(with_member("}", "point", point), Error);
}

}  // namespace
}  // namespace rdmabench
