#pragma once
// The controller's side of the agents (agent.h): one `rdmabench agent` per fabric host, started
// once per campaign through the host's launcher (its stdin/stdout are the control connection:
// ssh's own channel, or a pipe here), greeted (each side proves the campaign token), then used
// for every round: a Launcher per host whose jobs are sessions its agent runs (AgentLauncher),
// so the round runner and the suspects' retests run unchanged over them.
//
// An agent is lost when its launch ends, its connection breaks, it breaks the protocol, or it
// sends nothing (heartbeats come every second) for `heartbeat_timeout_s`: its running sessions
// fail with that reason, and every later start on it is refused with it.
#include <chrono>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "orchestrator/agent/agent_protocol.h"
#include "orchestrator/launch/launcher.h"

namespace rdmabench {

// Whether `l` starts agents (local and ssh; under Slurm each server and client is still a step).
inline bool starts_agents(const Launcher& l) {
  const std::string_view kind = l.kind();
  return kind == "local" || kind == "ssh";
}

struct AgentHubSettings {
  double hello_timeout_s = 30;      // from an agent's launch to its hello
  double heartbeat_timeout_s = 10;  // silence that makes an agent lost
  size_t fanout = 64;               // launches in flight at once
};

class AgentJob;

class AgentHub : public JobSource {
 public:
  AgentHub(std::string token, AgentHubSettings s);
  ~AgentHub() override;  // bye to every agent; their launches are stopped (bounded)
  AgentHub(const AgentHub&) = delete;
  AgentHub& operator=(const AgentHub&) = delete;

  struct Host {
    Launcher* launcher = nullptr;  // how to reach it (local or ssh)
    std::string rdmabench;         // the rdmabench there
  };
  // Starts and greets an agent on every host (at most `fanout` launches in flight). Returns the
  // hosts whose agent did not come up, with the reason.
  std::map<std::string, std::string> start(const std::map<std::string, Host>& hosts);
  // Whether an agent was started (or tried) for `host`.
  bool has(const std::string& host) const { return agents_.count(host) != 0; }
  // A launcher whose jobs run through `host`'s agent (valid while the hub lives).
  std::unique_ptr<Launcher> launcher(const std::string& host);
  // The agent's hello (host, version, pid, cpus); null when it has none.
  nlohmann::json hello(const std::string& host) const;
  // The hosts whose agent came up and was lost later, with the reason.
  std::map<std::string, std::string> lost_after_hello() const;
  // Why the agent on `host` is lost; "" while it is up.
  std::string lost(const std::string& host) const;

  void pump(int timeout_ms) override;

  // For AgentJob and AgentLauncher.
  uint64_t start_job(const std::string& host, AgentJob* job, const std::vector<std::string>& argv);
  void stop_job(const std::string& host, uint64_t id);
  void forget_job(const std::string& host, uint64_t id);

 private:
  struct Agent;
  void take_in(Agent& a);
  void handle(Agent& a, const nlohmann::json& m);
  void lose(Agent& a, const std::string& why);
  void send(Agent& a, const nlohmann::json& m);
  void launch(const std::string& host, const Host& h);
  Agent& at(const std::string& host);

  std::string token_;
  AgentHubSettings s_;
  std::map<std::string, std::unique_ptr<Agent>> agents_;
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
  JobSource* source() override { return &hub_; }

  // From the hub.
  void set_id(uint64_t id) { id_ = id; }
  void append_out(const std::string& s) { out_ += s; }
  void append_err(const std::string& s) { err_ += s; }
  void exited(int status, std::string text);

 private:
  AgentHub& hub_;
  std::string host_;
  uint64_t id_ = 0;
  std::string out_, err_;
  bool exited_ = false;
  bool stop_sent_ = false;
  int status_ = -1;
  std::string status_text_;
};

}  // namespace rdmabench
