#pragma once
// A campaign folder's host records (results/SCHEMA.md "A campaign folder's host records"), one
// definition each: the sweep writes them through to_json (orchestrator/sweep/host_checks.cc,
// agent_checks.cc) and the report and the fabric check read them back through the *_from_json
// readers (report/campaign_folder.cc, check/fabric_check.cc).
//   - DIR/env/<host>.json: a host's environment, captured once per sweep (HostEnvRecord);
//   - {"record": "clock_offsets"} in DIR/index.jsonl: every host's clock offset, measured again
//     between a long fabric campaign's rounds (ClockOffsetsRecord).
// The readers throw ConfigError naming the JSON path of a member of the wrong kind; a member an
// older record lacks reads as absent.
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace rdmabench {

// A host's clock against the controller's: from the least delayed of `samples` exchanges.
struct ClockOffset {
  double offset_s = 0;       // host clock - controller clock
  double uncertainty_s = 0;  // half the chosen exchange's round trip
  unsigned samples = 0;
};
nlohmann::ordered_json to_json(const ClockOffset& c);
ClockOffset clock_offset_from_json(const nlohmann::json& j, const std::string& path = "");

struct HostEnvRecord {
  std::string host;         // as the campaign names it
  std::string rdmabench;    // the path run there
  std::string captured_at;  // UTC, ISO 8601
  // What the capture found (absent: it could not tell): `rdmabench --version`, `uname -a`, the
  // rdma-core package's version, `nproc`.
  std::optional<std::string> rdmabench_version, kernel, rdma_core;
  std::optional<unsigned> cpus;
  // `rdmabench devices --json` as the host printed it (its format: results/SCHEMA.md, the
  // devices document); null when it failed, with `devices_error`.
  nlohmann::json devices;
  std::optional<std::string> devices_error;
  std::optional<ClockOffset> clock_offset;  // a fabric sweep's hosts
  // Members this type does not name (a newer capture's), kept as they were.
  nlohmann::json other = nlohmann::json::object();

  // The device of `devices` named `name` ("" or "auto": the first); null when none.
  const nlohmann::json* device(const std::string& name) const;
};
nlohmann::ordered_json to_json(const HostEnvRecord& r);
HostEnvRecord host_env_record_from_json(const nlohmann::json& j);

// The index line's "record" member of a clock offsets record.
inline constexpr const char* kClockOffsetsRecord = "clock_offsets";
struct ClockOffsetsRecord {
  std::string time;  // UTC, ISO 8601
  std::map<std::string, ClockOffset> hosts;
};
nlohmann::ordered_json to_json(const ClockOffsetsRecord& r);
ClockOffsetsRecord clock_offsets_record_from_json(const nlohmann::json& j);

}  // namespace rdmabench
