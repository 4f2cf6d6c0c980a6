// The campaign index (model/campaign_index.h): the lines the sweep writes and the reader the
// sweep's --resume and `rdmabench report` share.
#include "model/campaign_index.h"

#include <gtest/gtest.h>

#include <string>

namespace rdmabench {
namespace {

TEST(CampaignIndex, LinesAsTheSweepWritesThem) {
  EXPECT_EQ(index_line({.point_id = "p1",
                        .status = "ok",
                        .duration_s = 1.23456,
                        .error = "ignored for ok",
                        .host_pair = "local",
                        .repetition = 2,
                        .time = "T"})
                .dump(),
            R"({"point_id":"p1","status":"ok","duration_s":1.235,"error":null,)"
            R"("host_pair":"local","repetition":2,"time":"T"})");
  EXPECT_EQ(index_line({.point_id = "p2",
                        .status = "failed",
                        .duration_s = 0.5,
                        .error = "boom",
                        .host_pair = "a",
                        .repetition = 1,
                        .time = "T"})
                .dump(),
            R"({"point_id":"p2","status":"failed","duration_s":0.5,"error":"boom",)"
            R"("host_pair":"a","repetition":1,"time":"T"})");
  // A skipped point never ran: its duration is a plain 0 (tests/orchestrator greps for it).
  EXPECT_EQ(index_line({.point_id = "p3",
                        .status = "skipped",
                        .duration_s = 7,
                        .error = "invalid op",
                        .host_pair = "a",
                        .repetition = 1,
                        .time = "T"})
                .dump(),
            R"({"point_id":"p3","status":"skipped","duration_s":0,"error":"invalid op",)"
            R"("host_pair":"a","repetition":1,"time":"T"})");
}

TEST(CampaignIndex, WrittenLinesReadBack) {
  const IndexEntry e{.point_id = "p1",
                     .status = "failed",
                     .duration_s = 2.5,
                     .error = "boom",
                     .host_pair = "pair",
                     .repetition = 3,
                     .time = "2024-01-01T00:00:00Z"};
  size_t bad = 99;
  const auto points = parse_index_points(index_line(e).dump() + "\n", &bad);
  EXPECT_EQ(bad, 0u);
  ASSERT_EQ(points.size(), 1u);
  EXPECT_EQ(points[0].point_id, e.point_id);
  EXPECT_EQ(points[0].status, e.status);
  EXPECT_EQ(points[0].duration_s, e.duration_s);
  EXPECT_EQ(points[0].error, e.error);
  EXPECT_EQ(points[0].host_pair, e.host_pair);
  EXPECT_EQ(points[0].repetition, e.repetition);
  EXPECT_EQ(points[0].time, e.time);
}

TEST(CampaignIndex, BlankAndRecordLinesAreNeitherPointsNorBad) {
  const std::string text =
      "\n  \t\r\n"
      R"({"record":"cliffs","cliffs":[]})"
      "\n"
      R"({"record":"other","point_id":"x","status":"ok"})"
      "\n"
      R"({"point_id":"b","status":"ok"})"
      "\n"
      R"({"point_id":"a","status":"failed"})"
      "\n"
      R"({"point_id":"b","status":"failed","error":"later"})"
      "\n";
  size_t bad = 99;
  const auto points = parse_index_points(text, &bad);
  EXPECT_EQ(bad, 0u);
  ASSERT_EQ(points.size(), 2u);  // in the order of first lines, the last line counting
  EXPECT_EQ(points[0].point_id, "b");
  EXPECT_EQ(points[0].error, "later");
  EXPECT_EQ(points[1].point_id, "a");
  const auto by_id = parse_index(text, &bad);
  EXPECT_EQ(bad, 0u);
  EXPECT_EQ(by_id.size(), 2u);
  EXPECT_EQ(by_id.at("b").status, "failed");
}

}  // namespace
}  // namespace rdmabench
