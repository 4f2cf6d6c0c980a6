#include "model/result.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <limits>

#include "base/error.h"
#include "base/json_util.h"

namespace rdmabench {
namespace {

nlohmann::json cpu_json(const CpuUse& c) {
  nlohmann::json j = {{"user_s", c.user_s}, {"sys_s", c.sys_s}, {"utilization", c.utilization}};
  if (c.voluntary_switches) j["voluntary_switches"] = *c.voluntary_switches;
  if (c.involuntary_switches) j["involuntary_switches"] = *c.involuntary_switches;
  return j;
}

// Doubles: NaN (no data) is written as null by nlohmann/json, so null reads back as NaN.
double num(const nlohmann::json& j) {
  if (j.is_null()) return std::numeric_limits<double>::quiet_NaN();
  return j.get<double>();
}

CpuUse cpu_from(const nlohmann::json& j) {
  CpuUse c{num(j.at("user_s")), num(j.at("sys_s")), num(j.at("utilization"))};
  if (j.contains("voluntary_switches"))
    c.voluntary_switches = j["voluntary_switches"].get<uint64_t>();
  if (j.contains("involuntary_switches"))
    c.involuntary_switches = j["involuntary_switches"].get<uint64_t>();
  return c;
}

// The "latency" object of a size result.
LatencyResult latency_from(const nlohmann::json& l) {
  LatencyResult lr;
  lr.kind = l.at("kind").get<std::string>();
  lr.unit = l.at("unit").get<std::string>();
  lr.summary.count = json_uint(l.at("count"));
  lr.summary.overflow = json_uint(l.at("overflow"));
  lr.summary.min = num(l.at("min"));
  lr.summary.max = num(l.at("max"));
  lr.summary.mean = num(l.at("mean"));
  lr.summary.stdev = num(l.at("stdev"));
  lr.summary.p50 = num(l.at("p50"));
  lr.summary.p90 = num(l.at("p90"));
  lr.summary.p99 = num(l.at("p99"));
  lr.summary.p999 = num(l.at("p99_9"));
  lr.summary.p9999 = num(l.at("p99_99"));
  lr.max_relative_error = num(l.at("max_relative_error"));
  // Before it existed every percentile was the bucket's highest value.
  lr.percentiles = l.value("percentiles", std::string("bucket_high"));
  for (const auto& b : l.at("buckets"))
    lr.buckets.push_back({num(b.at(0)), num(b.at(1)), num(b.at(2))});
  return lr;
}

// One element of "threads".
ThreadResult thread_from(const nlohmann::json& t) {
  ThreadResult tr;
  tr.thread = static_cast<uint32_t>(json_uint(t.at("thread"), UINT32_MAX));
  tr.ops = json_uint(t.at("ops"));
  tr.bytes = json_uint(t.at("bytes"));
  tr.seconds = num(t.at("seconds"));
  tr.gbps = num(t.at("gbps"));
  tr.mmsg_per_s = num(t.at("mmsg_per_s"));
  tr.cpu = cpu_from(t.at("cpu"));
  return tr;
}

// One element of "intervals" (--interval).
IntervalResult interval_from(const nlohmann::json& v) {
  IntervalResult iv;
  iv.start_unix_s = num(v.at("start_unix_s"));
  iv.offset_s = num(v.at("offset_s"));
  iv.seconds = num(v.at("seconds"));
  iv.ops = json_uint(v.at("ops"));
  iv.bytes = json_uint(v.at("bytes"));
  iv.gbps = num(v.at("gbps"));
  iv.mmsg_per_s = num(v.at("mmsg_per_s"));
  if (v.contains("p50_ns")) iv.p50_ns = num(v.at("p50_ns"));
  if (v.contains("p99_ns")) iv.p99_ns = num(v.at("p99_ns"));
  if (v.contains("counters")) {
    iv.counters.emplace();
    // An object of counts (a type_error otherwise, named by the caller).
    for (const auto& [name, n] : v.at("counters").get<nlohmann::json::object_t>())
      (*iv.counters)[name] = json_uint(n);
  }
  return iv;
}

// The fields added after the first schema, each read only when present (older documents lack
// them): the engine knobs, the open loop, the measurement window and the intervals.
void read_later_fields(const nlohmann::json& j, SizeResult& r) {
  if (j.contains("send_post_calls")) r.send_post_calls = json_uint(j.at("send_post_calls"));
  if (j.contains("counters") && j.at("counters").is_object()) r.counters = j.at("counters");
  if (j.contains("recv_post_calls")) r.recv_post_calls = json_uint(j.at("recv_post_calls"));
  if (j.contains("signal_every"))
    r.signal_every = static_cast<uint32_t>(json_uint(j.at("signal_every"), UINT32_MAX));
  if (j.contains("open_loop") && !j.at("open_loop").is_null()) {
    const auto& o = j.at("open_loop");
    r.open_loop =
        OpenLoopResult{num(o.at("rate")), num(o.at("achieved_rate")), json_uint(o.at("sends")),
                       json_uint(o.at("late_sends")), num(o.at("max_send_lag_ns"))};
  }
  if (j.contains("window") && !j.at("window").is_null())
    r.window = MeasurementWindow{num(j.at("window").at("start_unix_s")),
                                 num(j.at("window").at("end_unix_s"))};
  if (j.contains("interval_s")) {  // --interval
    r.interval_s = num(j.at("interval_s"));
    for (const auto& v : j.at("intervals")) r.intervals.push_back(interval_from(v));
    r.intervals_total = json_uint(j.at("intervals_total"));
    if (!j.at("bw_peak_gbps").is_null()) r.bw_peak_gbps = num(j.at("bw_peak_gbps"));
    if (!j.at("bw_min_gbps").is_null()) r.bw_min_gbps = num(j.at("bw_min_gbps"));
  }
}

// --interval only: absent otherwise.
void put_intervals(nlohmann::json& j, const SizeResult& r) {
  if (r.interval_s <= 0) return;
  j["interval_s"] = r.interval_s;
  nlohmann::json list = nlohmann::json::array();
  for (const IntervalResult& iv : r.intervals) list.push_back(iv);
  j["intervals"] = std::move(list);
  j["intervals_total"] = r.intervals_total;
  j["bw_peak_gbps"] = r.bw_peak_gbps ? nlohmann::json(*r.bw_peak_gbps) : nlohmann::json();
  j["bw_min_gbps"] = r.bw_min_gbps ? nlohmann::json(*r.bw_min_gbps) : nlohmann::json();
}

}  // namespace

void to_json(nlohmann::json& j, const SizeResult& r) {
  j = {{"size", r.size},
       {"iterations", r.iterations},
       {"ops", r.ops},
       {"bytes", r.bytes},
       {"seconds", r.seconds},
       {"gbps", r.gbps},
       {"mmsg_per_s", r.mmsg_per_s},
       {"cpu", cpu_json(r.cpu)},
       {"sent_messages", r.sent_messages},
       {"received_messages", r.received_messages},
       {"received_bytes", r.received_bytes},
       {"lost_messages", r.lost_messages},
       {"verified", r.verified},
       {"error", r.error.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.error)}};
  if (r.latency) {
    const LatencySummary& s = r.latency->summary;
    nlohmann::json b = nlohmann::json::array();
    for (const auto& x : r.latency->buckets) b.push_back({x[0], x[1], x[2]});
    j["latency"] = {{"kind", r.latency->kind},
                    {"unit", r.latency->unit},
                    {"count", s.count},
                    {"overflow", s.overflow},
                    {"min", s.min},
                    {"max", s.max},
                    {"mean", s.mean},
                    {"stdev", s.stdev},
                    {"p50", s.p50},
                    {"p90", s.p90},
                    {"p99", s.p99},
                    {"p99_9", s.p999},
                    {"p99_99", s.p9999},
                    {"max_relative_error", r.latency->max_relative_error},
                    {"percentiles", r.latency->percentiles},
                    {"buckets", b}};
  } else {
    j["latency"] = nullptr;
  }
  nlohmann::json th = nlohmann::json::array();
  for (const auto& t : r.threads)
    th.push_back({{"thread", t.thread},
                  {"ops", t.ops},
                  {"bytes", t.bytes},
                  {"seconds", t.seconds},
                  {"gbps", t.gbps},
                  {"mmsg_per_s", t.mmsg_per_s},
                  {"cpu", cpu_json(t.cpu)}});
  j["threads"] = th;
  if (r.reverse)
    j["reverse"] = {{"ops", r.reverse->ops},
                    {"bytes", r.reverse->bytes},
                    {"seconds", r.reverse->seconds},
                    {"gbps", r.reverse->gbps},
                    {"mmsg_per_s", r.reverse->mmsg_per_s}};
  else
    j["reverse"] = nullptr;
  j["send_post_calls"] = r.send_post_calls;
  j["recv_post_calls"] = r.recv_post_calls;
  if (r.signal_every != 0) j["signal_every"] = r.signal_every;
  if (r.open_loop)
    j["open_loop"] = {{"rate", r.open_loop->rate},
                      {"achieved_rate", r.open_loop->achieved_rate},
                      {"sends", r.open_loop->sends},
                      {"late_sends", r.open_loop->late_sends},
                      {"max_send_lag_ns", r.open_loop->max_send_lag_ns}};
  else
    j["open_loop"] = nullptr;
  if (r.window)
    j["window"] = {{"start_unix_s", r.window->start_unix_s}, {"end_unix_s", r.window->end_unix_s}};
  else
    j["window"] = nullptr;
  put_intervals(j, r);
  if (!r.counters.empty()) j["counters"] = r.counters;
}

