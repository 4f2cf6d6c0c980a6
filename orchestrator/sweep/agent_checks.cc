#include <algorithm>
#include <chrono>
#include <cstdio>

#include "base/file_text.h"
#include "base/utc_time.h"
#include "model/host_env_record.h"
#include "model/result.h"
#include "orchestrator/sweep/sweep_state.h"

// A fabric's agents as its host checks (sweep_state.h): one agent per host, started together
// (ssh, local: bounded fan-out; slurm: one job step) and greeted. The hello is the check: the
// agent's version (another than this one's is refused) and the host's environment, gathered
// there by the same script the checks by command run (launch/host_env.h); DIR/env/<host>.json
// gets it with the host's clock offset, measured over the agent's connection. No command or
// step per host besides the agent's own launch. A host whose agent does not come up is left out
// with its links, as one that fails its check.
namespace rdmabench {
namespace {

// Exchanges per agent for a clock offset (the shortest round trip counts), and their bound.
constexpr unsigned kClockSamples = 8;
constexpr double kClockTimeoutS = 30;
// A long campaign measures the offsets again this often (between rounds), and records each.
constexpr double kClockRefreshS = 300;

std::string ms_text(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", s * 1e3);
  return buf;
}

// Measures every agent's clock and keeps it for the rounds; returns the largest uncertainty's
// host ("" when none was measured).
std::string take_clocks(Sweep& s, AgentHub& hub, std::ostream& err) {
  const auto clocks = hub.measure_clocks(kClockSamples, kClockTimeoutS);
  std::string worst;
  for (const auto& [host, c] : clocks) {
    s.host_clocks[host] = c;
    if (worst.empty() || c.uncertainty_s > clocks.at(worst).uncertainty_s) worst = host;
  }
  for (const auto& [host, u] : s.hosts)
    if (hub.lost(host).empty() && clocks.count(host) == 0)
      err << "rdmabench: warning: " << host
          << ": no clock offset (its agent did not answer the time exchanges); its flows start "
             "on the controller's clock\n";
  return worst;
}

}  // namespace

bool through_agents(const Sweep& s) {
  if (!s.c.driver->agents()) return false;
  return std::all_of(s.launchers.begin(), s.launchers.end(),
                     [](const auto& l) { return starts_agents(*l.second); });
}

std::unique_ptr<AgentHub> start_agents(Sweep& s, const std::string& token, std::ostream& err) {
  if (!through_agents(s)) return nullptr;
  const AgentUse use = *s.c.driver->agents();
  std::map<std::string, AgentHub::Host> hosts;
  for (const auto& [host, rdmabench] : use.hosts)
    hosts.try_emplace(host, AgentHub::Host{s.launchers.at(host).get(), rdmabench});
  AgentHubSettings settings;
  settings.listen = use.listen;
  auto hub = std::make_unique<AgentHub>(token, settings);
  const auto failed = hub->start(hosts);
  for (const std::string& step : hub->steps())
    err << "rdmabench: the agents run as Slurm step " << step << " (they connected to "
        << hub->connect_address() << ")\n";
  for (const auto& [host, why] : failed) {
    err << "rdmabench: host check failed for " << join(s.hosts.at(host).roles)
        << ": its agent did not start: " << why << "\n";
    const std::string& path = use.hosts.at(host);
    s.bad_paths[{host, path}] = "its agent did not start: " + why;
    for (const std::string& line : s.c.driver->left_out(host, path))
      err << "rdmabench: " << line << "\n";
  }
  const std::string worst = take_clocks(s, *hub, err);
  if (!worst.empty())
    err << "rdmabench: clock offsets of " << s.host_clocks.size()
        << " host(s), over their agents' connections: bound at most "
        << ms_text(s.host_clocks.at(worst).uncertainty_s) << " ms (" << worst << ")\n";
  for (const auto& [host, h] : hosts) {
    if (failed.count(host) != 0) continue;
    nlohmann::json env = {{"host", host}, {"rdmabench", h.rdmabench}, {"captured_at", utc_now()}};
    env.update(hub->hello(host).value("env", nlohmann::json::object()));
    const auto c = s.host_clocks.find(host);
    if (const std::optional<unsigned> cpus =
            write_host_env(s, host, env, c != s.host_clocks.end() ? &c->second : nullptr, err))
      s.host_cpus[host] = *cpus;
  }
  s.clocks_at = std::chrono::steady_clock::now();
  return hub;
}

void refresh_clocks_if_due(Sweep& s, AgentHub& hub, IndexWriter& writer) {
  if (std::chrono::steady_clock::now() - s.clocks_at <
      std::chrono::duration<double>(kClockRefreshS))
    return;
  std::ostringstream quiet;
  take_clocks(s, hub, quiet);
  s.clocks_at = std::chrono::steady_clock::now();
  writer.append(
      to_json(ClockOffsetsRecord{utc_now(), {s.host_clocks.begin(), s.host_clocks.end()}}));
}

}  // namespace rdmabench
