#include "cli/print.h"

#include <cstdio>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>

namespace rdmabench {
namespace {

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

// The value at the JSON pointer `pointer` ("/server/placement/cpus") inside `j`, or nullptr.
const nlohmann::json* json_at(const nlohmann::json& j, const std::string& pointer) {
  const nlohmann::json::json_pointer p(pointer);
  return j.contains(p) ? &j.at(p) : nullptr;
}

const char* kRule =
    "---------------------------------------------------------------------------------------";

}  // namespace

void print_devices(std::ostream& os, const std::vector<DeviceInfo>& devices) {
  if (devices.empty()) {
    os << "no RDMA devices found (is a driver loaded? try 'rdma link')\n";
    return;
  }
  for (const auto& d : devices) {
    os << d.name << ": " << d.transport << ", vendor 0x" << std::hex << d.vendor_id << " part 0x"
       << d.vendor_part_id << std::dec << ", fw " << (d.fw_ver.empty() ? "-" : d.fw_ver)
       << ", max_qp_wr " << d.max_qp_wr << ", max_inline_data " << d.max_inline_data << ", max_sge "
       << d.max_sge << ", atomics " << d.atomic_cap << "\n";
    for (const auto& p : d.ports) {
      os << "  port " << p.port << ": " << p.state << ", " << p.link_layer << ", MTU "
         << p.active_mtu << " (max " << p.max_mtu << "), " << fmt("%g", p.speed_gbps) << " Gb/s "
         << p.width << (p.link_layer == "InfiniBand" ? ", LID " + std::to_string(p.lid) : "")
         << "\n";
      for (const auto& g : p.gids)
        os << "    GID " << g.index << ": " << g.gid << "  " << g.type
           << (g.netdev.empty() ? "" : "  " + g.netdev) << "\n";
      const nlohmann::json a = auto_gid_choice(p);
      if (a["index"].get<int>() >= 0)
        os << "    auto (no -x): GID " << a["index"].get<int>() << ", "
           << a["why"].get<std::string>() << "\n";
      else
        os << "    auto (no -x): none fits\n";
      if (!a["warning"].get<std::string>().empty())
        os << "    WARNING: " << a["warning"].get<std::string>() << "\n";
    }
  }
}

void print_header(std::ostream& os, const Workload& w) {
  os << kRule << "\n " << to_string(w.op) << " " << (w.mode == Mode::kBw ? "bandwidth" : "latency")
     << " test, " << to_string(w.qp) << ", " << w.threads << " thread(s) x " << w.qps_per_thread
     << " QP(s), CQ " << to_string(w.cq) << ", connect " << to_string(w.connect)
     << (w.bidir ? ", bidirectional" : "") << "\n"
     << " tx depth " << w.tx_depth << ", rx depth " << w.rx_depth << ", signal every "
     << w.effective_signal_every()
     // The default interval is lowered per size (Workload::bw_signal_every); the results say how.
     << (w.mode == Mode::kBw && w.signal_every == 0 ? " at most (per size: >= 4 a phase, 1 a MiB)"
                                                    : "")
     << (w.verify ? ", verifying payloads" : "") << "\n"
     << kRule << "\n";
  if (w.mode == Mode::kBw) {
    os << " #bytes     #iterations    BW average[Gb/sec]   MsgRate[Mpps]   CPU[%]\n";
  } else {
    os << " #bytes #iterations  t_min[usec]  t_max[usec]  t_typical[usec]  t_avg[usec]  "
          "t_stdev[usec]  99%[usec]  99.9%[usec]\n";
  }
}

void print_size(std::ostream& os, const Workload& w, const SizeResult& r) {
  char line[256];
  if (!r.error.empty()) {
    std::snprintf(line, sizeof line, " %-10llu FAILED: ", static_cast<unsigned long long>(r.size));
    os << line << r.error << "\n";
    return;
  }
  if (w.mode == Mode::kBw) {
    std::snprintf(line, sizeof line, " %-10llu %-14llu %-20.3f %-15.6f %.1f",
                  static_cast<unsigned long long>(r.size),
                  static_cast<unsigned long long>(r.iterations), r.gbps, r.mmsg_per_s,
                  r.cpu.utilization * 100);
    os << line;
    if (r.reverse) os << fmt("   reverse %.3f Gb/s", r.reverse->gbps);
    if (r.bw_peak_gbps && r.bw_min_gbps)
      os << fmt("   intervals: peak %.3f", *r.bw_peak_gbps)
         << fmt(", lowest %.3f Gb/s", *r.bw_min_gbps);
    if (r.lost_messages > 0) os << "   lost " << r.lost_messages;
    os << "\n";
  } else if (r.latency) {
    const auto& s = r.latency->summary;
    std::snprintf(line, sizeof line,
                  " %-6llu %-12llu %-12.2f %-12.2f %-16.2f %-12.2f %-14.2f %-10.2f %.2f",
                  static_cast<unsigned long long>(r.size),
                  static_cast<unsigned long long>(r.iterations), s.min / 1e3, s.max / 1e3,
                  s.p50 / 1e3, s.mean / 1e3, s.stdev / 1e3, s.p99 / 1e3, s.p999 / 1e3);
    os << line << "\n";
  }
}

void print_interval(std::ostream& os, const Workload& w, uint64_t size, const IntervalResult& iv) {
  char line[256];
  std::snprintf(line, sizeof line, " [%8.2f s +%5.2f s] %-10llu %10.3f Gb/s %12.6f Mmsg/s",
                iv.offset_s, iv.seconds, static_cast<unsigned long long>(size), iv.gbps,
                iv.mmsg_per_s);
  os << line;
  if (w.mode == Mode::kLat && iv.p50_ns && iv.p99_ns)
    os << fmt("   p50 %.2f us", *iv.p50_ns / 1e3) << fmt("   p99 %.2f us", *iv.p99_ns / 1e3);
  os << std::endl;  // seen as it happens, also through a pipe
}

void print_footer(std::ostream& os, const RunResult& r) {
  os << kRule << "\n";
  if (r.workload.mode == Mode::kLat && !r.results.empty() && r.workload.open_loop())
    os << " open loop at " << r.workload.rate
       << " msg/s per QP: latency is the round trip from each message's intended send time, clock "
       << r.clock.source << "\n";
  else if (r.workload.mode == Mode::kLat && !r.results.empty())
    os << " latency is " << (is_fetch(r.workload.op) ? "the round trip" : "half the round trip")
       << " (as perftest), clock " << r.clock.source << "\n";
  // QP settings a device holds another value of than asked (setup.SIDE.qp_attr.fabric).
  for (const char* side : {"client", "server"}) {
    const auto* diff = json_at(r.setup, "/" + std::string(side) + "/qp_attr/fabric/not_as_asked");
    if (diff == nullptr || !diff->is_object() || diff->empty()) continue;
    os << " note: the " << side << "'s device applied";
    for (const auto& [key, v] : diff->items())
      os << " " << key << " " << v.value("applied", 0) << " (asked " << v.value("asked", 0) << ")";
    os << "\n";
  }
  // Both ends on one host pinning a CPU in common: two busy-polling workers share it.
  if (r.client_host.hostname == r.server_host.hostname && !r.client_host.hostname.empty()) {
    const auto* server_cpus = json_at(r.setup, "/server/placement/cpus");
    std::string shared;
    if (server_cpus != nullptr && server_cpus->is_array())
      for (int c : r.workload.cpus)
        for (const auto& s : *server_cpus)
          if (s.is_number_integer() && s.get<int>() == c) shared += " " + std::to_string(c);
    if (!shared.empty())
      os << " WARNING: client and server on one host both pin CPU" << shared
         << ": their busy-polling workers share it; give each side its own (client --cpus, "
            "server --cpus)\n";
  }
  if (!r.clock.steady)
    os << " WARNING: the TSC's rate changed by " << fmt("%.3f", r.clock.drift * 100)
       << " % during the run: its figures are off; run again with RDMABENCH_CLOCK=monotonic\n";
}

}  // namespace rdmabench
