#include "orchestrator/fabric/fabric_run.h"

#include <algorithm>
#include <limits>
#include <set>
#include <tuple>
#include <utility>

namespace rdmabench {

std::vector<const Point*> with_round_partners(const Expansion& x,
                                              const std::vector<const Point*>& todo) {
  using Key = std::tuple<unsigned, const PointWorkload*, uint32_t>;
  std::set<Key> rounds;
  for (const Point* p : todo)
    if (p->round) rounds.emplace(p->repetition, p->work.get(), *p->round);
  std::vector<const Point*> out;
  for (const Point& p : x.points)
    if (!p.skipped() && p.round && rounds.count({p.repetition, p.work.get(), *p.round}) != 0)
      out.push_back(&p);
  return out;
}

FabricRun plan_fabric_run(const Campaign& c, const std::vector<const Point*>& todo,
                          const std::map<std::string, unsigned>& host_cpus) {
  const FabricSpec& f = *c.fabric;
  FabricRun run;
  std::vector<Round> rounds = f.rounds;
  if (f.max_flows_per_host) {
    run.note = "max flows per host: " + std::to_string(*f.max_flows_per_host);
  } else {
    uint32_t cap = std::numeric_limits<uint32_t>::max();
    std::string where;
    for (const FabricHost& h : f.hosts) {
      auto it = host_cpus.find(h.spec.host);
      if (it == host_cpus.end()) continue;
      const uint32_t mine = it->second > 1 ? it->second - 1 : 1;
      if (mine < cap) {
        cap = mine;
        where = h.name + ": " + std::to_string(it->second) + " CPUs";
      }
    }
    if (where.empty()) {
      run.note = "max flows per host: auto, but no host told its CPUs: rounds not split";
    } else {
      run.note = "max flows per host: auto = " + std::to_string(cap) + " (the fewest CPUs, " +
                 where + ", minus one)";
      rounds = plan_rounds(f.hosts.size(), f.pattern, cap);
    }
  }
  run.rounds = rounds.size();
  run.pattern = fabric_pattern_name(f.pattern.kind);
  // A flow of the campaign's plan -> the round it runs in now (a split may have moved it).
  std::map<std::pair<std::string, std::string>, std::pair<uint32_t, Flow>> where;
  for (const Round& r : rounds)
    for (const Flow& flow : r.flows)
      where[{unsplit_label(r.label), link_name(f, flow)}] = {r.index, flow};

  std::map<std::string, size_t> group_of;  // repetition, combination and round -> group
  for (const Point* p : todo) {
    const std::string planned = unsplit_label(f.rounds.at(*p->round).label);
    const auto& [index, flow] = where.at({planned, c.pair_name(p->pair)});
    const std::string key =
        std::to_string(p->repetition) + "\n" + std::to_string(index) + "\n" + p->values().dump();
    auto [it, fresh] = group_of.emplace(key, run.groups.size());
    if (fresh) run.groups.emplace_back();
    run.groups[it->second].members.push_back(
        {p, f.hosts[flow.server].name, f.hosts[flow.client].name, index});
  }
  run.round_plan = std::move(rounds);
  return run;
}

nlohmann::json FabricRun::fields(const Member& m) const {
  const Round& r = round_plan.at(m.round);
  return {{"fabric",
           {{"pattern", pattern},
            {"round", r.label},
            {"round_index", r.index},
            {"flows_in_round", r.flows.size()},
            {"server", m.server_name},
            {"client", m.client_name}}}};
}

}  // namespace rdmabench
