#include "orchestrator/fabric/round_summary.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "base/number_text.h"
#include "model/workload.h"

namespace rdmabench {
namespace {

// {"min", "median", "max"} of `x` (not empty); the median of an even count is the mean of the
// middle two.
nlohmann::ordered_json spread(std::vector<double> x) {
  std::sort(x.begin(), x.end());
  const size_t n = x.size();
  const double median = n % 2 == 1 ? x[n / 2] : (x[n / 2 - 1] + x[n / 2]) / 2;
  return {{"min", x.front()}, {"median", median}, {"max", x.back()}};
}

nlohmann::json optional_number(const std::optional<double>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

// Each probe's figures at each size: {"link", "server", "client", "size", "p50_ns", "p99_ns",
// "p99_9_ns", "idle_p99_ns", "ratio"}, or {"link", "server", "client", "error"} for one that
// failed.
nlohmann::ordered_json probe_entries(const std::vector<RoundProbe>& probes) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const RoundProbe& p : probes) {
    const std::string link = p.flow.client + " -> " + p.flow.server;
    if (!p.flow.brief) {
      out.push_back({{"link", link},
                     {"server", p.flow.server},
                     {"client", p.flow.client},
                     {"error", "the probe failed"}});
      continue;
    }
    for (const SizeBrief& s : p.flow.brief->sizes) {
      nlohmann::ordered_json e = {{"link", link},
                                  {"server", p.flow.server},
                                  {"client", p.flow.client},
                                  {"size", s.size},
                                  {"p50_ns", optional_number(s.p50_ns)},
                                  {"p99_ns", optional_number(s.p99_ns)},
                                  {"p99_9_ns", optional_number(s.p999_ns)}};
      const auto idle = p.idle_p99_ns.find(s.size);
      std::optional<double> idle_p99;
      if (idle != p.idle_p99_ns.end()) idle_p99 = idle->second;
      e["idle_p99_ns"] = optional_number(idle_p99);
      e["ratio"] = idle_p99 && *idle_p99 > 0 && s.p99_ns ? nlohmann::json(*s.p99_ns / *idle_p99)
                                                         : nlohmann::json(nullptr);
      if (!s.error.empty()) e["error"] = s.error;
      out.push_back(std::move(e));
    }
  }
  return out;
}

}  // namespace

std::optional<Overlap> window_overlap(const std::vector<std::pair<double, double>>& windows) {
  if (windows.empty()) return std::nullopt;
  double latest_start = windows.front().first;
  double earliest_end = windows.front().second;
  double longest = 0;
  for (const auto& [start, end] : windows) {
    latest_start = std::max(latest_start, start);
    earliest_end = std::min(earliest_end, end);
    longest = std::max(longest, end - start);
  }
  const double common = std::max(0.0, earliest_end - latest_start);
  return Overlap{longest > 0 ? common / longest : 1.0, common};
}

nlohmann::json jain_index(const std::vector<double>& x) {
  double sum = 0;
  double squares = 0;
  for (double v : x) {
    sum += v;
    squares += v * v;
  }
  if (x.empty() || squares <= 0) return nullptr;
  return sum * sum / (static_cast<double>(x.size()) * squares);
}

