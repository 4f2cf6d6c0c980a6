#include "report/round_figures.h"

#include <algorithm>
#include <map>
#include <optional>
#include <ostream>
#include <regex>
#include <set>
#include <string>
#include <utility>

#include "model/round_record.h"
#include "model/workload.h"
#include "model/workload_fields.h"
#include "report/data_table.h"
#include "report/link_matrix.h"
#include "report/series_figure.h"

namespace rdmabench {
namespace {

// The round's entry of its largest size that has per-host rates (bandwidth mode); null if none.
const RoundSize* largest_with_hosts(const RoundRecord& record) {
  const RoundSize* best = nullptr;
  for (const RoundSize& s : record.sizes) {
    if (s.hosts.empty()) continue;
    if (best == nullptr || s.size > best->size) best = &s;
  }
  return best;
}

// op, QP type and mode of a round's matrix values: the figures' short workload name.
std::string workload_name(const nlohmann::json& values) {
  std::string w;
  for (const char* k : {"op", "qp", "mode"})
    if (values.is_object() && values.contains(k) && values[k].is_string())
      w += (w.empty() ? "" : " ") + values[k].get<std::string>();
  return w;
}

Figure host_traffic_figure(const std::string& name, const RoundRecord& record,
                           const RoundSize& size_entry, const std::string& format) {
  const uint64_t size = size_entry.size;
  std::vector<std::string> hosts;
  for (const auto& [h, v] : size_entry.hosts) hosts.push_back(h);
  std::sort(hosts.begin(), hosts.end(), natural_less);
  std::string rows;
  for (const auto& h : hosts) {
    const RoundSize::HostTraffic& v = size_entry.hosts.at(h);
    rows += "\"" + gnuplot_string(h) + "\" " + format_number(v.in_gbps) + " " +
            format_number(v.out_gbps) + "\n";
  }
  const nlohmann::json& values = record.matrix;
  const std::string workload = workload_name(values);
  const long repetition = static_cast<long>(record.repetition);
  const std::string title =
      "Host traffic: " + record.round + " at " + size_label(size) +
      (workload.empty() ? "" : " — " + workload) +
      (repetition > 1 ? " (repetition " + std::to_string(repetition) + ")" : "");
  return template_figure(name, "host_traffic",
                         "# rdmabench plot data of " + name + ".gp: " + title + "\n# workload: " +
                             describe_values(values) + "\n# host in_gbps out_gbps\n" + rows,
                         format, false, {{"TITLE", gnuplot_string(title)}});
}

// One workload combination's incast rounds: target -> (degree, Jain) points.
struct Fairness {
  nlohmann::json values;
  uint64_t size = 0;
  std::map<std::string, std::vector<std::pair<long, double>>> by_target;
};

Figure fairness_figure(const std::string& name, const Fairness& c, const std::string& format) {
  std::vector<std::string> targets;
  for (const auto& [t, pts] : c.by_target) targets.push_back(t);
  std::sort(targets.begin(), targets.end(), natural_less);
  std::string blocks, series;
  long max_degree = 1;
  for (size_t i = 0; i < targets.size(); ++i) {
    auto pts = c.by_target.at(targets[i]);
    std::sort(pts.begin(), pts.end());
    blocks += (i == 0 ? "" : "\n\n") + std::string("# target ") + targets[i] + "\n";
    for (const auto& [degree, jain] : pts) {
      blocks += std::to_string(degree) + " " + format_number(jain) + "\n";
      max_degree = std::max(max_degree, degree);
    }
    series += (i == 0 ? "" : ", ") + ("\"target " + gnuplot_string(targets[i]) + "\"");
  }
  const std::string workload = workload_name(c.values);
  const std::string title =
      "Incast fairness at " + size_label(c.size) + (workload.empty() ? "" : " — " + workload);
  return template_figure(
      name, "incast_fairness",
      "# rdmabench plot data of " + name + ".gp: " + title +
          "\n# workload: " + describe_values(c.values) +
          "\n# one block per target: degree jain (Jain's index of the round's flows)\n" + blocks,
      format, false,
      {{"TITLE", gnuplot_string(title)},
       {"NSERIES", std::to_string(targets.size())},
       {"SERIES", series},
       {"XMAX", std::to_string(max_degree + 1)}});
}

// One probe workload's incast rounds beside one load combination: target -> (degree, worst
// probe p99 in us), with degree 0 for the idle p99 of the target's probes.
struct ProbeIncast {
  nlohmann::json values;  // the load's
  std::map<std::string, std::map<long, double>> by_target;
};

// The worst p99 (ns) and idle p99 of a round's probes; nullopt when none has a figure.
std::optional<std::pair<double, std::optional<double>>> worst_probe(const RoundRecord& r) {
  if (!r.probes) return std::nullopt;
  std::optional<std::pair<double, std::optional<double>>> worst;
  for (const RoundProbeEntry& p : *r.probes) {
    if (!p.p99_ns || (worst && worst->first >= *p.p99_ns)) continue;
    worst = std::make_pair(*p.p99_ns, p.idle_p99_ns);
  }
  return worst;
}

Figure probe_incast_figure(const std::string& name, const ProbeIncast& c,
                           const std::string& format) {
  std::string blocks, series;
  long max_degree = 1;
  size_t i = 0;
  for (const auto& [target, pts] : c.by_target) {
    blocks += (i == 0 ? "" : "\n\n") + std::string("# target ") + target + "\n";
    for (const auto& [degree, p99_us] : pts) {
      blocks += std::to_string(degree) + " " + format_number(p99_us) + "\n";
      max_degree = std::max(max_degree, degree);
    }
    series += (i++ == 0 ? "" : ", ") + ("\"target " + gnuplot_string(target) + "\"");
  }
  const std::string workload = workload_name(c.values);
  const std::string title =
      "Latency probes under incast" + (workload.empty() ? "" : " — load " + workload);
  return template_figure(name, "incast_probe_p99",
                         "# rdmabench plot data of " + name + ".gp: " + title +
                             "\n# load workload: " + describe_values(c.values) +
                             "\n# one block per target: degree p99_us (the worst probe into it; "
                             "degree 0: its idle p99)\n" +
                             blocks,
                         format, false,
                         {{"TITLE", gnuplot_string(title)},
                          {"NSERIES", std::to_string(c.by_target.size())},
                          {"SERIES", series},
                          {"XMAX", std::to_string(max_degree) + ".5"}});
}

// One load combination's probed rounds: (the round's total Gb/s, each probe's p99 in us), and the
// idle round's probes' p99 (at 0 Gb/s).
struct ProbeLoad {
  nlohmann::json values;  // the load's
  std::vector<std::pair<double, double>> loaded;
  std::vector<double> idle;
};

Figure probe_load_figure(const std::string& name, const ProbeLoad& c, const std::string& format) {
  std::string loaded = "# beside the load: total_gbps p99_us\n";
  for (const auto& [gbps, p99] : c.loaded)
    loaded += format_number(gbps) + " " + format_number(p99) + "\n";
  std::string idle = "# idle: 0 p99_us\n";
  for (double p99 : c.idle) idle += "0 " + format_number(p99) + "\n";
  if (c.idle.empty()) idle += "NaN NaN\n";
  const std::string workload = workload_name(c.values);
  const std::string title =
      "Latency probes against the load" + (workload.empty() ? "" : " — load " + workload);
  return template_figure(name, "probe_p99_load",
                         "# rdmabench plot data of " + name + ".gp: " + title +
                             "\n# load workload: " + describe_values(c.values) + "\n" + loaded +
                             "\n\n" + idle,
                         format, false, {{"TITLE", gnuplot_string(title)}});
}

// A round record's probes into `loads` (by the load's matrix) or, for the idle round, `idle`.
void collect_probe_load(const RoundRecord& r, std::map<std::string, ProbeLoad>& loads,
                        std::vector<std::string>& order, std::vector<double>& idle) {
  if (!r.probes) return;
  const bool idle_round = is_idle_probe_round(r.round);
  double total = 0;
  if (!idle_round)
    for (const RoundSize& s : r.sizes) total = std::max(total, s.total_gbps);
  ProbeLoad* c = nullptr;
  if (!idle_round) {
    const nlohmann::json& values = r.matrix;
    auto [it, fresh] = loads.try_emplace(values.dump());
    if (fresh) {
      order.push_back(it->first);
      it->second.values = values;
    }
    c = &it->second;
  }
  for (const RoundProbeEntry& p : *r.probes)
    if (p.p99_ns) {
      if (c == nullptr) {
        idle.push_back(*p.p99_ns / 1000);
      } else {
        c->loaded.emplace_back(total, *p.p99_ns / 1000);
      }
    }
}

std::string numbered(const std::string& base, size_t i) {
  return i == 0 ? base : base + "_" + std::to_string(i + 1);
}

}  // namespace

std::vector<Figure> round_figures(const std::vector<RoundRecord>& records,
                                  const std::string& format, std::ostream& notes) {
  static const std::regex kIncast(R"(^incast (\d+)->(\S+)$)");
  std::vector<Figure> traffic;
  size_t traffic_rounds = 0;
  std::map<std::string, Fairness> fairness;  // matrix text -> its incast rounds
  std::vector<std::string> order;
  std::map<std::string, ProbeIncast> probes;  // the load's matrix text -> its probed incasts
  std::vector<std::string> probe_order;
  std::map<std::string, ProbeLoad> loads;  // the load's matrix text -> its probed rounds
  std::vector<std::string> load_order;
  std::vector<double> idle_p99;  // the idle round's probes (one probe workload per campaign)
  for (const RoundRecord& r : records) {
    const std::string& label = r.round;
    std::smatch m;
    collect_probe_load(r, loads, load_order, idle_p99);
    if (std::regex_match(label, m, kIncast))
      if (const auto worst = worst_probe(r)) {
        const nlohmann::json& values = r.matrix;
        auto [it, fresh] = probes.try_emplace(values.dump());
        if (fresh) {
          probe_order.push_back(it->first);
          it->second.values = values;
        }
        auto& pts = it->second.by_target[m[2].str()];
        pts[std::stol(m[1].str())] = worst->first / 1000;
        if (worst->second) pts[0] = std::max(pts[0], *worst->second / 1000);
      }
    if (label.find(" part ") != std::string::npos) continue;  // split by the per-host cap
    const RoundSize* s = largest_with_hosts(r);
    if (s == nullptr) continue;
    const bool incast = std::regex_match(label, m, kIncast);
    if (incast || label.rfind("all-to-all", 0) == 0) {
      if (++traffic_rounds <= kMaxHostTrafficFigures)
        traffic.push_back(
            host_traffic_figure(numbered("host_traffic", traffic.size()), r, *s, format));
    }
    if (incast && s->jain) {
      const nlohmann::json& values = r.matrix;
      auto [it, fresh] = fairness.try_emplace(values.dump());
      if (fresh) {
        order.push_back(it->first);
        it->second.values = values;
      }
      it->second.size = std::max(it->second.size, s->size);
      it->second.by_target[m[2].str()].emplace_back(std::stol(m[1].str()), *s->jain);
    }
  }
  if (traffic_rounds > kMaxHostTrafficFigures)
    notes << "rdmabench: note: host traffic drawn for the first " << kMaxHostTrafficFigures
          << " of " << traffic_rounds << " incast and all-to-all rounds\n";
  std::vector<Figure> out = std::move(traffic);
  for (size_t i = 0; i < order.size(); ++i)
    out.push_back(fairness_figure(numbered("incast_fairness", i), fairness.at(order[i]), format));
  for (size_t i = 0; i < probe_order.size(); ++i)
    out.push_back(
        probe_incast_figure(numbered("incast_probe_p99", i), probes.at(probe_order[i]), format));
  for (size_t i = 0; i < load_order.size(); ++i) {
    ProbeLoad& c = loads.at(load_order[i]);
    c.idle = idle_p99;
    out.push_back(probe_load_figure(numbered("probe_p99_load", i), c, format));
  }
  return out;
}

}  // namespace rdmabench
