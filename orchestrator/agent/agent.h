#pragma once
// The agent's side of the control connection (`rdmabench agent`, started once per host for a
// whole fabric campaign): proves and checks the campaign token, says who it is, then runs the
// sessions the controller sends (LocalSessions: each `rdmabench server|client` a child process
// here, bench/ puts a stand-in behind the same interface) and streams their output and exit
// back. It ends, stopping every session, when the controller says bye or its connection
// closes (the controller exited or was killed: the launch's stdin reaches end of file).
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <ostream>
#include <set>
#include <string>
#include <vector>

namespace rdmabench::agent {

struct SessionEvent {
  enum class Kind { out, err, exit };
  uint64_t job = 0;
  Kind kind = Kind::out;
  std::string data;  // out, err
  int status = 0;    // exit: the exit code, or 128 + the signal
  std::string status_text;
};

// What an agent runs its sessions with.
class LocalSessions {
 public:
  virtual ~LocalSessions() = default;
  // Starts session `job` (argv: "server"|"client" and options, checked); throws Error.
  virtual void start(uint64_t job, const std::vector<std::string>& argv,
                     const std::string& token) = 0;
  // Asks it to end (its exit event follows; killed if it has not ended after 2 s).
  virtual void stop(uint64_t job) = 0;
  // Waits up to `timeout_ms` for news from the sessions or for `wake_fd` to become readable;
  // appends the news to `events` and says whether `wake_fd` is readable.
  virtual bool wait(int timeout_ms, int wake_fd, std::vector<SessionEvent>& events) = 0;
  // Ends every session (bounded: a few seconds), with no events.
  virtual void stop_all() = 0;
};

// Each session a child process: `self` (this rdmabench) with the session's argv, in its own
// process group, killed with the agent (parent-death signal).
std::unique_ptr<LocalSessions> make_process_sessions(std::string self);

struct AgentOptions {
  std::string token;                   // the campaign's (RDMABENCH_TOKEN)
  std::set<std::string> path_options;  // options refused from the wire (they take a file)
  double heartbeat_s = 1.0;
  nlohmann::json facts;  // the hello's members besides the proof: host, version, pid, cpus
};

// Exit statuses: 0 the controller said bye or closed the connection; 2 the controller was
// refused (wrong token) or broke the protocol; 1 the connection failed.
int run_agent(const AgentOptions& opt, LocalSessions& sessions, int in_fd, int out_fd,
              std::ostream& log);

}  // namespace rdmabench::agent