nlohmann::ordered_json round_record(const std::string& label, uint32_t index, unsigned repetition,
                                    const nlohmann::json& values,
                                    const std::vector<RoundFlowResult>& flows,
                                    const std::string& time,
                                    const std::vector<RoundProbe>& probes) {
  struct SizeAgg {
    std::vector<double> gbps;
    std::vector<double> p50;
    std::vector<std::pair<double, double>> windows;  // on the controller's clock
    double uncertainty = 0;
    std::map<std::string, std::pair<double, double>> hosts;  // in, out
  };
  std::map<uint64_t, SizeAgg> sizes;
  size_t ok = 0;
  for (const RoundFlowResult& f : flows) {
    if (!f.brief) continue;
    ++ok;
    for (const SizeBrief& r : f.brief->sizes) {
      if (!r.error.empty() || !r.gbps) continue;
      SizeAgg& a = sizes[r.size];
      const double g = *r.gbps;
      a.gbps.push_back(g);
      a.hosts[f.server].first += g;
      a.hosts[f.client].second += g;
      if (r.p50_ns) a.p50.push_back(*r.p50_ns);
      if (r.window_start_unix_s && r.window_end_unix_s) {
        a.windows.emplace_back(*r.window_start_unix_s - f.clock_offset_s,
                               *r.window_end_unix_s - f.clock_offset_s);
        a.uncertainty = std::max(a.uncertainty, f.clock_uncertainty_s);
      }
    }
  }
  nlohmann::ordered_json per_size = nlohmann::ordered_json::array();
  nlohmann::json overlap_min = nullptr;
  for (const auto& [size, a] : sizes) {
    double total = 0;
    for (double g : a.gbps) total += g;
    nlohmann::ordered_json s = {{"size", size},
                                {"flows", a.gbps.size()},
                                {"total_gbps", total},
                                {"jain", jain_index(a.gbps)},
                                {"gbps", spread(a.gbps)}};
    if (!a.p50.empty()) s["p50_ns"] = spread(a.p50);
    if (const auto o = window_overlap(a.windows)) {
      s["overlap"] = o->fraction;
      s["common_window_s"] = o->common_s;
      s["clock_uncertainty_s"] = a.uncertainty;
      if (overlap_min.is_null() || o->fraction < overlap_min.get<double>())
        overlap_min = o->fraction;
    }
    nlohmann::ordered_json hosts = nlohmann::ordered_json::object();
    for (const auto& [h, io] : a.hosts) hosts[h] = {{"in_gbps", io.first}, {"out_gbps", io.second}};
    s["hosts"] = hosts;
    per_size.push_back(s);
  }
  nlohmann::ordered_json record = {
      {"record", "round"},
      {"round", label},
      {"round_index", index},
      {"repetition", repetition},
      {"matrix", values},
      {"flows", flows.size()},
      {"ok", ok},
      {"failed", flows.size() - ok},
      {"sizes", per_size},
      {"overlap_min", overlap_min},
      {"overlap_low", !overlap_min.is_null() && overlap_min.get<double>() < kMinOverlap},
      {"time", time}};
  if (!probes.empty()) record["probes"] = probe_entries(probes);
  return record;
}

std::string round_line(const nlohmann::ordered_json& record, size_t rounds) {
  std::string line = "round " + std::to_string(record["round_index"].get<uint32_t>() + 1) + "/" +
                     std::to_string(rounds) + " '" + record["round"].get<std::string>() +
                     "': " + std::to_string(record["ok"].get<size_t>()) + " ok, " +
                     std::to_string(record["failed"].get<size_t>()) + " failed";
  for (const auto& s : record["sizes"]) {
    line += "; " + format_size(s["size"].get<uint64_t>()) + ": total " +
            three_digits(s["total_gbps"].get<double>()) + " Gb/s, flows " +
            three_digits(s["gbps"]["min"].get<double>()) + "/" +
            three_digits(s["gbps"]["median"].get<double>()) + "/" +
            three_digits(s["gbps"]["max"].get<double>()) + " (min/median/max)";
    if (!s["jain"].is_null()) line += ", fairness " + three_digits(s["jain"].get<double>());
    if (s.contains("p50_ns"))
      line += ", p50 " + three_digits(s["p50_ns"]["median"].get<double>() / 1000) + " us (median)";
    if (s.contains("overlap"))
      line += ", overlap " + std::to_string(std::lround(s["overlap"].get<double>() * 100)) + " %";
  }
  if (const auto probes = record.find("probes"); probes != record.end()) {
    std::vector<double> p99;
    double worst = 0;
    for (const auto& e : *probes) {
      if (e.contains("p99_ns") && e["p99_ns"].is_number()) p99.push_back(e["p99_ns"].get<double>());
      if (e.contains("ratio") && e["ratio"].is_number())
        worst = std::max(worst, e["ratio"].get<double>());
    }
    line += "; probes " + std::to_string(p99.size()) + " of " + std::to_string(probes->size());
    if (!p99.empty())
      line += ", p99 " + three_digits(spread(p99)["median"].get<double>() / 1000) + " us (median)";
    if (worst > 0) line += ", load/idle p99 up to " + three_digits(worst);
  }
  if (record.value("overlap_low", false))
    line += " - OVERLAP BELOW " + std::to_string(std::lround(kMinOverlap * 100)) +
            " %: the flows did not measure together";
  return line;
}

}  // namespace rdmabench
