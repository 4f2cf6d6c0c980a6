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

FabricVerdicts fabric_verdicts(const nlohmann::json& record) {
  FabricVerdicts v;
  v.judged = json_integer_or(record, "judged");
  if (record.contains("counts") && record["counts"].is_object())
    for (const auto& [k, n] : record["counts"].items())
      if (n.is_number_integer()) v.counts[k] = n.get<long>();
  if (record.contains("criteria") && record["criteria"].is_object()) {
    const nlohmann::json& c = record["criteria"];
    if (auto f = json_number(c, "bw_fraction"))
      v.criteria += "bandwidth below " + g(*f) + " of the best link's";
    if (auto f = json_number(c, "lat_factor"))
      v.criteria +=
          std::string(v.criteria.empty() ? "" : ", ") + "p50 above " + g(*f) + "x the best link's";
    if (auto f = json_number(c, "port_fraction"))
      v.criteria += std::string(v.criteria.empty() ? "" : ", ") + "bandwidth below " + g(*f) +
                    " of the port speed";
    if (auto f = json_number(c, "loss_floor_ppm"))
      v.criteria += std::string(v.criteria.empty() ? "" : ", ") +
                    "loss events per million packets above " + g(*f) + " and the links' median + " +
                    g(json_number(c, "loss_k").value_or(5)) + " MAD";
  }
  if (record.contains("not_ok") && record["not_ok"].is_array())
    for (const auto& e : record["not_ok"]) {
      if (!e.is_object()) continue;
      VerdictRow row;
      row.link = json_string_or(e, "link");
      row.workload = workload_text(e.value("matrix", nlohmann::json()));
      row.metric = json_string_or(e, "metric");
      row.verdict = json_string_or(e, "verdict");
      row.why = json_string_or(e, "why");
      row.point = json_string_or(e, "point_id");
      row.size =
          e.contains("size") && e["size"].is_number_unsigned() ? e["size"].get<uint64_t>() : 0;
      row.value = json_number(e, "value");
      row.best = json_number(e, "best");
      row.alone = json_number(e, "alone");
      row.loss_ppm = json_number(e, "loss_ppm");
      if (e.contains("rules") && e["rules"].is_array())
        for (const auto& r : e["rules"])
          if (r.is_string()) row.rules += (row.rules.empty() ? "" : ", ") + r.get<std::string>();
      v.not_ok.push_back(std::move(row));
    }
  if (record.contains("probes") && record["probes"].is_object()) {
    const nlohmann::json& p = record["probes"];
    v.probed = json_integer_or(p, "probed");
    v.probes_ok = json_integer_or(p, "ok");
    if (p.contains("criteria") && p["criteria"].is_object())
      if (auto f = json_number(p["criteria"], "slow_floor"))
        v.probe_criteria = "load/idle p99 above " + g(*f) + " and the probes' median + " +
                           g(json_number(p["criteria"], "slow_k").value_or(5)) + " MAD";
    if (p.contains("not_ok") && p["not_ok"].is_array())
      for (const auto& e : p["not_ok"]) {
        if (!e.is_object()) continue;
        ProbeRow row;
        row.link = json_string_or(e, "link");
        row.round = json_string_or(e, "round");
        row.verdict = json_string_or(e, "verdict");
        row.why = json_string_or(e, "why");
        row.size =
            e.contains("size") && e["size"].is_number_unsigned() ? e["size"].get<uint64_t>() : 0;
        if (auto x = json_number(e, "p99_ns")) row.p99_us = *x / 1000;
        if (auto x = json_number(e, "idle_p99_ns")) row.idle_p99_us = *x / 1000;
        row.ratio = json_number(e, "ratio");
        row.threshold = json_number(e, "threshold");
        v.probes.push_back(std::move(row));
      }
  }
  return v;
}

}  // namespace rdmabench
