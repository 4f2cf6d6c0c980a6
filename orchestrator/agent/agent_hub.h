#pragma once
// The controller's side of the agents (agent.h): one `rdmabench agent` per fabric host, started
// once per campaign, greeted (each side proves the campaign token), then used for every round: a
// Launcher per host whose jobs are sessions its agent runs (AgentLauncher), so the round runner
// and the suspects' retests run unchanged over them. Two ways to start them and connect:
//   - local and ssh: one launch per host (at most `fanout` in flight) whose stdin/stdout are the
//     control connection (ssh's own channel, or a pipe here): nothing new listens;
//   - slurm: one job step over every node (Launcher::start_agents_step), each agent connecting
//     back over TCP to a port the hub listens on (`rdmabench agent --connect HOST:PORT`); a
//     connection is a host's once its hello proves the token and names the host.
//
// An agent is lost when its launch (or step) ends before its hello, its connection breaks, it
// breaks the protocol, or it sends nothing (heartbeats come every second) for
// `heartbeat_timeout_s`: its running sessions fail with that reason, and every later start on it
// is refused with it.
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/oob_channel.h"
#include "orchestrator/agent/agent_protocol.h"
#include "orchestrator/launch/clock_offset.h"
#include "orchestrator/launch/launcher.h"
#include "orchestrator/launch/result_brief.h"

namespace rdmabench {

// Whether `l` starts agents (local, ssh: one launch per host; slurm: one step for all), and
// whether its agents connect back over TCP (slurm).
inline bool starts_agents(const Launcher& l) {
  const std::string_view kind = l.kind();
  return kind == "local" || kind == "ssh" || kind == "slurm";
}
inline bool agents_connect_back(const Launcher& l) { return std::string_view(l.kind()) == "slurm"; }

struct AgentHubSettings {
  double hello_timeout_s = 30;      // from an agent's launch to its hello
  double heartbeat_timeout_s = 10;  // silence that makes an agent lost
  size_t fanout = 64;               // launches in flight at once
  // Where agents that connect back reach the controller: "auto" (this machine's host name, any
  // free port), "HOST" or "HOST:PORT"; the hub listens on every IPv4 address at that port.
  std::string listen = "auto";
};

class AgentJob;

class AgentHub : public JobSource {
 public:
  AgentHub(std::string token, AgentHubSettings s);
  ~AgentHub() override;  // bye to every agent; their launches are stopped (bounded)
  AgentHub(const AgentHub&) = delete;
  AgentHub& operator=(const AgentHub&) = delete;

  struct Host {
    Launcher* launcher = nullptr;  // how to reach it (local, ssh or slurm)
    std::string rdmabench;         // the rdmabench there
  };
  // Starts and greets an agent on every host: a launch per local or ssh host (at most `fanout` in
  // flight), one step per rdmabench path for the slurm hosts. Returns the hosts whose agent did
  // not come up, with the reason.
  std::map<std::string, std::string> start(const std::map<std::string, Host>& hosts);
  // The address the connecting agents were given ("" when none connect back), and the Slurm
  // steps that run them ("JOB.STEP", once known).
  const std::string& connect_address() const { return address_; }
  std::vector<std::string> steps() const;
  // Whether an agent was started (or tried) for `host`.
  bool has(const std::string& host) const { return agents_.count(host) != 0; }
  // A launcher whose jobs run through `host`'s agent (valid while the hub lives).
  std::unique_ptr<Launcher> launcher(const std::string& host);
  // The agent's hello (host, version, pid, cpus, env); null when it has none.
  nlohmann::json hello(const std::string& host) const;
  // Every greeted agent's clock against this machine's, as NTP does (launch/clock_offset.h):
  // `samples` time exchanges each over its connection, all agents at once (one exchange in
  // flight per agent), the shortest round trip's offset. An agent that does not answer within
  // `timeout_s` in all gets none.
  std::map<std::string, ClockOffset> measure_clocks(unsigned samples, double timeout_s);
  // The hosts whose agent came up and was lost later, with the reason.
  std::map<std::string, std::string> lost_after_hello() const;
  // Why the agent on `host` is lost; "" while it is up.
  std::string lost(const std::string& host) const;

  void pump(int timeout_ms) override;
  // The Slurm step ("JOB.STEP") `host`'s agent runs in; "" when it is not in one.
  std::string step_of(const std::string& host) const;

  // The address agents that connect back are given for `listen` (AgentHubSettings::listen) and a
  // port; throws ConfigError for a malformed one.
  static std::string connect_address_for(const std::string& listen, uint16_t port);
  // The port `listen` names (0: any); throws ConfigError naming `field` for a malformed one.
  static uint16_t listen_port(const std::string& listen,
                              const std::string& field = "/fabric/agent_listen");

  // For AgentJob and AgentLauncher.
  uint64_t start_job(const std::string& host, AgentJob* job, const std::vector<std::string>& argv);
  void stop_job(const std::string& host, uint64_t id);
  void forget_job(const std::string& host, uint64_t id);

 private:
  struct Agent;
  struct Step;
  void take_in(Agent& a, const std::string& bytes);
  void handle(Agent& a, const nlohmann::json& m);
  void adopt(Agent& a);
  void lose(Agent& a, const std::string& why);
  void send(Agent& a, const nlohmann::json& m);
  void launch(const std::string& host, const Host& h);
  void start_steps(const std::map<std::string, Host>& hosts);
  void start_step(Launcher& l, const std::string& rdmabench, const std::vector<std::string>& names);
  bool restart_failed_steps(const std::map<std::string, Host>& hosts);
  void accept_all();
  void read_connection(Agent& a);
  void check_exits_and_silences();
  Agent& at(const std::string& host);

  std::string token_;
  AgentHubSettings s_;
  std::map<std::string, std::unique_ptr<Agent>> agents_;
  std::unique_ptr<OobListener> listener_;  // for the agents that connect back
  std::string address_;
  std::vector<std::unique_ptr<Agent>> pending_;  // connected, not yet greeted: host unknown
  std::vector<std::unique_ptr<Step>> steps_;
  uint64_t next_job_ = 1;
  std::chrono::steady_clock::time_point last_sweep_{};  // the last check of exits and silences
};

// A session an agent runs; its output and exit arrive through the hub.
class AgentJob : public Job {
 public:
  AgentJob(AgentHub& hub, std::string host) : hub_(hub), host_(std::move(host)) {}
  ~AgentJob() override;
  bool running() override { return !exited_; }
  const std::string& out() const override { return out_; }
  std::string err() const override { return err_; }
  bool output_closed() const override { return exited_; }
  int status() const override { return status_; }
  std::string status_text() const override { return status_text_; }
  void stop() override;
  void begin_stop() override;
  std::string step() const override { return hub_.step_of(host_); }  // its agent's
  const ResultBrief* brief() const override { return brief_ ? &*brief_ : nullptr; }
  JobSource* source() override { return &hub_; }

  // From the hub.
  void set_id(uint64_t id) { id_ = id; }
  void append_out(const std::string& s) { out_ += s; }
  void append_err(const std::string& s) { err_ += s; }
  void set_brief(ResultBrief b) { brief_ = std::move(b); }
  void exited(int status, std::string text);

 private:
  AgentHub& hub_;
  std::string host_;
  uint64_t id_ = 0;
  std::string out_, err_;
  std::optional<ResultBrief> brief_;
  bool exited_ = false;
  bool stop_sent_ = false;
  int status_ = -1;
  std::string status_text_;
};

}  // namespace rdmabench
