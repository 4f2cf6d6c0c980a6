#pragma once
// The result document of one run: one struct, serialised with nlohmann/json. The schema is
// described in results/SCHEMA.md; bump kSchemaVersion on incompatible changes.
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "base/statistics.h"
#include "model/workload.h"

namespace rdmabench {

inline constexpr int kSchemaVersion = 1;

// The "host" block of the result document and of the session's hello and accept messages:
// written by to_json below, read under these member names.
struct HostInfo {
  static constexpr const char* kHostname = "hostname";
  static constexpr const char* kKernel = "kernel";
  static constexpr const char* kRdmaCore = "rdma_core";
  std::string hostname;
  std::string kernel;
  std::string rdma_core;
  bool operator==(const HostInfo&) const = default;
};
void to_json(nlohmann::json& j, const HostInfo& h);

struct CpuUse {
  double user_s = 0;
  double sys_s = 0;
  double utilization = 0;  // (user + sys) / wall seconds of the measured interval; 1.0 = one core
  // The worker threads' context switches over the measured interval (getrusage RUSAGE_THREAD:
  // ru_nvcsw, ru_nivcsw), summed over them: a worker that gave up its CPU (voluntary: it slept,
  // an event-mode wait) or was preempted (involuntary: another thread or process ran on its
  // CPU) measured that time too. Absent (nullopt) in documents written before them.
  std::optional<uint64_t> voluntary_switches{};
  std::optional<uint64_t> involuntary_switches{};
};

struct LatencyResult {
  std::string kind;  // "half_round_trip" (send/write ping-pong) or "round_trip"
  std::string unit = "ns";
  LatencySummary summary{};
  double max_relative_error = 0;
  // How the percentiles were taken (Histogram::percentile_method): "exact" (every sample kept,
  // nearest rank) or "interpolated" (within the histogram bucket holding the rank).
  std::string percentiles = "exact";
  // Non-empty histogram buckets in ns: [low, high, count].
  std::vector<std::array<double, 3>> buckets;
};

struct ThreadResult {
  uint32_t thread = 0;
  uint64_t ops = 0;
  uint64_t bytes = 0;
  double seconds = 0;
  double gbps = 0;
  double mmsg_per_s = 0;
  CpuUse cpu;
};

struct DirectionResult {  // the server's own sending in a bidirectional run
  uint64_t ops = 0;
  uint64_t bytes = 0;
  double seconds = 0;
  double gbps = 0;
  double mmsg_per_s = 0;
};

struct OpenLoopResult {        // --rate: the schedule and how well the sender kept it
  double rate = 0;             // requested messages/s per QP
  double achieved_rate = 0;    // messages/s per QP actually posted (mean over threads)
  uint64_t sends = 0;          // measured sends, all QPs
  uint64_t late_sends = 0;     // posted more than half an interval after their intended time
  double max_send_lag_ns = 0;  // largest delay of a send behind its intended time
};

// When a size's measurement ran, on the client host's realtime clock (Unix seconds; the
// orchestrator corrects it by the host's clock offset to line up flows of several hosts).
struct MeasurementWindow {
  double start_unix_s = 0;
  double end_unix_s = 0;
};

// One interval of a size's measurement (--interval; docs/single-pair.md "Watching a link"): the
// client's operations completed in it. The last one of a size ends with the measurement (usually
// short).
struct IntervalResult {
  double start_unix_s = 0;  // the client host's realtime clock, like MeasurementWindow
  double offset_s = 0;      // from the start of the size's measurement
  double seconds = 0;
  uint64_t ops = 0;
  uint64_t bytes = 0;
  double gbps = 0;
  double mmsg_per_s = 0;
  // Latency mode: the interval's percentiles (same kind as the size's), interpolated within the
  // histogram's buckets; absent when nothing completed in it.
  std::optional<double> p50_ns;
  std::optional<double> p99_ns;
  // The client's port counters that moved in the interval (their deltas, keyed as the size's
  // "counters", e.g. "hw_counters/sent_pkts"); empty when none moved or the device has none
  // (siw); nullopt when they were not read (documents written before them).
  std::optional<std::map<std::string, uint64_t>> counters;
};

struct SizeResult {
  uint64_t size = 0;
  uint64_t iterations = 0;  // measured operations per QP (count mode)
  uint64_t ops = 0;         // measured operations, all QPs
  uint64_t bytes = 0;
  double seconds = 0;
  double gbps = 0;
  double mmsg_per_s = 0;
  std::optional<LatencyResult> latency;
  std::vector<ThreadResult> threads;
  CpuUse cpu;
  uint64_t sent_messages = 0;      // all posted by the client, warm-up included
  uint64_t received_messages = 0;  // counted by the receiver, warm-up included (recv ops)
  uint64_t received_bytes = 0;
  uint64_t lost_messages = 0;              // UC/UD: sent - received
  std::optional<DirectionResult> reverse;  // bidir: server -> client
  uint64_t send_post_calls = 0;            // the client's ibv_post_send calls (warm-up included)
  uint64_t recv_post_calls = 0;            // the server's receive re-post calls (warm-up included)
  uint32_t signal_every = 0;  // bw: the measurement's signalling interval (0: lat, or not recorded)
  std::optional<OpenLoopResult> open_loop;
  std::optional<MeasurementWindow> window;  // absent in documents written before it
  // --interval: the asked length (0: none), the most recent intervals (at most
  // IntervalMeter::kMaxKept), how many there were, and the highest and lowest interval rate
  // among the intervals at least half the asked length (all of them if none is).
  double interval_s = 0;
  std::vector<IntervalResult> intervals;
  uint64_t intervals_total = 0;
  std::optional<double> bw_peak_gbps;
  std::optional<double> bw_min_gbps;
  bool verified = false;  // --verify ran and passed
  std::string error;      // "" when the point succeeded
  // The ports' counter deltas over this size (warm-up and measurement): {"client": {...},
  // "server": {...}}; empty in documents written before them.
  nlohmann::json counters = nlohmann::json::object();
};

struct ClockInfo {
  std::string source;
  double tsc_hz = 0;
  std::string fallback_reason;
  // Absent from documents written before them (read as below).
  bool invariant_tsc = false;  // CPUID advertised an invariant TSC
  std::string tsc_note;        // TSC used without the invariant bit: why
  double read_cost_ns = 0;     // one clock read, measured at calibration (0: unknown)
  double drift = 0;            // the TSC's rate at the end of the run vs calibrated (0: none)
  bool steady = true;          // |drift| within Clock::kMaxSpread
};

struct RunResult {
  int schema_version = kSchemaVersion;
  std::string tool = "rdmabench";
  std::string tool_version;
  std::string start_time;  // ISO 8601 UTC
  HostInfo client_host;
  HostInfo server_host;
  nlohmann::json client_device;  // SessionResources::describe()
  nlohmann::json server_device;
  std::string server_address;
  Workload workload;
  ClockInfo clock;
  std::vector<SizeResult> results;
  nlohmann::json counters = nlohmann::json::object();  // {"client": {...}, } deltas
  nlohmann::json setup =
      nlohmann::json::object();  // {"client": SessionResources::setup_info, "server": ...}
  std::string error;             // run-level error ("" if none)
  // What kind of failure `error` is, for the exit status (docs/single-pair.md, "Exit status"); not
  // written to the document.
  enum class Failure { kNone, kFailed, kBadInput, kRefused, kTimeout, kBusy };
  Failure failure = Failure::kNone;
};

void to_json(nlohmann::json& j, const RunResult& r);
RunResult run_result_from_json(const nlohmann::json& j);  // throws ConfigError naming the path
void to_json(nlohmann::json& j, const SizeResult& r);
void to_json(nlohmann::json& j, const IntervalResult& iv);
SizeResult size_result_from_json(const nlohmann::json& j, const std::string& path);

}  // namespace rdmabench
