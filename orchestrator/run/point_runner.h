#pragma once
// One point: start the server (`rdmabench server -p 0 --once`), wait for its ready line, start
// the client against the address and port it announced with `-J`, collect the client's result
// document. Everything is bounded by the campaign's timeout_s and the stop flag; on any failure
// both ends are stopped (their process groups killed) and the error carries both stderr texts.
#include <atomic>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "orchestrator/campaign/campaign.h"
#include "orchestrator/launch/launcher.h"
#include "orchestrator/launch/result_brief.h"

namespace rdmabench {

struct PointOutcome {
  bool ok = false;
  std::string error;        // why it failed (first line), then the stderr of both ends
  std::string document;     // the client's result document as it printed it ("" when none)
  ResultBrief brief;        // what it says (result_brief.h)
  std::string server_log;   // stderr of the server
  std::string client_log;   // stderr of the client
  std::string server_step;  // the Slurm steps both ends ran as ("JOB.STEP"; slurm launcher)
  std::string client_step;
  double duration_s = 0;
  int client_status = -1;  // the client's exit status, once it exited (-1: it did not, or unknown)
};

// argv of both ends (the client's address and port come from the server's ready line). A server
// serving `sessions` clients at once (a fabric round) runs with --sessions, one with --once.
std::vector<std::string> server_argv(const HostSpec& h, size_t sessions = 1);
std::vector<std::string> client_argv(const HostSpec& h, const std::string& address,
                                     const std::string& port,
                                     const std::vector<std::string>& workload);

struct PointContext {
  const HostPair& pair;
  Launcher& server;
  Launcher& client;
  std::string token;
  double timeout_s;
  const std::atomic<bool>& stop;
};

PointOutcome run_point(const Point& p, const PointContext& ctx);

}  // namespace rdmabench
