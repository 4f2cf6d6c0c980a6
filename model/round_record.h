#pragma once
// A fabric round's record: the {"record": "round"} line of a campaign folder's index.jsonl, one
// per round that ran (results/SCHEMA.md "The round record"). The one definition: the fabric
// driver writes it through to_json (orchestrator/fabric/round_summary.cc), and the report reads
// it back through round_record_from_json (report/campaign_folder.cc, round figures, tables).
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace rdmabench {

// The index line's "record" member of a round record.
inline constexpr const char* kRoundRecord = "round";
// The label of the fabric's idle probe round, and the round part of its probes' point ids: its
// probes measure each link's latency with no load, the figure a loaded round's probes are judged
// against (a split round's labels start with it: "probes idle part 1/2").
inline constexpr const char* kIdleProbeRound = "probes idle";
bool is_idle_probe_round(const std::string& label);

struct MinMedianMax {
  double min = 0;
  double median = 0;
  double max = 0;
};

// One message size of the round, over the flows that measured it.
struct RoundSize {
  uint64_t size = 0;
  size_t flows = 0;
  double total_gbps = 0;
  std::optional<double> jain;          // Jain's fairness over the flows' Gb/s (null: none or all 0)
  MinMedianMax gbps;                   // the flows' Gb/s
  std::optional<MinMedianMax> p50_ns;  // the flows' p50 (latency mode)
  // How far the flows measured together (their windows on the controller's clock), when each
  // reported its window: the common part over the longest window, that common part, and the
  // largest clock uncertainty of the hosts.
  std::optional<double> overlap;
  std::optional<double> common_window_s;
  std::optional<double> clock_uncertainty_s;
  struct HostTraffic {
    double in_gbps = 0;
    double out_gbps = 0;
  };
  std::map<std::string, HostTraffic> hosts;  // each fabric host's Gb/s in and out
};

// A latency probe of the round at one size, or (size absent) one that failed.
struct RoundProbeEntry {
  std::string link;  // "<client> -> <server>"
  std::string server;
  std::string client;
  std::optional<uint64_t> size;
  std::optional<double> p50_ns, p99_ns, p99_9_ns;
  std::optional<double> idle_p99_ns;  // its link's p99 in the idle round
  std::optional<double> ratio;        // p99 / idle p99
  std::string error;                  // "" when it measured
};

struct RoundRecord {
  std::string round;  // its label: "pairwise 2/3", "incast 3->l1", "probes idle"
  uint32_t round_index = 0;
  unsigned repetition = 1;
  nlohmann::json matrix;  // the workload's matrix values
  size_t flows = 0;
  size_t ok = 0;
  size_t failed = 0;
  std::vector<RoundSize> sizes;
  std::optional<double> overlap_min;  // the smallest overlap of its sizes
  bool overlap_low = false;           // below kMinOverlap: the flows did not measure together
  std::string time;                   // UTC, ISO 8601
  std::optional<std::vector<RoundProbeEntry>> probes;  // with latency probes
};

nlohmann::ordered_json to_json(const RoundRecord& r);
// Throws ConfigError naming the JSON path of a member missing or of the wrong type.
RoundRecord round_record_from_json(const nlohmann::json& j);

// The round records of an index's lines (campaign_index.h parse_records(text, kRoundRecord)), in
// order; a line that is not a valid round record is left out and its error added to `refused`
// ("round record 3: /sizes/0/total_gbps ...").
std::vector<RoundRecord> round_records_from_json(const std::vector<nlohmann::json>& lines,
                                                 std::vector<std::string>& refused);

}  // namespace rdmabench
