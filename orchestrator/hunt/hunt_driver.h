#pragma once
// The hunt as a kind of campaign (campaign_driver.h): a "hunt" block (hunt_spec.h) beside a
// "hosts" block of one host pair, no matrix or search. expand() makes none of its points: its run
// (hunt_run.h) asks the Hunter (hunter.h) for each evaluation as the hunt goes, runs it as a
// point of its own and hands the outcome back. The runner (orchestrator/sweep/) knows it only
// through the driver interface: an adaptive budget, its first and last lines, its dry run.
#include <memory>
#include <string>

#include "orchestrator/campaign/campaign_driver.h"
#include "orchestrator/hunt/hunt_spec.h"

namespace rdmabench {

class HuntDriver : public CampaignDriver {
 public:
  HuntDriver(HostPair pair, HuntSpec spec) : pair_(std::move(pair)), spec_(std::move(spec)) {}

  const HuntSpec& spec() const noexcept { return spec_; }

  size_t pair_count() const override { return 1; }
  HostPair pair(size_t /*i*/) const override { return pair_; }
  std::string pair_name(size_t /*i*/) const override { return pair_.name; }
  size_t flow_count() const override { return 1; }
  void for_each_host(
      const std::function<void(const HostSpec&, const std::string& role)>& use) const override;
  void add_points(unsigned /*repetition*/, const Combinations& /*combinations*/,
                  const AddPoint& /*add*/) const override {}

  std::optional<uint64_t> adaptive_budget() const override { return spec_.budget; }
  std::string adaptive_start() const override;
  std::string adaptive_findings(size_t n) const override;
  void describe_adaptive(std::ostream& out, const std::set<std::string>& done,
                         const std::string& out_dir) const override;
  std::shared_ptr<CampaignRun> start_run(const RunSetup& setup) const override;

 private:
  HostPair pair_;
  HuntSpec spec_;
};

// The "hunt" block (errors under "/hunt"; "/hosts" when there is not exactly one host pair).
DriverKind hunt_kind();

}  // namespace rdmabench
