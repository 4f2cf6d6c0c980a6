#include "orchestrator/fabric/round_summary.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "base/number_text.h"
#include "model/workload.h"

namespace rdmabench {
namespace {

// The min, median and max of `x` (not empty); the median of an even count is the mean of the
// middle two.
MinMedianMax spread(std::vector<double> x) {
  std::sort(x.begin(), x.end());
  const size_t n = x.size();
  const double median = n % 2 == 1 ? x[n / 2] : (x[n / 2 - 1] + x[n / 2]) / 2;
  return MinMedianMax{x.front(), median, x.back()};
}

// Each probe's figures at each size, or its link alone with an error when it failed.
std::vector<RoundProbeEntry> probe_entries(const std::vector<RoundProbe>& probes) {
  std::vector<RoundProbeEntry> out;
  for (const RoundProbe& p : probes) {
    RoundProbeEntry base;
    base.link = p.flow.client + " -> " + p.flow.server;
    base.server = p.flow.server;
    base.client = p.flow.client;
    if (!p.flow.brief) {
      base.error = "the probe failed";
      out.push_back(std::move(base));
      continue;
    }
    for (const SizeBrief& s : p.flow.brief->sizes) {
      RoundProbeEntry e = base;
      e.size = s.size;
      e.p50_ns = s.p50_ns;
      e.p99_ns = s.p99_ns;
      e.p99_9_ns = s.p999_ns;
      if (const auto idle = p.idle_p99_ns.find(s.size); idle != p.idle_p99_ns.end())
        e.idle_p99_ns = idle->second;
      if (e.idle_p99_ns && *e.idle_p99_ns > 0 && s.p99_ns) e.ratio = *s.p99_ns / *e.idle_p99_ns;
      e.error = s.error;
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

RoundRecord summarize_round(const std::string& label, uint32_t index, unsigned repetition,
                            const nlohmann::json& values, const std::vector<RoundFlowResult>& flows,
                            const std::string& time, const std::vector<RoundProbe>& probes) {
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
  RoundRecord record;
  record.round = label;
  record.round_index = index;
  record.repetition = repetition;
  record.matrix = values;
  record.flows = flows.size();
  record.ok = ok;
  record.failed = flows.size() - ok;
  record.time = time;
  for (const auto& [size, a] : sizes) {
    RoundSize& s = record.sizes.emplace_back();
    s.size = size;
    s.flows = a.gbps.size();
    for (double g : a.gbps) s.total_gbps += g;
    const nlohmann::json jain = jain_index(a.gbps);
    if (!jain.is_null()) s.jain = jain.get<double>();
    s.gbps = spread(a.gbps);
    if (!a.p50.empty()) s.p50_ns = spread(a.p50);
    if (const auto o = window_overlap(a.windows)) {
      s.overlap = o->fraction;
      s.common_window_s = o->common_s;
      s.clock_uncertainty_s = a.uncertainty;
      if (!record.overlap_min || o->fraction < *record.overlap_min)
        record.overlap_min = o->fraction;
    }
    for (const auto& [h, io] : a.hosts) s.hosts[h] = RoundSize::HostTraffic{io.first, io.second};
  }
  record.overlap_low = record.overlap_min && *record.overlap_min < kMinOverlap;
  if (!probes.empty()) record.probes = probe_entries(probes);
  return record;
}

nlohmann::ordered_json round_record(const std::string& label, uint32_t index, unsigned repetition,
                                    const nlohmann::json& values,
                                    const std::vector<RoundFlowResult>& flows,
                                    const std::string& time,
                                    const std::vector<RoundProbe>& probes) {
  return to_json(summarize_round(label, index, repetition, values, flows, time, probes));
}

std::string round_line(const RoundRecord& record, size_t rounds) {
  std::string line = "round " + std::to_string(record.round_index + 1) + "/" +
                     std::to_string(rounds) + " '" + record.round +
                     "': " + std::to_string(record.ok) + " ok, " + std::to_string(record.failed) +
                     " failed";
  for (const RoundSize& s : record.sizes) {
    line += "; " + format_size(s.size) + ": total " + three_digits(s.total_gbps) + " Gb/s, flows " +
            three_digits(s.gbps.min) + "/" + three_digits(s.gbps.median) + "/" +
            three_digits(s.gbps.max) + " (min/median/max)";
    if (s.jain) line += ", fairness " + three_digits(*s.jain);
    if (s.p50_ns) line += ", p50 " + three_digits(s.p50_ns->median / 1000) + " us (median)";
    if (s.overlap) line += ", overlap " + std::to_string(std::lround(*s.overlap * 100)) + " %";
  }
  if (record.probes) {
    std::vector<double> p99;
    double worst = 0;
    for (const RoundProbeEntry& e : *record.probes) {
      if (e.p99_ns) p99.push_back(*e.p99_ns);
      if (e.ratio) worst = std::max(worst, *e.ratio);
    }
    line +=
        "; probes " + std::to_string(p99.size()) + " of " + std::to_string(record.probes->size());
    if (!p99.empty()) line += ", p99 " + three_digits(spread(p99).median / 1000) + " us (median)";
    if (worst > 0) line += ", load/idle p99 up to " + three_digits(worst);
  }
  if (record.overlap_low)
    line += " - OVERLAP BELOW " + std::to_string(std::lround(kMinOverlap * 100)) +
            " %: the flows did not measure together";
  return line;
}

}  // namespace rdmabench
