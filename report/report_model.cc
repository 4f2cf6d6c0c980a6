#include "report/report_model.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>

#include "base/json_util.h"
#include "report/data_table.h"
#include "report/link_rate.h"
#include "report/workload_id.h"

namespace rdmabench {
namespace {

// A value of a cliffs record (a size along "sizes", a string or a number) as text.
std::string cliff_value_text(const std::string& along, const nlohmann::json& v) {
  if (along == "sizes" && v.is_number_unsigned()) return format_size(v.get<uint64_t>());
  if (v.is_string()) return v.get<std::string>();
  return v.is_null() ? "" : v.dump();
}

// The cliffs of a cliffs record (model/cliffs_record.h), a row each.
void add_cliffs(const CliffsRecord& record, std::vector<CliffRow>& out) {
  for (const CliffsRecordEntry& c : record.cliffs) {
    CliffRow row;
    row.along = record.along;
    row.metric = record.metric;
    row.point = c.point_id;
    if (c.line.is_object())
      for (const auto& [k, v] : c.line.items())
        row.line += (row.line.empty() ? "" : ", ") + k + "=" + cliff_value_text(k, v);
    row.value = cliff_value_text(record.along, c.value);
    row.shape = c.shape;
    row.measured = c.metric;
    row.drop = c.drop;
    row.previous = c.previous.metric;
    row.previous_value = cliff_value_text(record.along, c.previous.value);
    out.push_back(std::move(row));
  }
}

std::string hex_id(const nlohmann::json& j, const char* key) {
  if (!j.is_object() || !j.contains(key) || !j[key].is_number_unsigned()) return json_text(j, key);
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(j[key].get<uint64_t>()));
  return buf;
}

std::string vendor_of(const nlohmann::json& dev) {
  std::string v = hex_id(dev, "vendor_id"), p = hex_id(dev, "vendor_part_id");
  return v.empty() && p.empty() ? "" : v + ":" + p;
}

std::string strip_tool_name(std::string v) {
  if (v.rfind("rdmabench ", 0) == 0) v = v.substr(10);
  return v;
}

template <typename T>
void add_unique(std::vector<T>& v, const T& x) {
  if (std::find(v.begin(), v.end(), x) == v.end()) v.push_back(x);
}

std::string point_name(const ResultFile& f) {
  if (f.point.is_object() && f.point.contains("point_id") && f.point["point_id"].is_string())
    return f.point["point_id"].get<std::string>();
  return f.path;
}

std::string host_pair_of(const ResultFile& f) { return json_text(f.point, "host_pair"); }

HostRow host_row(const std::string& role, const HostInfo& h, const nlohmann::json& dev) {
  HostRow r;
  r.role = role;
  r.hostname = h.hostname;
  r.kernel = h.kernel;
  r.rdma_core = h.rdma_core;
  r.device = json_text(dev, "name");
  r.transport = json_text(dev, "transport");
  r.link_layer = json_text(dev, "link_layer");
  r.fw_ver = json_text(dev, "fw_ver");
  r.hw_ver = json_text(dev, "hw_ver");
  r.vendor = vendor_of(dev);
  std::string speed = json_text(dev, "speed_gbps"), width = json_text(dev, "width");
  if (!speed.empty()) r.link = speed + " Gb/s" + (width.empty() ? "" : " (" + width + ")");
  r.mtu = json_text(dev, "active_mtu");
  r.gid_type = json_text(dev, "gid_type");
  return r;
}

HostEnv host_env(const HostEnvRecord& r) {
  HostEnv e;
  e.host = r.host;
  e.captured_at = r.captured_at;
  e.rdmabench = r.rdmabench;
  e.rdmabench_version = r.rdmabench_version.value_or("");
  e.kernel = r.kernel.value_or("");
  e.rdma_core = r.rdma_core.value_or("");
  e.error = r.devices_error.value_or("");
  if (r.devices.is_array()) {
    for (const auto& d : r.devices) {
      if (!d.is_object()) continue;
      HostEnv::DeviceRow row{json_text(d, "name"),   json_text(d, "transport"),
                             json_text(d, "fw_ver"), json_text(d, "node_guid"),
                             vendor_of(d),           ""};
      if (d.contains("ports") && d["ports"].is_array()) {
        for (const auto& p : d["ports"]) {
          if (!p.is_object()) continue;
          std::string t = "port " + json_text(p, "port") + ": " + json_text(p, "state") + ", " +
                          json_text(p, "link_layer") + ", MTU " + json_text(p, "active_mtu") +
                          ", " + json_text(p, "speed_gbps") + " Gb/s " + json_text(p, "width");
          if (!row.ports.empty()) row.ports += "; ";
          row.ports += t;
        }
      }
      e.devices.push_back(std::move(row));
    }
  }
  return e;
}

std::string raw_workload_label(const nlohmann::json& doc) {
  if (!doc.is_object() || !doc.contains("workload")) return "";
  const auto& w = doc["workload"];
  std::string s = json_text(w, "op") + " " + json_text(w, "qp") + " " + json_text(w, "mode");
  if (w.is_object() && w.contains("sizes") && w["sizes"].is_array()) {
    std::string sizes;
    for (const auto& x : w["sizes"])
      if (x.is_number_unsigned()) {
        if (!sizes.empty()) sizes += ',';  // appended, not "," + string (GCC 12's -Wrestrict)
        sizes += format_size(x.get<uint64_t>());
      }
    if (!sizes.empty()) s += ", sizes " + sizes;
  }
  return s;
}

bool needs_attention(const std::string& name) {
  for (const char* w : {"err", "retry", "seq", "dup", "drop", "discard"})
    if (name.find(w) != std::string::npos) return true;
  return false;
}

std::vector<WorkloadTable::Counter> counter_rows(const std::vector<const ResultFile*>& runs) {
  std::map<std::pair<std::string, std::string>, std::vector<double>> values;
  for (const auto* f : runs)
    for (const auto& [side, list] : f->run.counters.items())
      if (list.is_object())
        for (const auto& [name, v] : list.items())
          if (v.is_number()) values[{side, name}].push_back(v.get<double>());
  std::vector<WorkloadTable::Counter> out;
  for (auto& [key, v] : values) {
    if (std::all_of(v.begin(), v.end(), [](double x) { return x == 0; })) continue;
    const double med = spread_of(v).median;
    out.push_back({key.first, key.second, med, needs_attention(key.second)});
  }
  return out;
}

// The interval row of a size from the intervals of its successful runs; nullopt without any.
std::optional<IntervalRow> interval_row(uint64_t size, const std::vector<const SizeResult*>& iv) {
  if (iv.empty()) return std::nullopt;
  IntervalRow row;
  row.size = size;
  row.runs = iv.size();
  std::set<double> asked;
  std::vector<double> total, kept, peak, lowest;
  for (const SizeResult* i : iv) {
    if (i->interval_s > 0) asked.insert(i->interval_s);
    total.push_back(static_cast<double>(i->intervals_total));
    kept.push_back(static_cast<double>(i->intervals.size()));
    if (i->bw_peak_gbps) peak.push_back(*i->bw_peak_gbps);
    if (i->bw_min_gbps) lowest.push_back(*i->bw_min_gbps);
  }
  for (double a : asked) row.interval_s += (row.interval_s.empty() ? "" : ", ") + format_number(a);
  row.total = spread_of(total);
  row.kept = spread_of(kept);
  if (!peak.empty()) row.peak_gbps = spread_of(peak);
  if (!lowest.empty()) row.min_gbps = spread_of(lowest);
  return row;
}

// The summary's times and campaign names, noted as the inputs are read (the times for the
// first and last of them).
struct SummaryNotes {
  ReportSummary& sum;
  std::vector<std::string> times;