void to_json(nlohmann::json& j, const IntervalResult& iv) {
  j = {{"start_unix_s", iv.start_unix_s},
       {"offset_s", iv.offset_s},
       {"seconds", iv.seconds},
       {"ops", iv.ops},
       {"bytes", iv.bytes},
       {"gbps", iv.gbps},
       {"mmsg_per_s", iv.mmsg_per_s}};
  if (iv.p50_ns) j["p50_ns"] = *iv.p50_ns;
  if (iv.p99_ns) j["p99_ns"] = *iv.p99_ns;
  if (iv.counters) j["counters"] = *iv.counters;
}

SizeResult size_result_from_json(const nlohmann::json& j, const std::string& path) {
  // A missing key or a wrong type, here or in the readers above, names this size result.
  try {
    SizeResult r;
    r.size = json_uint(j.at("size"));
    r.iterations = json_uint(j.at("iterations"));
    r.ops = json_uint(j.at("ops"));
    r.bytes = json_uint(j.at("bytes"));
    r.seconds = num(j.at("seconds"));
    r.gbps = num(j.at("gbps"));
    r.mmsg_per_s = num(j.at("mmsg_per_s"));
    r.cpu = cpu_from(j.at("cpu"));
    r.sent_messages = json_uint(j.at("sent_messages"));
    r.received_messages = json_uint(j.at("received_messages"));
    r.received_bytes = json_uint(j.at("received_bytes"));
    r.lost_messages = json_uint(j.at("lost_messages"));
    r.verified = j.at("verified").get<bool>();
    if (!j.at("error").is_null()) r.error = j.at("error").get<std::string>();
    if (!j.at("latency").is_null()) r.latency = latency_from(j.at("latency"));
    for (const auto& t : j.at("threads")) r.threads.push_back(thread_from(t));
    if (!j.at("reverse").is_null()) {
      const auto& v = j.at("reverse");
      r.reverse = DirectionResult{json_uint(v.at("ops")), json_uint(v.at("bytes")),
                                  num(v.at("seconds")), num(v.at("gbps")), num(v.at("mmsg_per_s"))};
    }
    read_later_fields(j, r);
    return r;
  } catch (const nlohmann::json::exception& e) {
    throw ConfigError(path, "(result)", std::string("a valid size result: ") + e.what());
  } catch (const std::domain_error& e) {
    throw ConfigError(path, "(result)", std::string("a valid size result: ") + e.what());
  }
}

