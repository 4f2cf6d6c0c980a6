#include "orchestrator/fabric/fabric_driver.h"

#include <algorithm>
#include <numeric>

#include "model/workload_fields.h"
#include "orchestrator/fabric/fabric_point.h"
#include "orchestrator/fabric/fabric_probes.h"

namespace rdmabench {

HostPair FabricDriver::pair(size_t i) const {
  const Flow& l = links_.at(i);
  const FabricHost& server = spec_.hosts[l.server];
  return HostPair{link_name(spec_, l), server.spec, spec_.hosts[l.client].spec,
                  server.connect_address};
}

size_t FabricDriver::flow_count() const {
  size_t flows = 0;
  for (const Round& r : spec_.rounds) flows += r.flows.size();
  return flows;
}

// Its load flows and its probes (the idle round's probes, once per repetition, are counted once
// per combination too: an upper bound).
size_t FabricDriver::points_per_combination() const {
  size_t points = 0;
  std::string last;
  for (const Round& r : spec_.rounds) {
    points += r.flows.size();
    if (!spec_.probes || is_idle_probe_round(r.label)) continue;
    const std::string label = unsplit_label(r.label);
    points += probe_flows(*spec_.probes, r, label != last).size();
    last = label;
  }
  return points;
}

// By host, not by link: a fabric has up to a million links.
void FabricDriver::for_each_host(
    const std::function<void(const HostSpec&, const std::string& role)>& use) const {
  for (const FabricHost& h : spec_.hosts) use(h.spec, "fabric host '" + h.name + "'");
}

void FabricDriver::prepare() {
  const uint64_t n = spec_.hosts.size();
  std::vector<std::pair<uint64_t, uint64_t>> first;  // (server * n + client, flow position)
  for (const Round& r : spec_.rounds)
    for (const Flow& flow : r.flows)
      first.emplace_back(flow.server * n + flow.client, first.size());
  std::sort(first.begin(), first.end());
  first.erase(std::unique(first.begin(), first.end(),
                          [](const auto& a, const auto& b) { return a.first == b.first; }),
              first.end());
  std::sort(first.begin(), first.end(),
            [](const auto& a, const auto& b) { return a.second < b.second; });
  links_.clear();
  links_.reserve(first.size());
  for (const auto& [key, pos] : first)
    links_.push_back(Flow{static_cast<uint32_t>(key / n), static_cast<uint32_t>(key % n)});
  by_key_.resize(links_.size());
  std::iota(by_key_.begin(), by_key_.end(), 0U);
  std::sort(by_key_.begin(), by_key_.end(), [&](uint32_t a, uint32_t b) {
    return links_[a].server * n + links_[a].client < links_[b].server * n + links_[b].client;
  });
  round_labels_.clear();
  for (const Round& r : spec_.rounds) round_labels_.push_back(unsplit_label(r.label));
  if (spec_.probes) {
    auto work = std::make_shared<PointWorkload>();
    work->values = spec_.probes->values;  // checked when parsed
    work->workload_options = client_options(work->values);
    probe_ids_.emplace(work->values);
    probe_work_ = std::move(work);
  }
}

size_t FabricDriver::link_of(const Flow& f) const {
  const uint64_t n = spec_.hosts.size();
  const uint64_t key = f.server * n + f.client;
  const auto it = std::lower_bound(
      by_key_.begin(), by_key_.end(), key,
      [&](uint32_t i, uint64_t k) { return links_[i].server * n + links_[i].client < k; });
  return static_cast<size_t>(*it);
}

void FabricDriver::add_points(unsigned /*repetition*/, const Combinations& combinations,
                              const AddPoint& add) const {
  static const std::string kIdleRoundName = kIdleProbeRound;
  if (spec_.probes)
    for (const Round& r : spec_.rounds)
      if (is_idle_probe_round(r.label))
        for (const Flow& flow : r.flows)
          add(PointDraft{.pair = link_of(flow),
                         .round = r.index,
                         .tag = FabricPoint::idle_probe_tag(),
                         .work = &probe_work_,
                         .ids = &*probe_ids_,
                         .round_name = &kIdleRoundName});
  for (size_t k = 0; k < combinations.works.size(); ++k) {
    const std::shared_ptr<const PointWorkload>& work = combinations.works[k];
    std::string last;
    for (const Round& r : spec_.rounds) {
      if (spec_.probes && is_idle_probe_round(r.label)) continue;
      for (const Flow& flow : r.flows)
        add(PointDraft{.pair = link_of(flow),
                       .round = r.index,
                       .tag = FabricPoint::load_tag(),
                       .work = &work,
                       .ids = &combinations.ids[k],
                       .round_name = &round_labels_[r.index]});
      if (!spec_.probes) continue;
      const std::string probe_round = probe_round_name(round_labels_[r.index], work->values);
      for (const Flow& flow : probe_flows(*spec_.probes, r, round_labels_[r.index] != last))
        add(PointDraft{.pair = link_of(flow),
                       .round = r.index,
                       .tag = FabricPoint::probe_tag(k),
                       .work = &probe_work_,
                       .ids = &*probe_ids_,
                       .round_name = &probe_round});
      last = round_labels_[r.index];
    }
  }
}

DriverKind fabric_kind() {
  return DriverKind{"fabric", "hosts and a pattern",
                    [](const nlohmann::json& block, const std::string& path,
                       const DriverParseContext& ctx) -> std::shared_ptr<CampaignDriver> {
                      return std::make_shared<FabricDriver>(
                          parse_fabric(block, path, ctx.base_dir, ctx.self_exe, ctx.allocation));
                    },
                    false, ""};
}

const FabricDriver* fabric_of(const Campaign& c) {
  return dynamic_cast<const FabricDriver*>(c.driver.get());
}

}  // namespace rdmabench
