#include "report/comparison.h"

#include <map>
#include <set>

#include "base/error.h"
#include "report/workload_id.h"

namespace rdmabench {
namespace {

const MetricInfo kMetrics[] = {
    {Metric::kGbps, "gbps", "Gb/s", true, false},
    {Metric::kMmsg, "mmsg", "Mmsg/s", true, false},
    {Metric::kP50, "p50", "p50 us", false, true},
    {Metric::kP99, "p99", "p99 us", false, true},
    {Metric::kP999, "p99.9", "p99.9 us", false, true},
};

// One side: per workload key, per size, per metric, the values of the repetitions; and
// whether the size was measured (ok in at least one document) at all.
struct SideSizes {
  std::map<uint64_t, std::map<Metric, std::vector<double>>> values;
  std::set<uint64_t> ok;           // sizes measured in at least one document
  std::set<uint64_t> failed_only;  // sizes present but failed in every document
};
struct Side {
  std::vector<std::string> order;  // keys in first-seen order
  std::map<std::string, WorkloadId> ids;
  std::map<std::string, SideSizes> sizes;
};

Side collect(const std::vector<ResultFile>& runs, const std::vector<Metric>& metrics) {
  Side side;
  std::map<std::string, std::set<uint64_t>> seen, ok;
  for (const auto& f : runs) {
    WorkloadId id = workload_id(f);
    if (!side.ids.count(id.key)) {
      side.order.push_back(id.key);
      side.ids[id.key] = id;
    }
    auto& sizes = side.sizes[id.key];
    for (const auto& s : f.run.results) {
      seen[id.key].insert(s.size);
      if (!s.error.empty()) continue;
      ok[id.key].insert(s.size);
      sizes.ok.insert(s.size);
      for (Metric m : metrics)
        if (auto v = metric_value(f, s, m)) sizes.values[s.size][m].push_back(*v);
    }
  }
  for (const auto& [key, all] : seen)
    for (auto size : all)
      if (!ok[key].count(size)) side.sizes[key].failed_only.insert(size);
  return side;
}

}  // namespace

const MetricInfo& metric_info(Metric m) {
  for (const auto& i : kMetrics)
    if (i.metric == m) return i;
  return kMetrics[0];
}

std::vector<Metric> default_metrics() {
  return {Metric::kGbps, Metric::kMmsg, Metric::kP50, Metric::kP99};
}

std::vector<Metric> parse_metrics(const std::vector<std::string>& names) {
  std::vector<Metric> out;
  auto add = [&](const std::string& name) {
    for (const auto& i : kMetrics) {
      if (i.name == name) {
        for (Metric m : out)
          if (m == i.metric) return;
        out.push_back(i.metric);
        return;
      }
    }
    throw ConfigError("--metric", name,
                      "gbps, mmsg, p50, p99 or p99.9 (comma-separated or repeated)");
  };
  for (const auto& n : names) {
    size_t pos = 0;
    while (pos <= n.size()) {
      size_t end = n.find(',', pos);
      if (end == std::string::npos) end = n.size();
      add(n.substr(pos, end - pos));
      pos = end + 1;
    }
  }
  return out.empty() ? default_metrics() : out;
}

std::optional<double> metric_value(const ResultFile& f, const SizeResult& s, Metric m) {
  if (!s.error.empty()) return std::nullopt;
  const bool lat = f.run.workload.mode == Mode::kLat;
  const MetricInfo& info = metric_info(m);
  if (info.latency != lat) return std::nullopt;
  switch (m) {
    case Metric::kGbps:
      return s.gbps + (s.reverse ? s.reverse->gbps : 0);
    case Metric::kMmsg:
      return s.mmsg_per_s + (s.reverse ? s.reverse->mmsg_per_s : 0);
    case Metric::kP50:
      return s.latency ? std::optional(s.latency->summary.p50 / 1000) : std::nullopt;
    case Metric::kP99:
      return s.latency ? std::optional(s.latency->summary.p99 / 1000) : std::nullopt;
    case Metric::kP999:
      return s.latency ? std::optional(s.latency->summary.p999 / 1000) : std::nullopt;
  }
  return std::nullopt;
}

Comparison compare_results(const std::vector<ResultFile>& a, const std::vector<ResultFile>& b,
                           const std::vector<Metric>& metrics, const ChangeRule& rule) {
  const Side sa = collect(a, metrics), sb = collect(b, metrics);
  std::vector<const WorkloadId*> all;
  for (const auto& [k, id] : sa.ids) all.push_back(&id);
  for (const auto& [k, id] : sb.ids) all.push_back(&id);
  const std::vector<std::string> extra = differing_fields(all);
  auto label = [&](const WorkloadId& id) { return workload_label(id, extra); };

  Comparison c;
  auto sizes_of = [](const SideSizes& s) {
    std::set<uint64_t> out(s.failed_only);
    out.insert(s.ok.begin(), s.ok.end());
    return out;
  };
  for (const auto& key : sa.order) {
    const WorkloadId& id = sa.ids.at(key);
    const SideSizes& xa = sa.sizes.at(key);
    auto itb = sb.sizes.find(key);
    for (uint64_t size : sizes_of(xa)) {
      const bool a_failed = xa.failed_only.count(size) > 0;
      const bool in_b = itb != sb.sizes.end() && sizes_of(itb->second).count(size) > 0;
      if (!in_b) {
        c.unmatched.push_back({label(id), id.fields, size, "only in A"});
        continue;
      }
      const bool b_failed = itb->second.failed_only.count(size) > 0;
      if (a_failed || b_failed) {
        c.unmatched.push_back(
            {label(id), id.fields, size, a_failed ? "failed in A" : "failed in B"});
        continue;
      }
      ++c.matched_points;
      static const std::map<Metric, std::vector<double>> kNone;
      auto fa = xa.values.find(size), fb = itb->second.values.find(size);
      const auto& va = fa == xa.values.end() ? kNone : fa->second;
      const auto& vb = fb == itb->second.values.end() ? kNone : fb->second;
      for (Metric m : metrics) {
        auto ia = va.find(m), ib = vb.find(m);
        if (ia == va.end() || ib == vb.end()) continue;
        MatchedMetric row{label(id), id.fields, size, m, ia->second, ib->second, {}};
        row.change = judge_change(row.a, row.b, metric_info(m).higher_is_better, rule);
        if (row.change.verdict == Verdict::kRegression) ++c.regressions;
        if (row.change.verdict == Verdict::kImprovement) ++c.improvements;
        c.rows.push_back(std::move(row));
      }
    }
  }
  for (const auto& key : sb.order) {
    const WorkloadId& id = sb.ids.at(key);
    auto ita = sa.sizes.find(key);
    for (uint64_t size : sizes_of(sb.sizes.at(key)))
      if (ita == sa.sizes.end() || sizes_of(ita->second).count(size) == 0)
        c.unmatched.push_back({label(id), id.fields, size, "only in B"});
  }
  return c;
}

}  // namespace rdmabench