void to_json(nlohmann::json& j, const HostInfo& h) {
  j = {{HostInfo::kHostname, h.hostname},
       {HostInfo::kKernel, h.kernel},
       {HostInfo::kRdmaCore, h.rdma_core}};
}

void to_json(nlohmann::json& j, const RunResult& r) {
  j = {{"schema_version", r.schema_version},
       {"tool", {{"name", r.tool}, {"version", r.tool_version}}},
       {"start_time", r.start_time},
       {"hosts", {{"client", r.client_host}, {"server", r.server_host}}},
       {"devices", {{"client", r.client_device}, {"server", r.server_device}}},
       {"server_address", r.server_address},
       {"workload", r.workload},
       {"clock",
        {{"source", r.clock.source},
         {"tsc_hz", r.clock.tsc_hz},
         {"fallback_reason", r.clock.fallback_reason},
         {"invariant_tsc", r.clock.invariant_tsc},
         {"tsc_note", r.clock.tsc_note},
         {"read_cost_ns", r.clock.read_cost_ns},
         {"drift", r.clock.drift},
         {"steady", r.clock.steady}}},
       {"results", r.results},
       {"counters", r.counters},
       {"setup", r.setup},
       {"error", r.error.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.error)}};
}

RunResult run_result_from_json(const nlohmann::json& j) {
  RunResult r;
  if (!j.is_object())
    throw ConfigError("/", brief_json(j), "an rdmabench result document (a JSON object)");
  if (!j.contains("schema_version"))
    throw ConfigError("/schema_version", "(missing)",
                      "an rdmabench result document (key 'schema_version' is missing)");
  r.schema_version = at_path<int>(j, "/schema_version", "an integer schema version");
  if (r.schema_version != kSchemaVersion)
    throw ConfigError("/schema_version", std::to_string(r.schema_version),
                      "schema version " + std::to_string(kSchemaVersion));
  const char* kStr = "a string";
  r.tool = at_path<std::string>(j, "/tool/name", kStr);
  // "perftest": a perftest measurement converted into this schema by bench/vs-perftest.
  if (r.tool != "rdmabench" && r.tool != "perftest")
    throw ConfigError("/tool/name", r.tool, "\"rdmabench\" (or \"perftest\", converted)");
  r.tool_version = at_path<std::string>(j, "/tool/version", kStr);
  r.start_time = at_path<std::string>(j, "/start_time", kStr);
  auto host = [&](const std::string& side) {
    const std::string base = "/hosts/" + side + "/";
    return HostInfo{at_path<std::string>(j, base + HostInfo::kHostname, kStr),
                    at_path<std::string>(j, base + HostInfo::kKernel, kStr),
                    at_path<std::string>(j, base + HostInfo::kRdmaCore, kStr)};
  };
  r.client_host = host("client");
  r.server_host = host("server");
  r.client_device = at_path<nlohmann::json>(j, "/devices/client", "a device object");
  r.server_device = at_path<nlohmann::json>(j, "/devices/server", "a device object");
  r.server_address = at_path<std::string>(j, "/server_address", kStr);
  r.clock.source = at_path<std::string>(j, "/clock/source", kStr);
  r.clock.tsc_hz = at_path<double>(j, "/clock/tsc_hz", "a number");
  r.clock.fallback_reason = at_path<std::string>(j, "/clock/fallback_reason", kStr);
  const nlohmann::json& clock = j.at("clock");
  if (clock.contains("read_cost_ns")) {  // absent in documents written before them
    r.clock.invariant_tsc = at_path<bool>(j, "/clock/invariant_tsc", "a boolean");
    r.clock.tsc_note = at_path<std::string>(j, "/clock/tsc_note", kStr);
    r.clock.read_cost_ns = at_path<double>(j, "/clock/read_cost_ns", "a number");
    r.clock.drift = at_path<double>(j, "/clock/drift", "a number");
    r.clock.steady = at_path<bool>(j, "/clock/steady", "a boolean");
  }
  r.counters = at_path<nlohmann::json>(j, "/counters", "an object");
  if (j.contains("setup")) {  // absent in documents written before it
    if (!j["setup"].is_object()) throw ConfigError("/setup", brief_json(j["setup"]), "an object");
    r.setup = j["setup"];
  }
  if (!j.contains("error") || !(j["error"].is_null() || j["error"].is_string()))
    throw ConfigError(
        "/error", j.contains("error") ? brief_json(j["error"]) : "(missing)",
        j.contains("error") ? "null or a string" : "null or a string (key 'error' is missing)");
  if (j["error"].is_string()) r.error = j["error"].get<std::string>();
  if (!j.contains("workload")) throw ConfigError("/workload", "(missing)", "a workload object");
  r.workload = workload_from_json(j.at("workload"), "/workload");
  if (!j.contains("results") || !j["results"].is_array())
    throw ConfigError("/results", "(missing)", "an array of size results");
  for (size_t i = 0; i < j["results"].size(); ++i)
    r.results.push_back(size_result_from_json(j["results"][i], "/results/" + std::to_string(i)));
  return r;
}

}  // namespace rdmabench
