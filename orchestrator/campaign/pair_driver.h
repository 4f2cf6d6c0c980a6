#pragma once
// The host-pair campaign: a "hosts" list of named server/client pairs, every combination run on
// each pair (campaign_driver.h). The kind parse_campaign always knows.
#include <vector>

#include "orchestrator/campaign/campaign_driver.h"

namespace rdmabench {

class PairDriver : public CampaignDriver {
 public:
  explicit PairDriver(std::vector<HostPair> pairs) : pairs_(std::move(pairs)) {}

  size_t pair_count() const override { return pairs_.size(); }
  HostPair pair(size_t i) const override { return pairs_.at(i); }
  std::string pair_name(size_t i) const override { return pairs_.at(i).name; }
  size_t flow_count() const override { return pairs_.size(); }
  void for_each_host(
      const std::function<void(const HostSpec&, const std::string& role)>& use) const override;
  void add_points(unsigned repetition, const Combinations& combinations,
                  const AddPoint& add) const override;

  const std::vector<HostPair>& pairs() const noexcept { return pairs_; }

 private:
  std::vector<HostPair> pairs_;
};

// The "hosts" block.
DriverKind pair_kind();

}  // namespace rdmabench
