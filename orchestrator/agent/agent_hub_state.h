#pragma once
// The hub's record of each agent and of each job step that runs agents (agent_hub.h), shared by
// agent_hub.cc (greeting, messages, faults) and agent_hub_connect.cc (the agents that connect
// back over TCP).
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "base/oob_channel.h"
#include "orchestrator/agent/agent_hub.h"
#include "orchestrator/agent/agent_protocol.h"
#include "orchestrator/launch/clock_offset.h"
#include "orchestrator/launch/launcher.h"

namespace rdmabench {

struct AgentHub::Agent {
  std::string host;                    // "" for a connection not yet greeted
  std::unique_ptr<ProcessJob> launch;  // local, ssh: the agent's process; its pipes the connection
  OobChannel conn;                     // slurm: the connection the agent made
  int step = -1;                       // slurm: which of steps_ runs it
  agent::FrameReader reader;
  std::string nonce;  // ours
  bool greeted = false;
  std::string lost;  // why it is gone; "" while up
  nlohmann::json hello;
  std::chrono::steady_clock::time_point launched, last_heard;
  std::string err_tail;  // the launch's stderr (the last few KiB), for reasons
  std::map<uint64_t, AgentJob*> jobs;
  nlohmann::json data_for;  // an out or err message whose raw frame is still to come
  double read_at = 0;       // wall clock when its last bytes were read (a time answer's arrival)
  // The clock exchange in flight (measure_clocks): its seq (0: none) and when it was sent.
  uint64_t time_seq = 0;
  double time_sent = 0;
  std::vector<ClockSample> clock_samples;

  bool connected() const { return launch != nullptr || conn.fd() >= 0; }
};

struct AgentHub::Step {
  std::unique_ptr<ProcessJob> job;  // srun; null when it could not be started
  size_t hosts = 0;                 // the nodes it was started on
  bool ended = false;
};

// Keeps the last few KiB of `more` in `tail`.
inline void keep_tail(std::string& tail, const std::string& more) {
  tail += more;
  if (tail.size() > 4096) tail.erase(0, tail.size() - 4096);
}

}  // namespace rdmabench
