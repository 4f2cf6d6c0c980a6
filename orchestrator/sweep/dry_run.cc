#include "orchestrator/sweep/dry_run.h"

#include <ostream>
#include <set>

#include "model/workload_fields.h"
#include "orchestrator/agent/agent_hub.h"
#include "orchestrator/launch/launcher.h"
#include "orchestrator/launch/shell_quote.h"
#include "orchestrator/launch/slurm_launcher.h"
#include "orchestrator/run/point_runner.h"

namespace rdmabench {
namespace {

void print_search(std::ostream& out, const Search& s, const SearchDraw& d) {
  out << "search: " << search_method_name(s.method) << ", seed " << s.seed << ", budget "
      << s.budget << " run(s): " << d.samples << " sample(s)";
  if (s.line_dim >= 0) {
    const std::string& along = s.space[static_cast<size_t>(s.line_dim)].key;
    out << ", each a line along " << along
        << (along == "sizes" ? " (one run measuring every size)"
                             : " (" + std::to_string(s.runs_per_sample()) + " runs)");
  }
  if (d.duplicates != 0) out << ", " << d.duplicates << " duplicate sample(s) dropped";
  if (d.redrawn != 0) out << ", " << d.redrawn << " draw(s) redrawn (duplicate or invalid)";
  if (d.invalid != 0) out << ", " << d.invalid << " run(s) invalid (skipped)";
  out << "\n";
  for (const auto& dim : s.space) out << "  space " << dim.key << ": " << dim.describe() << "\n";
  if (!s.fixed.empty()) out << "  fixed: " << describe_values(s.fixed) << "\n";
  if (s.cliff)
    out << "cliff: " << cliff_metric_name(s.cliff->metric) << " along " << s.cliff->along
        << ", flagged when more than " << s.cliff->threshold * 100
        << " % below the previous value (found after the sweep, written to index.jsonl)\n";
}

// The wrapper scripts the launchers run the commands in (ssh's, slurm's), line by line.
void print_wrappers(std::ostream& out,
                    const std::map<std::string, std::unique_ptr<Launcher>>& launchers,
                    bool agents) {
  auto print_wrapper = [&out](const char* title, const std::string& w) {
    out << "  " << title << ":\n";
    size_t start = 0;
    while (start < w.size()) {
      size_t nl = w.find('\n', start);
      out << "    | " << w.substr(start, nl - start) << "\n";
      if (nl == std::string::npos || nl + 1 == w.size()) break;
      start = nl + 1;
    }
  };
  bool any_ssh = false, any_slurm = false;
  for (const auto& [host, l] : launchers) {
    any_ssh = any_ssh || std::string(l->kind()) == "ssh";
    any_slurm = any_slurm || std::string(l->kind()) == "slurm";
  }
  if (any_ssh) print_wrapper("WRAPPER (run by sh on the remote side)", remote_job_script());
  if (any_slurm) print_wrapper("WRAPPER (run by sh in the step)", slurm_step_script());
  if (any_ssh && agents)
    print_wrapper("AGENT WRAPPER (run by sh on the remote side, for `rdmabench agent`)",
                  remote_agent_script());
}

// How the agents start: through each host's launcher (ssh, local: its stdin/stdout the control
// connection), or one Slurm step for all of them, each connecting back to the sweep.
void print_agents_launch(std::ostream& out, const Campaign& c,
                         const std::map<std::string, std::unique_ptr<Launcher>>& launchers) {
  std::vector<std::string> step_hosts;
  Launcher* step_launcher = nullptr;
  for (const auto& [host, l] : launchers)
    if (agents_connect_back(*l)) {
      step_hosts.push_back(host);
      step_launcher = l.get();
    } else {
      out << "  agent on " << host << ": started like a job there, stdin/stdout its connection\n";
    }
  if (step_launcher == nullptr) return;
  const AgentUse use = *c.driver->agents();
  const std::string rdmabench = use.hosts.empty() ? "rdmabench" : use.hosts.begin()->second;
  const std::string& listen = use.listen;
  out << "  agents on " << step_hosts.size() << " node(s), one job step: "
      << step_launcher->describe_agents_step(
             step_hosts, {rdmabench, "agent", "--connect",
                          listen == "auto" ? "<this host's name>:<a free port>" : listen})
      << "\n    (each agent dials the sweep over TCP and proves the token; fabric.agent_listen: "
      << listen << ")\n";
}

// A driver with agents (a fabric) over ssh, local or slurm launchers runs its points through one
// agent per host.
bool uses_agents(const Campaign& c,
                 const std::map<std::string, std::unique_ptr<Launcher>>& launchers) {
  if (!c.driver->agents()) return false;
  for (const auto& [host, l] : launchers)
    if (!starts_agents(*l)) return false;
  return true;
}

}  // namespace

void print_dry_run(std::ostream& out, const Campaign& c, const Expansion& x,
                   const std::map<std::string, std::unique_ptr<Launcher>>& launchers,
                   const std::set<std::string>& done, const std::string& out_dir) {
  if (c.driver->adaptive_budget()) {  // its points are made as it goes: its own lines
    out << "campaign " << shell_quote(c.name) << ": ";
    c.driver->describe_adaptive(out, done, out_dir);
    return;
  }
  size_t skipped = 0;
  for (const auto& p : x.points) skipped += p.skipped() ? 1 : 0;
  out << "campaign " << shell_quote(c.name) << ": " << x.points.size() << " points ("
      << c.pair_count() << " " << c.driver->pairs_noun() << " x " << c.combinations()
      << (c.search ? " run(s) drawn by the search" : " combination(s)") << " x " << c.repetitions
      << " repetition(s)";
  if (x.excluded != 0) out << ", " << x.excluded << " excluded";
  out << "), " << skipped << " skipped as invalid";
  if (!done.empty()) out << ", " << done.size() << " already done (--resume)";
  out << "\n";
  if (c.search) print_search(out, *c.search, c.draw);
  c.driver->describe(out, x);
  out << "output: " << out_dir << "/<point_id>.json, " << out_dir << "/index.jsonl, " << out_dir
      << "/env/<host>.json\n";
  out << "timeout per point: " << c.timeout_s << " s; connect timeout: " << c.connect_timeout_s
      << " s\n";
  if (c.allocation)
    out << "launcher: slurm, allocation " << c.allocation->job_id << " (" << c.allocation->nodelist
        << ", " << c.allocation->nodes.size() << " node(s))\n";
  out << "hosts:\n";
  for (const auto& [host, l] : launchers) out << "  " << host << ": " << l->describe() << "\n";
  const bool agents = uses_agents(c, launchers);
  if (agents) {
    out << "agents: one `rdmabench agent` per host for the whole campaign; its hello is the host "
           "check (version, environment), its connection carries the clock offsets, and the "
           "servers and clients below run as its sessions\n";
    print_agents_launch(out, c, launchers);
  }
  print_wrappers(out, launchers, agents);
  out << "points:\n";
  // A point's commands; a fabric's flows of one combination differ only in their hosts, so a
  // fabric shows them for the first flow of each combination and every point on one line.
  auto commands = [&](const Point& p, const HostPair& pair) {
    const std::string address =
        pair.connect_address.empty() ? "<address from the ready line>" : pair.connect_address;
    out << "      server on " << pair.server.host << ": "
        << launchers.at(pair.server.host)->describe_start(server_argv(pair.server)) << "\n";
    out << "      client on " << pair.client.host << ": "
        << launchers.at(pair.client.host)
               ->describe_start(client_argv(pair.client, address, "<port from the ready line>",
                                            p.workload_options()))
        << "\n";
  };
  std::map<const PointWorkload*, size_t> combination;  // fabric: shown as "combination N"
  for (const auto& p : x.points) {
    const std::string status =
        p.skipped()             ? "SKIPPED: " + p.skip_reason()
        : done.count(p.id) != 0 ? "DONE (--resume: " + p.id + ".json exists and the index says ok)"
                                : "";
    if (c.driver->measures_together()) {
      const auto [it, first] = combination.emplace(p.work.get(), combination.size() + 1);
      if (first) {
        out << "  combination " << it->second << ": " << describe_values(p.values()) << "\n";
        if (!p.skipped()) commands(p, c.pair(p.pair));
        out << "      (every flow: the same commands on its own server and client hosts)\n";
      }
      out << "  " << (p.index + 1) << "/" << x.points.size() << " " << p.id << "  ["
          << c.driver->place(p) << ", repetition " << p.repetition << ", combination " << it->second
          << "]" << (status.empty() ? "" : "  ") << status << "\n";
      continue;
    }
    const HostPair pair = c.pair(p.pair);
    out << "  " << (p.index + 1) << "/" << x.points.size() << " " << p.id << "  [" << pair.name
        << ", repetition " << p.repetition << "]  " << describe_values(p.values()) << "\n";
    if (!status.empty())
      out << "      " << status << "\n";
    else
      commands(p, pair);
  }
}

}  // namespace rdmabench
