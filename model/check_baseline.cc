#include "model/check_baseline.h"

#include <map>
#include <set>
#include <tuple>

#include "base/error.h"
#include "base/statistics.h"
#include "model/workload_fields.h"

namespace rdmabench {
namespace {

// The workload fields a check's run does not take from the baseline and that do not move a
// figure's expectation: what is measured (op, QP type, mode, sizes), for how long, checks, and
// how the connection is set up (a document records the exchange it resolved "auto" to).
const std::set<std::string> kFree = {
    "op",       "qp",     "mode",      "sizes",      "iterations",     "duration_s", "warmup",
    "warmup_s", "verify", "timeout_s", "interval_s", "run_infinitely", "gid_type",   "connect"};

void check_repeatable(const BaselineRun& b) {
  const Workload& w = b.run->workload;
  const nlohmann::json mine = w;
  // The default workload of its op, QP type and mode, as a campaign or the check makes it.
  const nlohmann::json plain = workload_from_values(
      {{"op", to_string(w.op)}, {"qp", to_string(w.qp)}, {"mode", to_string(w.mode)}});
  for (const auto& [key, value] : mine.items()) {
    if (kFree.count(key) != 0) continue;
    if (!plain.contains(key) || plain[key] != value)
      throw ConfigError("baseline", b.path + ": /workload/" + key + " = " + value.dump(),
                        "result documents of the default workload but for op, qp, mode and sizes "
                        "(the check runs that; this field moves the figures: " +
                            (plain.contains(key) ? "default " + plain[key].dump() : "no default") +
                            ")");
  }
}

// The expectation that only names what is measured (its bound is set by baseline_bound): the
// figure as the check reads it (judge_traffic).
CheckExpectation naming(Op op, QpType qp, Mode mode, uint64_t size) {
  const std::string head = std::string(to_string(op)) + " " + std::string(to_string(qp)) + " " +
                           (mode == Mode::kLat ? "lat " : "bw ") + std::to_string(size);
  return parse_check_expectation(mode == Mode::kLat ? head + " p50 <= 1000 ms"
                                                    : head + " >= 0 Gb/s");
}

}  // namespace

std::vector<CheckExpectation> baseline_from_results(const std::vector<BaselineRun>& runs,
                                                    double tolerance) {
  // (op, qp, mode, size) -> the figures of every document that measured it.
  std::map<std::tuple<Op, QpType, Mode, uint64_t>, std::vector<double>> figures;
  for (const BaselineRun& b : runs) {
    check_repeatable(b);
    const Workload& w = b.run->workload;
    for (const SizeResult& r : b.run->results) {
      if (!r.error.empty()) continue;
      if (const auto f = judge_traffic(naming(w.op, w.qp, w.mode, r.size), r, 0).figure)
        figures[{w.op, w.qp, w.mode, r.size}].push_back(*f);
    }
  }
  if (figures.empty())
    throw ConfigError("baseline", runs.empty() ? "(no result document)" : runs.front().path,
                      "result documents with at least one measured size");
  std::vector<CheckExpectation> out;
  for (const auto& [key, v] : figures) {
    const auto& [op, qp, mode, size] = key;
    out.push_back(baseline_bound(naming(op, qp, mode, size), median(v), tolerance));
  }
  return out;
}

}  // namespace rdmabench
