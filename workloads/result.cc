#include "workloads/result.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <fstream>

#include "harness/error.h"

namespace rdmabench {
namespace {

std::string read_first_line(const char* cmd) {
  std::string out;
  if (FILE* f = popen(cmd, "r")) {
    char buf[256];
    if (fgets(buf, sizeof buf, f) != nullptr) out = buf;
    pclose(f);
  }
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  return out;
}

nlohmann::json cpu_json(const CpuUse& c) {
  return {{"user_s", c.user_s}, {"sys_s", c.sys_s}, {"utilization", c.utilization}};
}

CpuUse cpu_from(const nlohmann::json& j) {
  return {j.at("user_s").get<double>(), j.at("sys_s").get<double>(),
          j.at("utilization").get<double>()};
}

}  // namespace

HostInfo local_host_info() {
  HostInfo h;
  char name[256] = {};
  gethostname(name, sizeof name - 1);
  h.hostname = name;
  utsname u{};
  if (uname(&u) == 0) h.kernel = std::string(u.sysname) + " " + u.release + " " + u.machine;
  h.rdma_core = read_first_line("dpkg-query -W -f='${Version}' rdma-core 2>/dev/null");
  if (h.rdma_core.empty()) h.rdma_core = read_first_line("rpm -q --qf '%{VERSION}' rdma-core 2>/dev/null");
  if (h.rdma_core.empty()) h.rdma_core = "unknown";
  return h;
}

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
}

SizeResult size_result_from_json(const nlohmann::json& j, const std::string& path) {
  try {
    SizeResult r;
    r.size = j.at("size").get<uint64_t>();
    r.iterations = j.at("iterations").get<uint64_t>();
    r.ops = j.at("ops").get<uint64_t>();
    r.bytes = j.at("bytes").get<uint64_t>();
    r.seconds = j.at("seconds").get<double>();
    r.gbps = j.at("gbps").get<double>();
    r.mmsg_per_s = j.at("mmsg_per_s").get<double>();
    r.cpu = cpu_from(j.at("cpu"));
    r.sent_messages = j.at("sent_messages").get<uint64_t>();
    r.received_messages = j.at("received_messages").get<uint64_t>();
    r.received_bytes = j.at("received_bytes").get<uint64_t>();
    r.lost_messages = j.at("lost_messages").get<uint64_t>();
    r.verified = j.at("verified").get<bool>();
    if (!j.at("error").is_null()) r.error = j.at("error").get<std::string>();
    if (!j.at("latency").is_null()) {
      const auto& l = j.at("latency");
      LatencyResult lr;
      lr.kind = l.at("kind").get<std::string>();
      lr.unit = l.at("unit").get<std::string>();
      lr.summary.count = l.at("count").get<uint64_t>();
      lr.summary.overflow = l.at("overflow").get<uint64_t>();
      lr.summary.min = l.at("min").get<double>();
      lr.summary.max = l.at("max").get<double>();
      lr.summary.mean = l.at("mean").get<double>();
      lr.summary.stdev = l.at("stdev").get<double>();
      lr.summary.p50 = l.at("p50").get<double>();
      lr.summary.p90 = l.at("p90").get<double>();
      lr.summary.p99 = l.at("p99").get<double>();
      lr.summary.p999 = l.at("p99_9").get<double>();
      lr.summary.p9999 = l.at("p99_99").get<double>();
      lr.max_relative_error = l.at("max_relative_error").get<double>();
      for (const auto& b : l.at("buckets"))
        lr.buckets.push_back({b.at(0).get<double>(), b.at(1).get<double>(), b.at(2).get<double>()});
      r.latency = lr;
    }
    for (const auto& t : j.at("threads")) {
      ThreadResult tr;
      tr.thread = t.at("thread").get<uint32_t>();
      tr.ops = t.at("ops").get<uint64_t>();
      tr.bytes = t.at("bytes").get<uint64_t>();
      tr.seconds = t.at("seconds").get<double>();
      tr.gbps = t.at("gbps").get<double>();
      tr.mmsg_per_s = t.at("mmsg_per_s").get<double>();
      tr.cpu = cpu_from(t.at("cpu"));
      r.threads.push_back(tr);
    }
    if (!j.at("reverse").is_null()) {
      const auto& v = j.at("reverse");
      r.reverse = DirectionResult{v.at("ops").get<uint64_t>(), v.at("bytes").get<uint64_t>(),
                                  v.at("seconds").get<double>(), v.at("gbps").get<double>(),
                                  v.at("mmsg_per_s").get<double>()};
    }
    return r;
  } catch (const nlohmann::json::exception& e) {
    throw ConfigError(path, "(result)", std::string("a valid size result: ") + e.what());
  }
}

