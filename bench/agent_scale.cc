// The 1,000-agent simulation (issue 33, item 5): the real controller — AgentHub starting and
// greeting the agents through the local launcher, the real round runner driving each round
// through them — against N stand-in agents on this machine (agent_standin.cc: the real agent
// loop over a stand-in data plane that answers each flow with a result document at once). A
// pairwise campaign over N hosts: its plan and points as `sweep` builds them, then its first
// ROUNDS rounds (N/2 flows each). Prints one table row (bench/README.md "1,000 agents"):
//
//   rdmabench_agent_scale STANDIN N ROUNDS
//   rdmabench_agent_scale STANDIN N 0 verdicts   # the end of the campaign instead (below)
//
// Columns: N; greet: launch + challenge/auth/hello of all N; rounds measured; wall per round
// after the first (the stand-in's flows take no time: all of it is overhead, the automatic
// start delay included, shown beside it); the controller's CPU per round (its children
// excluded); the controller's peak RSS; one agent's RSS at the first round and at the end (flat
// = no growth per round); the controller's open files; that agent's at the first round and at
// the end; the whole pairwise campaign's overhead, extrapolated from the rounds measured.
#include <sys/resource.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <string>

#include "base/heap_policy.h"
#include "model/campaign_index.h"
#include "orchestrator/agent/agent_hub.h"
#include "orchestrator/campaign/campaign.h"
#include "orchestrator/fabric/fabric_driver.h"
#include "orchestrator/fabric/fabric_judging.h"
#include "orchestrator/fabric/fabric_run.h"
#include "orchestrator/fabric/start_delay.h"
#include "orchestrator/sweep/round_runner.h"
#include "orchestrator/sweep/sweep.h"

