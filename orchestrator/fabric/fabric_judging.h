#pragma once
// The end of a fabric sweep: every flow of the campaign judged (fabric_verdicts.h), the figures
// of the flows this sweep ran kept as the rounds go rather than read back from their documents,
// the index read a line at a time. At a million flows (a 1,000-host pairwise fabric) this is
// bench/agent_scale.cc's "verdicts" phase.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "orchestrator/campaign/campaign.h"
#include "orchestrator/fabric/fabric_driver.h"
#include "orchestrator/fabric/fabric_verdicts.h"
#include "orchestrator/fabric/probe_verdicts.h"
#include "orchestrator/launch/result_brief.h"

namespace rdmabench {

// What the verdicts need of each flow this sweep ran and recorded ok: each size's figures and the
// port speed and loss figure, by point (Point::index), 40 bytes a size (a million flows: 38 MiB).
class MeasuredFlows {
 public:
  // `counters_shared`: another link of its round used a port of its ends (the brief's loss
  // figure is not this link's alone).
  void keep(const Point& p, const ResultBrief& b, bool counters_shared);
  // The brief of a point kept here (figures only); nullopt when it was not.
  std::optional<ResultBrief> brief(const Point& p);

 private:
  // No optionals (each would add 8 bytes): a figure that is absent is NaN, a speed or loss -1.
  struct Kept {
    uint64_t size = 0;
    double gbps = 0, p50_ns = 0;  // NaN: none
    uint32_t point = 0;           // Point::index
    float port_gbps = -1;         // none
    float loss_ppm = -1;          // none
    bool counters_shared = false;
  };
  std::vector<Kept> kept_;
  bool sorted_ = false;
};

// Every flow of `x` judged: its figures from `measured`, or from its document when an earlier
// sweep ran it (its last line in DIR/index.jsonl ok), else why it has none. The links judged ok
// are counted in `ok_links`, not listed; suspects are not yet retested.
std::vector<LinkVerdict> judge_fabric(const Campaign& c, const Expansion& x, const std::string& dir,
                                      MeasuredFlows& measured, size_t& ok_links);

// The probes that earlier sweeps of DIR measured and this one did not (--resume): from their last
// line in DIR/index.jsonl and their documents, into `judge`.
void add_earlier_probes(const Expansion& x, const std::string& dir, ProbeJudge& judge);

}  // namespace rdmabench