void to_json(nlohmann::json& j, const RunResult& r) {
  auto host = [](const HostInfo& h) {
    return nlohmann::json{{"hostname", h.hostname}, {"kernel", h.kernel}, {"rdma_core", h.rdma_core}};
  };
  j = {{"schema_version", r.schema_version},
       {"tool", {{"name", r.tool}, {"version", r.tool_version}}},
       {"start_time", r.start_time},
       {"hosts", {{"client", host(r.client_host)}, {"server", host(r.server_host)}}},
       {"devices", {{"client", r.client_device}, {"server", r.server_device}}},
       {"server_address", r.server_address},
       {"workload", r.workload},
       {"clock", {{"source", r.clock.source}, {"tsc_hz", r.clock.tsc_hz},
                  {"fallback_reason", r.clock.fallback_reason}}},
       {"results", r.results},
       {"counters", r.counters},
       {"error", r.error.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.error)}};
}

RunResult run_result_from_json(const nlohmann::json& j) {
  RunResult r;
  try {
    r.schema_version = j.at("schema_version").get<int>();
    if (r.schema_version != kSchemaVersion)
      throw ConfigError("/schema_version", std::to_string(r.schema_version),
                        "schema version " + std::to_string(kSchemaVersion));
    r.tool = j.at("tool").at("name").get<std::string>();
    r.tool_version = j.at("tool").at("version").get<std::string>();
    r.start_time = j.at("start_time").get<std::string>();
    auto host = [](const nlohmann::json& h) {
      return HostInfo{h.at("hostname").get<std::string>(), h.at("kernel").get<std::string>(),
                      h.at("rdma_core").get<std::string>()};
    };
    r.client_host = host(j.at("hosts").at("client"));
    r.server_host = host(j.at("hosts").at("server"));
    r.client_device = j.at("devices").at("client");
    r.server_device = j.at("devices").at("server");
    r.server_address = j.at("server_address").get<std::string>();
    r.clock.source = j.at("clock").at("source").get<std::string>();
    r.clock.tsc_hz = j.at("clock").at("tsc_hz").get<double>();
    r.clock.fallback_reason = j.at("clock").at("fallback_reason").get<std::string>();
    r.counters = j.at("counters");
    if (!j.at("error").is_null()) r.error = j.at("error").get<std::string>();
  } catch (const nlohmann::json::exception& e) {
    throw ConfigError("/", "(result document)", std::string("an rdmabench result: ") + e.what());
  }
  if (!j.contains("workload")) throw ConfigError("/workload", "(missing)", "a workload object");
  nlohmann::json wl = j.at("workload");
  r.workload = workload_from_json(wl, "/workload");
  if (!j.contains("results") || !j["results"].is_array())
    throw ConfigError("/results", "(missing)", "an array of size results");
  for (size_t i = 0; i < j["results"].size(); ++i)
    r.results.push_back(size_result_from_json(j["results"][i], "/results/" + std::to_string(i)));
  return r;
}

void write_file_atomic(const std::string& path, const std::string& text) {
  std::string tmpl = path + ".tmp.XXXXXX";
  std::vector<char> name(tmpl.begin(), tmpl.end());
  name.push_back('\0');
  int fd = mkstemp(name.data());
  if (fd < 0) throw_sys("mkstemp", "a temporary file beside " + path);
  size_t off = 0;
  while (off < text.size()) {
    ssize_t n = ::write(fd, text.data() + off, text.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      int err = errno;
      ::close(fd);
      ::unlink(name.data());
      throw_sys("write", name.data(), err);
    }
    off += static_cast<size_t>(n);
  }
  fchmod(fd, 0644);
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    int err = errno;
    ::unlink(name.data());
    throw_sys("fsync/close", name.data(), err);
  }
  if (::rename(name.data(), path.c_str()) != 0) {
    int err = errno;
    ::unlink(name.data());
    throw_sys("rename", std::string(name.data()) + " -> " + path, err);
  }
}

}  // namespace rdmabench
