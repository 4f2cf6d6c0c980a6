// The stand-in agent of the 1,000-agent simulation (agent_scale.cc; bench and test tree only,
// never installed): the real agent loop (orchestrator/agent/agent.h: the control connection,
// the token's proofs, heartbeats) over a stand-in data plane. A `server` session prints a ready
// line and ends; a `client` session waits for its --start-at (or starts at once), then
// RDMABENCH_STANDIN_FLOW_S seconds (default 0), then prints a committed result document and
// ends. No process is started and no device is touched: what the simulation measures is the
// controller's work and the agents' footprint, not RDMA.
#include <poll.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

#include "base/version.h"
#include "orchestrator/agent/agent.h"

namespace rdmabench::agent {
namespace {

double wall_now() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

class StandinSessions : public LocalSessions {
 public:
  StandinSessions(const std::string& doc, double flow_s)
      : doc_(nlohmann::json::parse(doc)), flow_s_(flow_s) {}

  void start(uint64_t job, const std::vector<std::string>& argv, const std::string&) override {
    if (argv[0] == "server") {
      due_[job] = {wall_now(),
                   "RDMABENCH_SERVER_READY {\"address\":\"127.0.0.1\",\"port\":18515,"
                   "\"pid\":" +
                       std::to_string(::getpid()) + ",\"version\":\"0\"}\n"};
      return;
    }
    const double now = wall_now();
    double at = now;
    for (size_t i = 0; i + 1 < argv.size(); ++i)
      if (argv[i] == "--start-at") at = std::strtod(argv[i + 1].c_str(), nullptr);
    // What a client says of its start (the controller's automatic start delay reads it).
    nlohmann::json doc = doc_;
    doc["setup"]["start"] = {{"at_unix_s", at},
                             {"waited_s", std::max(0.0, at - now)},
                             {"late_s", std::max(0.0, now - at)}};
    due_[job] = {std::max(now, at) + flow_s_, doc.dump() + "\n"};
  }
  void stop(uint64_t job) override {
    if (due_.erase(job) != 0) stopped_.push_back(job);
  }
  bool wait(int timeout_ms, int wake_fd, std::vector<SessionEvent>& events) override {
    double next = wall_now() + timeout_ms / 1000.0;
    for (const auto& [job, d] : due_) next = std::min(next, d.at);
    pollfd p{wake_fd, POLLIN, 0};
    const int ms = static_cast<int>(std::max(0.0, (next - wall_now()) * 1000.0));
    const bool woken = ::poll(&p, 1, ms) > 0;
    const double now = wall_now();
    for (auto it = due_.begin(); it != due_.end();) {
      if (it->second.at > now) {
        ++it;
        continue;
      }
      SessionEvent out;
      out.job = it->first;
      out.data = it->second.out;
      events.push_back(std::move(out));
      events.push_back(exit_event(it->first, 0, "exit status 0"));
      it = due_.erase(it);
    }
    for (uint64_t job : stopped_) events.push_back(exit_event(job, 143, "killed by SIGTERM"));
    stopped_.clear();
    return woken;
  }
  void stop_all() override { due_.clear(); }

 private:
  static SessionEvent exit_event(uint64_t job, int status, std::string text) {
    SessionEvent e;
    e.job = job;
    e.kind = SessionEvent::Kind::exit;
    e.status = status;
    e.status_text = std::move(text);
    return e;
  }
  struct Due {
    double at = 0;
    std::string out;
  };
  nlohmann::json doc_;
  double flow_s_;
  std::map<uint64_t, Due> due_;
  std::vector<uint64_t> stopped_;
};

}  // namespace
}  // namespace rdmabench::agent

int main() {
  using namespace rdmabench::agent;
  const char* token = std::getenv("RDMABENCH_TOKEN");
  const char* flow = std::getenv("RDMABENCH_STANDIN_FLOW_S");
  std::ifstream in(RDMABENCH_SOURCE_DIR "/tests/fixtures/results/qp/write_rc.json");
  std::stringstream doc;
  doc << in.rdbuf();
  StandinSessions sessions(doc.str(), flow != nullptr ? std::strtod(flow, nullptr) : 0.0);
  AgentOptions opt;
  opt.token = token != nullptr ? token : "";
  // The controller refuses an agent of another version: the stand-in says this build's.
  opt.facts = {
      {"host", "standin"}, {"version", rdmabench::kVersion}, {"pid", ::getpid()}, {"cpus", 2}};
  return run_agent(opt, sessions, STDIN_FILENO, STDOUT_FILENO, std::cerr);
}
