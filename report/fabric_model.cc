#include "report/fabric_model.h"

#include <cstdio>

#include "base/json_util.h"
#include "model/workload.h"
#include "model/workload_fields.h"

namespace rdmabench {
namespace {

std::string g(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

// A record's matrix values, described ("" when they are not an object).
std::string workload_text(const nlohmann::json& matrix) {
  if (!matrix.is_object()) return "";
  try {
    return describe_values(matrix);
  } catch (const std::exception&) {  // a value describe_values cannot read
    return matrix.dump();
  }
}

}  // namespace

std::vector<RoundRow> round_rows(const std::vector<RoundRecord>& records) {
  std::vector<RoundRow> rows;
  for (const RoundRecord& r : records) {
    const std::string workload = workload_text(r.matrix);
    for (const RoundSize& s : r.sizes) {
      RoundRow row;
      row.round = r.round;
      row.workload = workload;
      row.repetition = static_cast<long>(r.repetition);
      row.flows = static_cast<long>(r.flows);
      row.ok = static_cast<long>(r.ok);
      row.size = s.size;
      row.total_gbps = s.total_gbps;
      row.jain = s.jain;
      row.min_gbps = s.gbps.min;
      row.median_gbps = s.gbps.median;
      row.max_gbps = s.gbps.max;
      if (s.p50_ns) row.p50_us = s.p50_ns->median / 1000;
      row.overlap = s.overlap;
      row.overlap_low = r.overlap_low;  // the round's mark
      rows.push_back(std::move(row));
    }
  }
  return rows;
}

FabricVerdicts fabric_verdicts(const VerdictsRecord& record) {
  FabricVerdicts v;
  v.judged = static_cast<long>(record.judged);
  for (const auto& [k, n] : record.counts) v.counts[k] = static_cast<long>(n);
  const VerdictCriteria& c = record.criteria;
  v.criteria = "bandwidth below " + g(c.bw_fraction) + " of the best link's, p50 above " +
               g(c.lat_factor) + "x the best link's";
  if (c.port_fraction)
    v.criteria += ", bandwidth below " + g(*c.port_fraction) + " of the port speed";
  if (c.loss_floor_ppm)
    v.criteria += ", loss events per million packets above " + g(*c.loss_floor_ppm) +
                  " and the links' median + " + g(c.loss_k) + " MAD";
  for (const LinkNotOk& e : record.not_ok) {
    VerdictRow row;
    row.link = e.link;
    row.workload = workload_text(e.matrix);
    row.metric = e.metric;
    row.verdict = e.verdict;
    row.why = e.why;
    row.point = e.point_id;
    row.size = e.size;
    row.value = e.value;
    row.best = e.best;
    row.alone = e.alone;
    row.loss_ppm = e.loss_ppm;
    for (const std::string& r : e.rules) row.rules += (row.rules.empty() ? "" : ", ") + r;
    v.not_ok.push_back(std::move(row));
  }
  if (record.probes) {
    const ProbeVerdicts& p = *record.probes;
    v.probed = static_cast<long>(p.probed);
    v.probes_ok = static_cast<long>(p.ok);
    if (p.slow_floor)
      v.probe_criteria = "load/idle p99 above " + g(*p.slow_floor) + " and the probes' median + " +
                         g(p.slow_k) + " MAD";
    for (const ProbeNotOk& e : p.not_ok) {
      ProbeRow row;
      row.link = e.link;
      row.round = e.round;
      row.verdict = e.verdict;
      row.why = e.why;
      row.size = e.size.value_or(0);
      if (e.p99_ns) row.p99_us = *e.p99_ns / 1000;
      if (e.idle_p99_ns) row.idle_p99_us = *e.idle_p99_ns / 1000;
      row.ratio = e.ratio;
      row.threshold = e.threshold;
      v.probes.push_back(std::move(row));
    }
  }
  return v;
}

}  // namespace rdmabench
