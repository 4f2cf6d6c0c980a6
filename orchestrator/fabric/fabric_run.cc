#include "orchestrator/fabric/fabric_run.h"

#include <algorithm>
#include <limits>
#include <optional>
#include <set>
#include <tuple>
#include <utility>

#include "base/error.h"
#include "orchestrator/fabric/fabric_driver.h"
#include "orchestrator/fabric/fabric_point.h"

namespace rdmabench {

std::vector<const Point*> with_round_partners(const Expansion& x,
                                              const std::vector<const Point*>& todo) {
  using Key = std::tuple<unsigned, const PointWorkload*, uint32_t>;
  std::set<Key> rounds;
  for (const Point* p : todo)
    if (p->round) rounds.emplace(p->repetition, round_work(x, *p), *p->round);
  std::vector<const Point*> out;
  for (const Point& p : x.points)
    if (!p.skipped() && p.round && rounds.count({p.repetition, round_work(x, p), *p.round}) != 0)
      out.push_back(&p);
  return out;
}

namespace {

// The cap to plan again with ("auto": the fewest CPUs of any host, minus one), nullopt when the
// campaign's own plan stands (an explicit cap, or no host told its CPUs); `note` says which.
std::optional<uint32_t> cap_of(const FabricSpec& f,
                               const std::map<std::string, unsigned>& host_cpus,
                               std::string& note) {
  if (f.max_flows_per_host) {
    note = "max flows per host: " + std::to_string(*f.max_flows_per_host);
    return std::nullopt;
  }
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
    note = "max flows per host: auto, but no host told its CPUs: rounds not split";
    return std::nullopt;
  }
  note = "max flows per host: auto = " + std::to_string(cap) + " (the fewest CPUs, " + where +
         ", minus one)";
  return cap;
}

}  // namespace

FabricRun plan_fabric_run(const Campaign& c, const Expansion& x,
                          const std::vector<const Point*>& todo,
                          const std::map<std::string, unsigned>& host_cpus) {
  const FabricSpec& f = *fabric_spec(c);
  FabricRun run;
  std::vector<Round> rounds = f.rounds;
  const std::optional<uint32_t> cap = cap_of(f, host_cpus, run.note);
  const bool replanned = cap.has_value();
  if (cap) rounds = plan_fabric(f, *cap);
  run.rounds = rounds.size();
  run.pattern = fabric_pattern_name(f.pattern.kind);
  for (const FabricHost& h : f.hosts) run.host_names.push_back(h.name);
  // A flow of the campaign's plan -> the round it runs in now (a split may have moved it): by
  // (planned round, server, client), sorted, 16 bytes a flow (a 1,000-host pairwise plan has a
  // million). Rounds not planned again (an explicit cap, or no host told its CPUs) are the
  // campaign's own.
  std::map<std::string, uint32_t> planned_index;
  for (const Round& r : f.rounds) planned_index.emplace(r.label, r.index);
  struct Moved {
    uint32_t planned, server, client, index;
    auto key() const { return std::tie(planned, server, client); }
  };
  std::vector<Moved> moved;
  moved.reserve(c.flow_count());
  std::map<uint32_t, uint32_t> first_part;  // planned round -> its first part as run
  for (const Round& r : rounds) {
    // (The idle probe round's parts are the same in both plans: their labels are their own.)
    uint32_t planned = r.index;
    if (replanned) {
      auto it = planned_index.find(r.label);
      if (it == planned_index.end()) it = planned_index.find(unsplit_label(r.label));
      if (it == planned_index.end()) throw Error("internal: round " + r.label + " is not planned");
      planned = it->second;
    }
    first_part.emplace(planned, r.index);
    for (const Flow& flow : r.flows) moved.push_back({planned, flow.server, flow.client, r.index});
  }
  std::sort(moved.begin(), moved.end(),
            [](const Moved& a, const Moved& b) { return a.key() < b.key(); });

  // Repetition, round and the round's workload (the load combination its probes join) -> group.
  std::map<std::tuple<unsigned, uint32_t, const PointWorkload*>, size_t> group_of;
  for (const Point* p : todo) {
    const Flow& flow = fabric_of(c)->links().at(p->pair);
    const Moved want{*p->round, flow.server, flow.client, 0};
    const auto at =
        std::lower_bound(moved.begin(), moved.end(), want,
                         [](const Moved& a, const Moved& b) { return a.key() < b.key(); });
    uint32_t index = 0;
    if (at != moved.end() && at->key() == want.key()) {
      index = at->index;
    } else if (FabricPoint(*p).probe() && first_part.count(*p->round) != 0) {
      index = first_part.at(*p->round);  // a named pair's probe: the round's first part
    } else {
      throw Error("internal: point " + p->id + " is in no round of the plan");
    }
    auto [it, fresh] = group_of.emplace(std::make_tuple(p->repetition, index, round_work(x, *p)),
                                        run.groups.size());
    if (fresh) run.groups.emplace_back();
    run.groups[it->second].members.push_back({p, flow.server, flow.client, index});
  }
  for (FabricRun::Group& g : run.groups) g.members.shrink_to_fit();
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
            {"server", host_names.at(m.server)},
            {"client", host_names.at(m.client)}}}};
}

}  // namespace rdmabench
