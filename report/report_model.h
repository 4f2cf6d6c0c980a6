#pragma once
// What `rdmabench report` shows, gathered from the result documents and the campaign folders
// (pure: no files are read here; report.cc does that, report_html.cc renders it).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/hunt_record.h"
#include "report/campaign_folder.h"
#include "report/fabric_model.h"
#include "report/results_set.h"
#include "report/spread.h"

namespace rdmabench {

// One input argument and what was read from it.
struct ReportInput {
  std::string path;
  std::vector<ResultFile> runs;            // the ok documents (DIR/*.json or the file)
  std::optional<CampaignFolder> campaign;  // for folders
};

struct ReportSummary {
  std::vector<std::string> campaigns;  // point.campaign names (empty without a sweep)
  std::vector<std::string> inputs;
  std::string first_time, last_time;  // ISO 8601 UTC
  size_t documents = 0;               // result documents shown
  size_t points_ok = 0, points_failed = 0, points_skipped = 0;
  std::vector<std::string> versions;  // rdmabench versions of the runs and hosts
};

// A host and device as a run's document describes it.
struct HostRow {
  std::string role;  // "client" or "server"
  std::string hostname, kernel, rdma_core;
  std::string device, transport, link_layer, fw_ver, hw_ver, vendor, link, mtu, gid_type;
  auto operator<=>(const HostRow&) const = default;
};

// A host's environment record (DIR/env/<host>.json).
struct HostEnv {
  std::string host, captured_at, rdmabench, rdmabench_version, kernel, rdma_core, error;
  struct DeviceRow {
    std::string name, transport, fw_ver, node_guid, vendor, ports;
  };
  std::vector<DeviceRow> devices;
};

struct SizeRow {
  uint64_t size = 0;
  size_t runs = 0;  // documents in which this size succeeded
  std::optional<Spread> gbps, mmsg, p50_us, p99_us, p999_us, cpu_pct;
  uint64_t fewest_samples = 0;      // latency samples of the run with the fewest (0: no latency)
  std::optional<Spread> link_pct;   // Gb/s as a share of the client port's speed (both ways: 2x)
  std::vector<std::string> errors;  // of the documents in which it failed
};

// Below this many samples a run's p99.9 is one of its few largest samples: the page says so.
inline constexpr uint64_t kSamplesForP999 = 1000;

// A size's per-interval rates (--interval; SizeResult::intervals) over the runs that have them.
struct IntervalRow {
  uint64_t size = 0;
  size_t runs = 0;         // runs of the size with intervals
  std::string interval_s;  // the length(s) asked for: "1", "0.5, 1"
  Spread total, kept;      // intervals the size had, and those the document keeps
  std::optional<Spread> peak_gbps, min_gbps;  // bw_peak_gbps, bw_min_gbps of the runs
};

struct WorkloadTable {
  std::string label;                // "write rc bw" (+ the fields that tell the workloads apart)
  std::string settings;             // every other workload field
  std::string latency_kind;         // "half_round_trip" / "round_trip" / ""
  std::vector<std::string> points;  // point ids (or file paths without a sweep)
  std::vector<SizeRow> rows;
  // The port and hw counter deltas of the runs (result "counters"): per side, each counter that
  // moved in some run, with its median over the runs; `attention` for retransmission and error
  // counters (a name with err, retry, seq, dup, drop or discard) that moved.
  struct Counter {
    std::string side, name;
    double median = 0;
    bool attention = false;
  };
  std::vector<Counter> counters;
  std::vector<IntervalRow> intervals;  // the sizes with intervals (none without --interval)
};

struct FailedPoint {
  std::string id;  // point id or file path
  std::string host_pair, time, workload, error;
};

// A cliff a search campaign found (orchestrator/search/cliff.h): along `along`, the metric of
// `point` dropped by `drop` (0..1) from the previous value of its line.
struct CliffRow {
  std::string point, line, along, value, previous_value, metric, shape;
  double measured = 0, previous = 0, drop = 0;
};

struct SkippedPoint {
  std::string id, reason;
};

struct ReportModel {
  ReportSummary summary;
  std::vector<HostEnv> host_envs;
  std::vector<HostRow> hosts;
  std::vector<WorkloadTable> workloads;
  std::vector<FailedPoint> failed;  // failed points, failed runs and failed sizes
  std::vector<SkippedPoint> skipped;
  bool searched_cliffs = false;  // some input has a cliffs record (then the section is shown)
  std::vector<CliffRow> cliffs;
  // A fabric campaign's round records and verdicts (fabric_model.h); empty otherwise.
  std::vector<RoundRow> rounds;
  std::optional<FabricVerdicts> verdicts;
  // A hunt's records (model/hunt_record.h), one per campaign folder that has one.
  std::vector<HuntRecord> hunts;
  // Why the page has no figures although there are measurements (gnuplot missing); "" otherwise.
  std::string figures_note;
};

ReportModel build_report_model(const std::vector<ReportInput>& inputs);

}  // namespace rdmabench
