// A campaign folder's host records through their one type each (model/host_env_record.h): a
// host's environment (DIR/env/<host>.json) and the clock offsets record of index.jsonl. Folders
// recorded before the types existed read back whole (tests/fixtures/campaign, 2026-11-22: a
// host-pair campaign's env; tests/fixtures/env-fabric, 2026-11-29: a fabric's, with its clock
// offset, written by the build before this change), and writing what was read gives the recorded
// members back (a member the older capture lacked written as unknown); a member of the wrong kind
// is refused naming its path.
#include "model/host_env_record.h"

#include <gtest/gtest.h>

#include <string>

#include "base/error.h"
#include "tests/unit/report_test_util.h"

namespace rdmabench {
namespace {

using nlohmann::json;

json fixture(const std::string& rel) {
  return json::parse(testutil::read_text(testutil::kFixtureRoot / rel));
}

TEST(HostEnvRecord, AHostPairCampaignsRecordReadsBackMemberForMember) {
  const json recorded = fixture("campaign/results/env/local.json");
  const HostEnvRecord r = host_env_record_from_json(recorded);
  EXPECT_EQ(r.host, "local");
  ASSERT_NE(r.device("rxe0"), nullptr);
  EXPECT_EQ(r.device(""), r.device("rxe0"));  // "" (and "auto"): the first device
  EXPECT_EQ(r.device("mlx5_0"), nullptr);
  EXPECT_FALSE(r.clock_offset.has_value());  // a host-pair sweep measures none
  // Every recorded member written back as it was; "cpus", which this older capture lacked, is
  // written as unknown (null).
  json written = json::parse(to_json(r).dump());
  EXPECT_TRUE(written["cpus"].is_null());
  written.erase("cpus");
  EXPECT_EQ(written, recorded);
}

TEST(HostEnvRecord, AFabricsRecordKeepsItsClockOffset) {
  const json recorded = fixture("env-fabric/local.json");
  const HostEnvRecord r = host_env_record_from_json(recorded);
  ASSERT_TRUE(r.clock_offset.has_value());
  EXPECT_EQ(r.clock_offset->offset_s, recorded["clock_offset"]["offset_s"].get<double>());
  EXPECT_GT(r.clock_offset->samples, 0u);
  ASSERT_TRUE(r.cpus.has_value());
  EXPECT_EQ(json::parse(to_json(r).dump()), recorded);
}

TEST(HostEnvRecord, RoundTripsWhatTheCaptureCouldNotTell) {
  HostEnvRecord r;
  r.host = "node7";
  r.rdmabench = "/usr/bin/rdmabench";
  r.captured_at = "2026-11-29T01:00:00Z";
  r.kernel = "Linux node7 6.1.0";
  r.devices_error = "exit status 127: rdmabench: not found";
  r.other["newer_fact"] = {{"kept", true}};
  const json j = json::parse(to_json(r).dump());
  EXPECT_TRUE(j["devices"].is_null());
  EXPECT_TRUE(j["cpus"].is_null());
  EXPECT_TRUE(j["rdma_core"].is_null());
  const HostEnvRecord back = host_env_record_from_json(j);
  EXPECT_EQ(back.kernel, r.kernel);
  EXPECT_FALSE(back.rdma_core.has_value());
  EXPECT_EQ(back.devices_error, r.devices_error);
  EXPECT_EQ(back.other, r.other);
  EXPECT_EQ(json::parse(to_json(back).dump()), j);
}

TEST(HostEnvRecord, MembersOfTheWrongKindNameTheirPath) {
  const json good = fixture("campaign/results/env/local.json");
  const auto field_of = [](const json& j) {
    try {
      host_env_record_from_json(j);
    } catch (const ConfigError& e) {
      return e.field();
    }
    return std::string("(accepted)");
  };
  json j = good;
  j["cpus"] = -2;
  EXPECT_EQ(field_of(j), "/cpus");
  j = good;
  j["kernel"] = 5;
  EXPECT_EQ(field_of(j), "/kernel");
  j = good;
  j["devices"] = "rxe0";
  EXPECT_EQ(field_of(j), "/devices");
  j = good;
  j["clock_offset"] = {{"offset_s", "soon"}, {"uncertainty_s", 0.001}};
  EXPECT_EQ(field_of(j), "/clock_offset/offset_s");
  EXPECT_EQ(field_of(json::array()), "/");
}

TEST(ClockOffsetsRecord, RoundTripsAndRefusesAnotherRecord) {
  ClockOffsetsRecord r;
  r.time = "2026-11-29T01:05:00Z";
  r.hosts["rb-host1"] = ClockOffset{0.25, 0.0004, 8};
  r.hosts["rb-host2"] = ClockOffset{-0.125, 0.0002, 8};
  const json j = json::parse(to_json(r).dump());
  EXPECT_EQ(j["record"], kClockOffsetsRecord);
  const ClockOffsetsRecord back = clock_offsets_record_from_json(j);
  EXPECT_EQ(back.time, r.time);
  ASSERT_EQ(back.hosts.size(), 2u);
  EXPECT_EQ(back.hosts.at("rb-host2").offset_s, -0.125);
  EXPECT_EQ(json::parse(to_json(back).dump()), j);
  json bad = j;
  bad["hosts"]["rb-host1"].erase("uncertainty_s");
  try {
    clock_offsets_record_from_json(bad);
    FAIL() << "a host without its uncertainty was accepted";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.field(), "/hosts/rb-host1/uncertainty_s");
  }
  EXPECT_THROW(clock_offsets_record_from_json(json{{"record", "round"}}), ConfigError);
}

}  // namespace
}  // namespace rdmabench
