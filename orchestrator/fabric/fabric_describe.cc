// The fabric driver's side of `sweep --dry-run` and of the sweep's host checks
// (campaign_driver.h): its hosts, pattern, rounds and probes; where a point runs; its agents; a
// host left out.
#include <ostream>
#include <set>

#include "orchestrator/fabric/fabric_driver.h"
#include "orchestrator/fabric/fabric_probes.h"

namespace rdmabench {
namespace {

void print_fabric(std::ostream& out, const FabricSpec& f) {
  size_t flows = 0;
  for (const Round& r : f.rounds) flows += r.flows.size();
  out << "fabric: " << f.hosts.size() << " hosts";
  if (!f.hostfile.empty()) out << " (from " << f.hostfile << ")";
  if (!f.allocation.empty()) out << " (the nodes of Slurm allocation " << f.allocation << ")";
  out << ", pattern " << fabric_pattern_name(f.pattern.kind);
  if (f.pattern.kind == FabricPatternKind::kPairwise)
    out << (f.pattern.together ? " (both directions together: each round holds both flows of its "
                                 "pairs, two per host)"
            : f.pattern.both_directions
                ? " (both directions: a second set of rounds, roles swapped)"
                : " (one direction)");
  out << ", " << f.rounds.size() << " round(s), " << flows << " flow(s); max flows per host: ";
  if (f.max_flows_per_host)
    out << *f.max_flows_per_host << "\n";
  else
    out << "auto (the fewest online CPUs of any host, minus one, for every host; applied when "
           "the sweep runs: the rounds below are before that split)\n";
  for (const FabricHost& h : f.hosts) {
    out << "  host " << h.name << ": " << h.spec.host;
    if (!h.spec.device.empty()) out << ", device " << h.spec.device;
    if (!h.connect_address.empty()) out << ", peers connect to " << h.connect_address;
    out << "\n";
  }
  if (f.probes) {
    out << "probes: " << f.probes->values.dump() << ", "
        << (f.probes->on_load_links
                ? "on every load flow's link"
                : std::to_string(f.probes->pairs.size()) + " named link(s), in every round")
        << "; measured idle first (round '" << kIdleProbeRound
        << "'), then beside each round's load\n";
  }
  out << "rounds (flows run at the same time within a round; data goes client -> server):\n";
  std::string last;
  for (const Round& r : f.rounds) {
    out << "  " << (r.index + 1) << "/" << f.rounds.size() << " " << r.label << ":";
    for (size_t i = 0; i < r.flows.size(); ++i)
      out << (i == 0 ? " " : ", ") << link_name(f, r.flows[i]);
    if (f.probes && !is_idle_probe_round(r.label)) {
      const std::vector<Flow> probes = probe_flows(*f.probes, r, unsplit_label(r.label) != last);
      for (size_t i = 0; i < probes.size(); ++i)
        out << (i == 0 ? "; probes " : ", ") << link_name(f, probes[i]);
    }
    last = unsplit_label(r.label);
    out << "\n";
  }
}

}  // namespace

void FabricDriver::describe(std::ostream& out, const Expansion& x) const {
  print_fabric(out, spec_);
  if (!spec_.probes) return;
  std::set<std::string> notes;
  for (const auto& work : x.combinations)
    if (const std::string n = probe_placement_note(*spec_.probes, work->values);
        !n.empty() && notes.insert(n).second)
      out << n << "\n";
}

std::string FabricDriver::place(const Point& p) const {
  return pair_name(p.pair) + ", round " + std::to_string(*p.round + 1) + " " +
         spec_.rounds[*p.round].label;
}

std::optional<AgentUse> FabricDriver::agents() const {
  AgentUse use;
  for (const FabricHost& fh : spec_.hosts) use.hosts.try_emplace(fh.spec.host, fh.spec.rdmabench);
  use.listen = spec_.agent_listen;
  return use;
}

std::vector<std::string> FabricDriver::left_out(const std::string& host,
                                                const std::string& path) const {
  std::vector<std::string> lines;
  for (const FabricHost& fh : spec_.hosts)
    if (fh.spec.host == host && fh.spec.rdmabench == path)
      lines.push_back("fabric host " + fh.name + " is left out, with its links");
  return lines;
}

}  // namespace rdmabench
