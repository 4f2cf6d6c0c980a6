#pragma once
// The fabric campaign's driver (campaign_driver.h): a "fabric" block of hosts and a pattern
// (fabric_campaign.h) planned into rounds of flows, with optional latency probes
// (fabric_probes.h). Its host pairs are its links: one per ordered host pair its rounds measure,
// in the order they first appear, two host indices each (a 1,000-host pairwise fabric's million
// links stay small). Each repetition starts with the idle round's probes; each load round's
// probes follow its load flows. Its side of a sweep (fabric_campaign_run.cc): its rounds, one
// batch each, each round's record as it ends; then every link judged (fabric_verdicts.h), each
// suspect measured again alone (DIR/retest/<point id>-alone.json), and the verdicts appended to
// index.jsonl as a {"record": "verdicts"} line and printed.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "orchestrator/campaign/campaign.h"
#include "orchestrator/campaign/campaign_driver.h"
#include "orchestrator/fabric/fabric_campaign.h"

namespace rdmabench {

class FabricDriver : public CampaignDriver {
 public:
  explicit FabricDriver(FabricSpec spec) : spec_(std::move(spec)) {}

  size_t pair_count() const override { return links_.size(); }
  HostPair pair(size_t i) const override;
  std::string pair_name(size_t i) const override { return link_name(spec_, links_.at(i)); }
  size_t flow_count() const override;
  size_t points_per_combination() const override;
  void for_each_host(
      const std::function<void(const HostSpec&, const std::string& role)>& use) const override;
  void prepare() override;
  void add_points(unsigned repetition, const Combinations& combinations,
                  const AddPoint& add) const override;
  // A round runs whole: the finished partners of a flow still to run run again (fabric_run.h).
  std::vector<const Point*> to_run(const Expansion& x,
                                   std::vector<const Point*> left) const override;
  // Rounds across hosts, through agents (fabric_describe.cc).
  bool measures_together() const override { return true; }
  std::optional<AgentUse> agents() const override;
  std::vector<std::string> left_out(const std::string& host,
                                    const std::string& path) const override;
  std::string pairs_noun() const override { return "link(s) in rounds"; }
  void describe(std::ostream& out, const Expansion& x) const override;
  std::string place(const Point& p) const override;
  // Its rounds, one batch each, then the verdicts (fabric_campaign_run.cc).
  std::shared_ptr<CampaignRun> start_run(const RunSetup& setup) const override;

  const FabricSpec& spec() const noexcept { return spec_; }
  const std::vector<Flow>& links() const noexcept { return links_; }
  // The link index of a flow of its rounds.
  size_t link_of(const Flow& f) const;

 private:
  FabricSpec spec_;
  std::vector<Flow> links_;
  std::vector<uint32_t> by_key_;           // the links by (server, client): 4 bytes a link
  std::vector<std::string> round_labels_;  // before any cap split, by round
  std::shared_ptr<const PointWorkload> probe_work_;  // with probes
  std::optional<PointIds> probe_ids_;
};

// The "fabric" block.
DriverKind fabric_kind();

// A fabric campaign's driver, spec and links; null for a campaign of another kind.
const FabricDriver* fabric_of(const Campaign& c);
inline const FabricSpec* fabric_spec(const Campaign& c) {
  const FabricDriver* d = fabric_of(c);
  return d != nullptr ? &d->spec() : nullptr;
}

}  // namespace rdmabench
