#pragma once
// What a fabric point is, the fabric driver's own per-point value (Point::tag, opaque to the
// runner and the other drivers): a load flow, a latency probe beside one load combination's
// flows (fabric_probes.h), or a probe in the idle round. Only this header knows how the role
// is held in the tag.
#include <cstddef>
#include <cstdint>
#include <optional>

#include "orchestrator/campaign/campaign.h"

namespace rdmabench {

class FabricPoint {
 public:
  static uint32_t load_tag() { return kLoad; }
  static uint32_t idle_probe_tag() { return kIdleProbe; }
  // A probe beside the load of combination `k` (Expansion::combinations).
  static uint32_t probe_tag(size_t k) { return static_cast<uint32_t>(k) + 1; }

  explicit FabricPoint(const Point& p) : tag_(p.tag) {}
  bool probe() const { return tag_ != kLoad; }
  bool idle_probe() const { return tag_ == kIdleProbe; }
  // The load combination a probe measures beside; none for a load flow or an idle probe.
  std::optional<size_t> beside() const {
    if (tag_ == kLoad || tag_ == kIdleProbe) return std::nullopt;
    return static_cast<size_t>(tag_ - 1);
  }

 private:
  static constexpr uint32_t kLoad = 0, kIdleProbe = 0xffffffffU;
  uint32_t tag_;
};

// The workload a point's round runs: its own, or for a probe beside a load, the load's (a round
// runs one load combination and its probes).
inline const PointWorkload* round_work(const Expansion& x, const Point& p) {
  const std::optional<size_t> k = FabricPoint(p).beside();
  return k ? x.combinations.at(*k).get() : p.work.get();
}

}  // namespace rdmabench