  void time(const std::string& t) {
    if (!t.empty()) times.push_back(t);
  }
  void campaign(const nlohmann::json& point) {
    std::string c = json_text(point, "campaign");
    if (!c.empty()) add_unique(sum.campaigns, c);
  }
};

// Several fabric folders: their verdicts together.
void merge_verdicts(std::optional<FabricVerdicts>& into, FabricVerdicts v) {
  if (!into) {
    into = std::move(v);
    return;
  }
  into->judged += v.judged;
  for (const auto& [k, n] : v.counts) into->counts[k] += n;
  for (VerdictRow& r : v.not_ok) into->not_ok.push_back(std::move(r));
}

// The points of a campaign's index: counted, the skipped and failed ones listed (a failed
// point's document, when kept, gives its workload, time, campaign and version).
void add_campaign_points(const CampaignFolder& c, ReportModel& m, SummaryNotes& notes) {
  ReportSummary& sum = m.summary;
  for (const auto& p : c.points) {
    notes.time(p.time);
    if (p.status == "ok") {
      ++sum.points_ok;
    } else if (p.status == "skipped") {
      ++sum.points_skipped;
      m.skipped.push_back({p.point_id, p.error});
    } else {
      ++sum.points_failed;
      FailedPoint fp{p.point_id, p.host_pair, p.time, "",
                     p.error.empty() ? "status " + p.status : p.error};
      auto it = c.failed_docs.find(p.point_id);
      if (it != c.failed_docs.end()) {
        fp.workload = raw_workload_label(it->second);
        notes.time(json_text(it->second, "start_time"));
        if (it->second.contains("point")) notes.campaign(it->second["point"]);
        if (it->second.contains("tool"))
          if (std::string v = json_text(it->second["tool"], "version"); !v.empty())
            add_unique(sum.versions, v);
      }
      m.failed.push_back(std::move(fp));
    }
  }
}

// What a campaign folder adds: host environments, cliffs, fabric rounds and verdicts, points.
void add_campaign(const CampaignFolder& c, ReportModel& m, SummaryNotes& notes) {
  for (const auto& env : c.host_envs) {
    m.host_envs.push_back(host_env(env));
    std::string v = strip_tool_name(m.host_envs.back().rdmabench_version);
    if (!v.empty()) add_unique(m.summary.versions, v);
  }
  if (c.cliffs) {
    m.searched_cliffs = true;
    add_cliffs(*c.cliffs, m.cliffs);
  }
  for (RoundRow& r : round_rows(c.rounds)) m.rounds.push_back(std::move(r));
  if (c.verdicts) merge_verdicts(m.verdicts, fabric_verdicts(*c.verdicts));
  if (c.hunt) m.hunts.push_back(*c.hunt);
  add_campaign_points(c, m, notes);
}

// Hosts as the runs saw them, the failed runs, and the summary's times and versions.
void add_runs(const std::vector<const ResultFile*>& runs, ReportModel& m, SummaryNotes& notes) {
  std::set<HostRow> seen_hosts;
  for (const auto* f : runs) {
    notes.time(f->run.start_time);
    notes.campaign(f->point);
    if (!f->run.tool_version.empty()) add_unique(m.summary.versions, f->run.tool_version);
    for (const HostRow& r : {host_row("client", f->run.client_host, f->run.client_device),
                             host_row("server", f->run.server_host, f->run.server_device)})
      if (seen_hosts.insert(r).second) m.hosts.push_back(r);
    if (!f->run.error.empty())
      m.failed.push_back({point_name(*f), host_pair_of(*f), f->run.start_time,
                          workload_label(workload_id(*f), {}), f->run.error});
  }
}

// A size's results in the runs of one workload, with the run each came from.
using SizeRuns = std::vector<std::pair<const ResultFile*, const SizeResult*>>;

// The row of a size (and its interval row) in table `t`: the spreads over the runs in which it
// succeeded; those in which it failed are listed in the row and in `failed`.
void add_size_row(uint64_t size, const SizeRuns& list, WorkloadTable& t,
                  std::vector<FailedPoint>& failed) {
  SizeRow row;
  row.size = size;
  std::vector<double> gbps, mmsg, p50, p99, p999, cpu, link;
  std::vector<const SizeResult*> intervals;
  for (const auto& [f, s] : list) {
    if (!s->error.empty()) {
      row.errors.push_back(point_name(*f) + ": " + s->error);
      failed.push_back({point_name(*f) + " (size " + format_size(size) + ")", host_pair_of(*f),
                        f->run.start_time, t.label, s->error});
      continue;
    }
    ++row.runs;
    if (s->interval_s > 0) intervals.push_back(s);
    gbps.push_back(s->gbps + (s->reverse ? s->reverse->gbps : 0));
    if (const double cap = link_capacity_gbps(f->run, s->reverse.has_value()); cap > 0)
      link.push_back(100 * gbps.back() / cap);
    mmsg.push_back(s->mmsg_per_s + (s->reverse ? s->reverse->mmsg_per_s : 0));
    cpu.push_back(s->cpu.utilization * 100);
    if (s->latency) {
      if (t.latency_kind.empty()) t.latency_kind = s->latency->kind;
      p50.push_back(s->latency->summary.p50 / 1000);
      p99.push_back(s->latency->summary.p99 / 1000);
      p999.push_back(s->latency->summary.p999 / 1000);
      const uint64_t n = s->latency->summary.count;
      row.fewest_samples = row.fewest_samples == 0 ? n : std::min(row.fewest_samples, n);
    }
  }
  if (!link.empty()) row.link_pct = spread_of(link);
  if (!gbps.empty()) {
    row.gbps = spread_of(gbps);
    row.mmsg = spread_of(mmsg);
    row.cpu_pct = spread_of(cpu);
  }
  if (!p50.empty()) {
    row.p50_us = spread_of(p50);
    row.p99_us = spread_of(p99);
    row.p999_us = spread_of(p999);
  }
  if (auto iv = interval_row(size, intervals)) t.intervals.push_back(std::move(*iv));
  t.rows.push_back(std::move(row));
}

// The table of one workload identity over its runs (`extra`: the fields its label shows).
WorkloadTable workload_table(const WorkloadId& id, const std::vector<std::string>& extra,
                             const std::vector<const ResultFile*>& runs,
                             std::vector<FailedPoint>& failed) {
  WorkloadTable t;
  t.label = workload_label(id, extra);
  t.settings = workload_settings(id);
  std::map<uint64_t, SizeRuns> sizes;
  for (const auto* f : runs) {
    t.points.push_back(point_name(*f));
    for (const auto& s : f->run.results) sizes[s.size].push_back({f, &s});
  }
  t.counters = counter_rows(runs);
  for (const auto& [size, list] : sizes) add_size_row(size, list, t, failed);
  return t;
}

// One table per workload identity, repetitions pooled, in the order of first appearance.
void add_workload_tables(const std::vector<const ResultFile*>& runs, ReportModel& m) {
  std::vector<std::string> order;
  std::map<std::string, WorkloadId> ids;
  std::map<std::string, std::vector<const ResultFile*>> by_key;
  for (const auto* f : runs) {
    WorkloadId id = workload_id(*f);
    if (!ids.count(id.key)) {
      order.push_back(id.key);
      ids[id.key] = id;
    }
    by_key[id.key].push_back(f);
  }
  std::vector<const WorkloadId*> all_ids;
  for (const auto& [k, id] : ids) all_ids.push_back(&id);
  const std::vector<std::string> extra = differing_fields(all_ids);
  for (const auto& key : order)
    m.workloads.push_back(workload_table(ids.at(key), extra, by_key.at(key), m.failed));
}

}  // namespace

ReportModel build_report_model(const std::vector<ReportInput>& inputs) {
  ReportModel m;
  ReportSummary& sum = m.summary;
  SummaryNotes notes{sum, {}};

  std::vector<const ResultFile*> runs;
  for (const auto& in : inputs) {
    sum.inputs.push_back(in.path);
    for (const auto& f : in.runs) runs.push_back(&f);
    sum.documents += in.runs.size();
    const bool indexed = in.campaign && in.campaign->has_index;
    if (!indexed) {
      for (const auto& f : in.runs) (f.run.error.empty() ? sum.points_ok : sum.points_failed)++;
    }
    if (in.campaign) add_campaign(*in.campaign, m, notes);
  }

  add_runs(runs, m, notes);
  if (!notes.times.empty()) {
    sum.first_time = *std::min_element(notes.times.begin(), notes.times.end());
    sum.last_time = *std::max_element(notes.times.begin(), notes.times.end());
  }
  add_workload_tables(runs, m);
  return m;
}

}  // namespace rdmabench