namespace rdmabench {
namespace {

using Clock = std::chrono::steady_clock;

double cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

// A /proc/PID/status field in KiB (VmRSS, VmHWM).
long status_kib(long pid, const std::string& field) {
  std::ifstream in("/proc/" + (pid == 0 ? std::string("self") : std::to_string(pid)) + "/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind(field + ":", 0) == 0)
      return std::strtol(line.c_str() + field.size() + 1, nullptr, 10);
  return -1;
}

// The CPU time a process has run, in seconds (/proc/PID/schedstat: nanoseconds on the CPU).
double run_seconds(long pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/schedstat");
  double ns = 0;
  in >> ns;
  return ns / 1e9;
}

long open_fds(long pid) {
  std::error_code ec;
  long n = 0;
  for (auto it = std::filesystem::directory_iterator(
           "/proc/" + (pid == 0 ? std::string("self") : std::to_string(pid)) + "/fd", ec);
       !ec && it != std::filesystem::directory_iterator(); it.increment(ec))
    ++n;
  return n;
}

double since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// The end of the campaign, as the sweep does it (fabric_judging.h): each flow's figures kept as
// its round ends, then the index read back (a line per flow, written here as the recorder writes
// them) and every flow judged: the time and the RSS it adds.
void verdict_phase(const Campaign& c, const Expansion& x) {
  const std::string dir = "/tmp/rdmabench-agent-scale";
  std::filesystem::create_directories(dir);
  {
    std::ofstream out(dir + "/index.jsonl", std::ios::trunc);
    for (const Point& p : x.points)
      out << index_line({.point_id = p.id,
                         .status = "ok",
                         .duration_s = 1.5,
                         .error = "",
                         .host_pair = c.pair_name(p.pair),
                         .repetition = p.repetition,
                         .time = "2026-11-27T10:00:00Z"})
                 .dump()
          << "\n";
  }
  const long rss0 = status_kib(0, "VmRSS");
  const auto t0 = Clock::now();
  MeasuredFlows measured;
  ResultBrief b;
  b.document = true;
  b.sizes.emplace_back().size = 65536;
  for (const Point& p : x.points) {
    b.sizes[0].gbps = 90.0 + static_cast<double>(p.index % 7);  // 90 to 96: all ok
    measured.keep(p, b, false);
  }
  const double kept_s = since(t0);
  size_t ok = 0;
  const std::vector<LinkVerdict> v = judge_fabric(c, x, dir, measured, ok);
  std::fprintf(stderr,
               "verdicts: %zu links judged (%zu ok); keeping the figures %.1f s, judging %.1f s; "
               "RSS %.0f MiB before, +%.0f MiB after (peak %.0f MiB)\n",
               ok + v.size(), ok, kept_s, since(t0) - kept_s, rss0 / 1024.0,
               (status_kib(0, "VmRSS") - rss0) / 1024.0, status_kib(0, "VmHWM") / 1024.0);
  std::filesystem::remove_all(dir);
}

int run(const std::string& standin, int hosts, int rounds, bool verdicts) {
  map_large_allocations();  // as the sweep does (heap_policy.h)
  nlohmann::json names = nlohmann::json::array();
  for (int i = 0; i < hosts; ++i) names.push_back({{"host", "h" + std::to_string(i)}});
  const nlohmann::json j = {{"name", "agent-scale"},
                            {"fabric", {{"hosts", names}, {"pattern", {{"pattern", "pairwise"}}}}},
                            {"matrix", {{"op", "write"}, {"sizes", {{65536}}}, {"duration_s", 1}}}};
  const auto t_plan = Clock::now();
  const Campaign c = parse_campaign(j, "/tmp", standin, CampaignOptions{"", {}, campaign_kinds()});
  const long parsed_kib = status_kib(0, "VmRSS");
  const Expansion x = expand(c);
  std::vector<const Point*> todo;
  for (const Point& p : x.points) todo.push_back(&p);
  const long expanded_kib = status_kib(0, "VmRSS");
  auto plan = std::make_unique<const FabricRun>(plan_fabric_run(c, x, todo, {}));
  const double plan_s = since(t_plan);
  std::fprintf(
      stderr,
      "RSS after the campaign's parse %.0f MiB, its expansion %.0f MiB, the plan %.0f MiB (peak "
      "%.0f MiB)\n",
      parsed_kib / 1024.0, expanded_kib / 1024.0, status_kib(0, "VmRSS") / 1024.0,
      status_kib(0, "VmHWM") / 1024.0);
  if (verdicts) {  // as the sweep judges: its plan freed, the heap trimmed (fabric_sweep.cc)
    plan.reset();
    todo = {};
    return_free_heap();
    std::fprintf(stderr, "RSS after the plan freed %.0f MiB\n", status_kib(0, "VmRSS") / 1024.0);
    verdict_phase(c, x);
    return 0;
  }
  if (rounds == 0) return 0;

  std::unique_ptr<Launcher> local = make_local_launcher();
  std::map<std::string, AgentHub::Host> where;
  for (const FabricHost& h : fabric_spec(c)->hosts) where[h.spec.host] = {local.get(), standin};
  AgentHub hub("scale-token", AgentHubSettings{60, 30, 64});
  const auto t_greet = Clock::now();
  const auto failed = hub.start(where);
  const double greet_s = since(t_greet);
  if (!failed.empty()) {
    std::cerr << failed.size() << " agent(s) did not start; first: " << failed.begin()->first
              << ": " << failed.begin()->second << "\n";
    return 1;
  }
  std::map<std::string, std::unique_ptr<Launcher>> owned;
  std::map<std::string, Launcher*> launchers;
  for (const auto& [host, h] : where) launchers[host] = (owned[host] = hub.launcher(host)).get();
  const long agent_pid = hub.hello("h0")["pid"].get<long>();
  std::vector<long> agent_pids;
  for (const auto& [host, h] : where) agent_pids.push_back(hub.hello(host)["pid"].get<long>());
  double agents_cpu = 0, agent_cpu_most = 0;

  std::atomic<bool> stop{false};
  StartDelay delay(std::nullopt);  // "auto", the campaigns' default
  double wall = 0, worst = 0, cpu = 0, delays = 0, first_wall = 0;
  long agent_rss_first = 0, agent_fds_first = 0;
  size_t flows = 0, ok = 0;
  std::string first_error;
  const int n = std::min<int>(rounds, static_cast<int>(plan->groups.size()));
  for (int r = 0; r < n; ++r) {
    std::vector<RoundFlow> round;
    for (const FabricRun::Member& m : plan->groups[r].members)
      round.push_back({m.point, c.pair(m.point->pair), plan->server_name(m)});
    std::vector<double> before;
    if (r > 0)
      for (long pid : agent_pids) before.push_back(run_seconds(pid));
    const double cpu0 = cpu_seconds();
    const auto t0 = Clock::now();
    const double used = delay.next();
    const std::vector<PointOutcome> out =
        run_round(round, RoundContext{launchers, "scale-token", 120, stop, used});
    delay.observe(used, out);
    const double w = since(t0);
    cpu += cpu_seconds() - cpu0;
    if (r > 0) {
      double most = 0;
      for (size_t i = 0; i < agent_pids.size(); ++i) {
        const double used = run_seconds(agent_pids[i]) - before[i];
        agents_cpu += used;
        most = std::max(most, used);
      }
      agent_cpu_most = std::max(agent_cpu_most, most);
    }
    if (r == 0) {
      first_wall = w;  // its start delay is the first guess, 3 s
    } else {
      wall += w;
      delays += used;
      worst = std::max(worst, w);
    }
    flows += out.size();
    for (const PointOutcome& o : out) {
      ok += o.ok ? 1 : 0;
      if (!o.ok && first_error.empty()) first_error = o.error;
    }
    if (r == 0) {
      agent_rss_first = status_kib(agent_pid, "VmRSS");
      agent_fds_first = open_fds(agent_pid);
    }
  }
  // Rounds after the first: the automatic start delay has measured what a round needs.
  const int later = std::max(1, n - 1);
  std::printf(
      "| %d | %.1f s | %d | %.1f ms (max %.1f), start delay %.0f ms | %.1f ms | %.0f ms (one: at "
      "most %.1f ms) | %.0f MiB | %.1f -> %.1f MiB | %ld | %ld -> %ld | %.0f s |\n",
      hosts, greet_s, n, 1000 * wall / later, 1000 * worst, 1000 * delays / later, 1000 * cpu / n,
      1000 * agents_cpu / later, 1000 * agent_cpu_most, status_kib(0, "VmHWM") / 1024.0,
      agent_rss_first / 1024.0, status_kib(agent_pid, "VmRSS") / 1024.0, open_fds(0),
      agent_fds_first, open_fds(agent_pid),
      first_wall + wall / later * static_cast<double>(plan->groups.size() - 1));
  std::fprintf(stderr, "plan: %.1f s, %zu rounds\n", plan_s, plan->groups.size());
  if (ok != flows) {
    std::cerr << flows - ok << " of " << flows << " flows failed; first: " << first_error << "\n";
    return 1;
  }
  return 0;
}

}  // namespace
}  // namespace rdmabench

int main(int argc, char** argv) {
  if (argc != 4 &&
      !(argc == 5 && std::string(argv[4]) == "verdicts" && std::string(argv[3]) == "0")) {
    std::cerr << "usage: rdmabench_agent_scale STANDIN N ROUNDS | STANDIN N 0 verdicts\n";
    return 2;
  }
  return rdmabench::run(argv[1], std::atoi(argv[2]), std::atoi(argv[3]), argc == 5);
}
