#pragma once
// "Slow under load" (issue 34; issue 47 made it hold with few probes): each latency probe
// (fabric_probes.h) measured beside a round's load, its p99 against the same probe's p99 in the
// idle round (the same link, size and repetition; another repetition's when that one has none):
// the load/idle ratio. Within each group of probes that ran beside the same load combination, at
// the same size, a probe whose ratio is above max(slow_floor, median + slow_k x MAD) of the
// *other* probes' ratios is "slow under load" (slow_threshold). Leaving the judged probe out
// keeps one outlier from raising its own bar, and the median and MAD of the others are not moved
// by one other outlier either: with the four probes of a small ring, a clean probe at 4.8 beside
// a planted one at 8.0 raised median + 5 MAD of all four to 10.4 (the planted link passed),
// while the others' alone give 7.0. The floor keeps a fabric whose every probe barely moves (MAD
// near 0) from flagging its noise; the median and MAD keep the rule relative to what this
// pattern does to every link (an incast of degree 3 queues every target's probes).
//
// It is not "congested": congested is a load flow's own bandwidth, too low in its round and fine
// when retested alone (fabric_verdicts.h); slow under load is a probe's latency, read beside the
// load, with no retest: the idle round is its reference. A link can be either, both or neither.
// A slow probe does not set exit status 6 (fabric_campaign_run.cc): latency under load depends on
// the pattern as much as on the link; the verdict record and the report list it.
//
//   "verdicts": {..., "slow_k": 5, "slow_floor": 3}     (slow_floor null: no such verdict)
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "orchestrator/campaign/campaign.h"
#include "orchestrator/fabric/fabric_driver.h"
#include "orchestrator/fabric/fabric_verdicts.h"
#include "orchestrator/launch/result_brief.h"

namespace rdmabench {

// The bar of probe `i` among `ratios` (its group's load/idle ratios): max(floor, median + k x MAD
// of the ratios other than i); `floor` alone when there is no other.
double slow_threshold(const std::vector<double>& ratios, size_t i, double k, double floor);

struct ProbeVerdict {
  std::string link;      // "client -> server"
  std::string round;     // the load round's label ("probes idle" for a failed idle probe)
  std::string point_id;  // the probe's point
  uint64_t size = 0;
  std::optional<double> p99_ns;       // under load
  std::optional<double> p999_ns;      // under load
  std::optional<double> idle_p99_ns;  // the idle round's
  std::optional<double> ratio;        // p99 / idle p99
  double threshold = 0;               // its bar (slow_threshold)
  std::string verdict;                // "ok", "slow_under_load", "failed", "no_idle"
  std::string why;
};

// The probes of a fabric sweep, taken one at a time as they are measured or read back; finish()
// judges them all.
class ProbeJudge {
 public:
  // A probe point that measured (`brief` its document's brief) or failed (`error`).
  void add(const Point& p, const ResultBrief& brief);
  void add_failed(const Point& p, const std::string& error);

  // Every probe judged; only those not "ok" are returned, the ok ones counted in `ok`.
  std::vector<ProbeVerdict> finish(const Campaign& c, const Expansion& x,
                                   const VerdictCriteria& crit, size_t& ok) const;
  // The probe points taken so far (Point::index).
  std::set<uint32_t> points() const;

 private:
  struct Kept {
    uint32_t point = 0;  // Point::index (into Expansion::points)
    uint64_t size = 0;
    double p99_ns = 0;
    double p999_ns = -1;  // none
  };
  std::vector<Kept> kept_;
  std::vector<std::pair<uint32_t, std::string>> failed_;
};

// {"probed", "ok", "slow_under_load", "failed", "no_idle", "criteria", "not_ok": [...]}: the
// verdict record's "probes" member.
ProbeVerdicts summarize_probe_verdicts(const std::vector<ProbeVerdict>& v, size_t ok,
                                       const VerdictCriteria& c);
// to_json(summarize_probe_verdicts(...)).
nlohmann::ordered_json probe_verdict_json(const std::vector<ProbeVerdict>& v, size_t ok,
                                          const VerdictCriteria& c);
// One line per probe not ok: "slow under load: l2 -> l1 in 'incast 3->l1', 8 B: ...".
std::vector<std::string> probe_verdict_lines(const std::vector<ProbeVerdict>& v, size_t ok);

}  // namespace rdmabench
