#include "orchestrator/fabric/probe_verdicts.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "base/number_text.h"
#include "model/workload.h"
#include "orchestrator/fabric/fabric_driver.h"
#include "orchestrator/fabric/fabric_point.h"

namespace rdmabench {
namespace {

std::string us(double ns) { return three_digits(ns / 1000) + " us"; }

}  // namespace

double slow_threshold(const std::vector<double>& ratios, size_t i, double k, double floor) {
  std::vector<double> others;
  others.reserve(ratios.size());
  for (size_t j = 0; j < ratios.size(); ++j)
    if (j != i) others.push_back(ratios[j]);
  return outlier_threshold(std::move(others), k, floor);
}

void ProbeJudge::add(const Point& p, const ResultBrief& brief) {
  bool any = false;
  for (const SizeBrief& s : brief.sizes) {
    if (!s.error.empty() || !s.p99_ns) continue;
    kept_.push_back({static_cast<uint32_t>(p.index), s.size, *s.p99_ns, s.p999_ns.value_or(-1)});
    any = true;
  }
  if (!any) add_failed(p, brief.error.empty() ? "no p99 in its result" : brief.error);
}

std::set<uint32_t> ProbeJudge::points() const {
  std::set<uint32_t> out;
  for (const Kept& k : kept_) out.insert(k.point);
  for (const auto& f : failed_) out.insert(f.first);
  return out;
}

void ProbeJudge::add_failed(const Point& p, const std::string& error) {
  failed_.emplace_back(static_cast<uint32_t>(p.index), error.substr(0, error.find('\n')));
}

std::vector<ProbeVerdict> ProbeJudge::finish(const Campaign& c, const Expansion& x,
                                             const VerdictCriteria& crit, size_t& ok) const {
  const auto round_of = [&](const Point& p) {
    return p.round ? unsplit_label(fabric_spec(c)->rounds.at(*p.round).label) : std::string();
  };
  // The idle p99s: (link, size) -> (repetition -> p99).
  std::map<std::pair<size_t, uint64_t>, std::map<unsigned, double>> idle;
  for (const Kept& k : kept_) {
    const Point& p = x.points.at(k.point);
    if (FabricPoint(p).idle_probe()) idle[{p.pair, k.size}][p.repetition] = k.p99_ns;
  }
  std::vector<ProbeVerdict> all;
  std::map<std::pair<size_t, uint64_t>, std::vector<size_t>> groups;  // (beside, size)
  for (const Kept& k : kept_) {
    const Point& p = x.points.at(k.point);
    if (FabricPoint(p).idle_probe()) continue;
    ProbeVerdict v;
    v.link = c.pair_name(p.pair);
    v.round = round_of(p);
    v.point_id = p.id;
    v.size = k.size;
    v.p99_ns = k.p99_ns;
    if (k.p999_ns >= 0) v.p999_ns = k.p999_ns;
    const auto it = idle.find({p.pair, k.size});
    if (it != idle.end()) {
      const auto same = it->second.find(p.repetition);
      v.idle_p99_ns = same != it->second.end() ? same->second : it->second.begin()->second;
    }
    if (v.idle_p99_ns && *v.idle_p99_ns > 0) {
      v.ratio = k.p99_ns / *v.idle_p99_ns;
      groups[{*FabricPoint(p).beside(), k.size}].push_back(all.size());
      v.verdict = "ok";
    } else {
      v.verdict = "no_idle";
      v.why = "no idle p99 for this link and size (its idle probe failed or did not run)";
    }
    all.push_back(std::move(v));
  }
  for (const auto& [key, members] : groups) {
    std::vector<double> ratios;
    for (size_t i : members) ratios.push_back(*all[i].ratio);
    for (size_t m = 0; m < members.size(); ++m) {
      ProbeVerdict& v = all[members[m]];
      const double t =
          crit.slow_floor ? slow_threshold(ratios, m, crit.slow_k, *crit.slow_floor) : 0;
      v.threshold = t;
      if (!crit.slow_floor || *v.ratio <= t) continue;
      v.verdict = "slow_under_load";
      v.why = "p99 " + us(*v.p99_ns) + " beside the load, " + us(*v.idle_p99_ns) + " idle: ratio " +
              three_digits(*v.ratio) + " over " + three_digits(t) + " (the larger of slow_floor " +
              three_digits(*crit.slow_floor) + " and the other probes' median + " +
              three_digits(crit.slow_k) + " MAD)";
    }
  }
  for (const auto& [index, error] : failed_) {
    const Point& p = x.points.at(index);
    ProbeVerdict v;
    v.link = c.pair_name(p.pair);
    v.round = round_of(p);
    v.point_id = p.id;
    v.verdict = "failed";
    v.why = error;
    all.push_back(std::move(v));
  }
  std::vector<ProbeVerdict> not_ok;
  ok = 0;
  for (ProbeVerdict& v : all) {
    if (v.verdict == "ok") {
      ++ok;
    } else {
      not_ok.push_back(std::move(v));
    }
  }
  return not_ok;
}

ProbeVerdicts summarize_probe_verdicts(const std::vector<ProbeVerdict>& v, size_t ok,
                                       const VerdictCriteria& c) {
  ProbeVerdicts out;
  out.probed = ok + v.size();
  out.ok = ok;
  out.slow_k = c.slow_k;
  out.slow_floor = c.slow_floor;
  for (const ProbeVerdict& p : v) {
    if (p.verdict == "slow_under_load") ++out.slow_under_load;
    if (p.verdict == "failed") ++out.failed;
    if (p.verdict == "no_idle") ++out.no_idle;
    ProbeNotOk e;
    e.link = p.link;
    e.round = p.round;
    e.point_id = p.point_id;
    e.verdict = p.verdict;
    e.rule = p.verdict == "slow_under_load" ? "slow_under_load" : "";
    e.why = p.why;
    if (p.verdict != "failed") {
      e.size = p.size;
      e.p99_ns = p.p99_ns;
      e.p99_9_ns = p.p999_ns;
      e.idle_p99_ns = p.idle_p99_ns;
      e.ratio = p.ratio;
      e.threshold = p.threshold;
    }
    out.not_ok.push_back(std::move(e));
  }
  return out;
}

nlohmann::ordered_json probe_verdict_json(const std::vector<ProbeVerdict>& v, size_t ok,
                                          const VerdictCriteria& c) {
  return to_json(summarize_probe_verdicts(v, ok, c));
}

std::vector<std::string> probe_verdict_lines(const std::vector<ProbeVerdict>& v, size_t ok) {
  std::vector<std::string> lines;
  if (v.empty() && ok == 0) return lines;
  size_t slow = 0;
  for (const ProbeVerdict& p : v) slow += p.verdict == "slow_under_load" ? 1 : 0;
  lines.push_back("probes: " + std::to_string(ok + v.size()) + " beside the load, " +
                  std::to_string(ok) + " ok, " + std::to_string(slow) + " slow under load, " +
                  std::to_string(v.size() - slow) + " failed or without an idle figure");
  for (const ProbeVerdict& p : v) {
    const std::string what = p.verdict == "slow_under_load" ? "slow under load"
                             : p.verdict == "failed"        ? "probe failed"
                                                            : "probe without an idle figure";
    std::string line = what + ": " + p.link + " in '" + p.round + "'";
    if (p.verdict != "failed") line += ", " + format_size(p.size);
    line += ": " + p.why;
    if (p.verdict == "slow_under_load") line += " (rule slow_under_load)";
    lines.push_back(std::move(line));
  }
  return lines;
}

}  // namespace rdmabench
