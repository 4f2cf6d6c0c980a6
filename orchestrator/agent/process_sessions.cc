// LocalSessions with a child process per session (agent.h).
#include <chrono>
#include <csignal>
#include <map>

#include "base/error.h"
#include "orchestrator/agent/agent.h"
#include "orchestrator/launch/process.h"

namespace rdmabench::agent {
namespace {

using Clock = std::chrono::steady_clock;

struct Running {
  std::unique_ptr<Child> child;
  std::optional<Clock::time_point> stop_asked;
  std::optional<Clock::time_point> exited_at;  // its output may still be draining
};

class ProcessSessions : public LocalSessions {
 public:
  explicit ProcessSessions(std::string self) : self_(std::move(self)) {}

  void start(uint64_t job, const std::vector<std::string>& argv,
             const std::string& token) override {
    if (jobs_.count(job) != 0) throw Error("job " + std::to_string(job) + " is already running");
    SpawnOptions o;
    o.argv = {self_};
    o.argv.insert(o.argv.end(), argv.begin(), argv.end());
    o.extra_env = {"RDMABENCH_TOKEN=" + token};
    jobs_[job].child = Child::spawn(o);
  }

  void stop(uint64_t job) override {
    auto it = jobs_.find(job);
    if (it == jobs_.end() || it->second.stop_asked) return;
    it->second.stop_asked = Clock::now();
    it->second.child->signal_group(SIGTERM);
  }

  bool wait(int timeout_ms, int wake_fd, std::vector<SessionEvent>& events) override {
    std::vector<Child*> children;
    for (auto& [id, r] : jobs_) children.push_back(r.child.get());
    const bool woken = pump(children, timeout_ms, wake_fd);
    const auto now = Clock::now();
    for (auto it = jobs_.begin(); it != jobs_.end();) {
      Running& r = it->second;
      for (const auto kind : {SessionEvent::Kind::out, SessionEvent::Kind::err}) {
        std::string data =
            kind == SessionEvent::Kind::out ? r.child->take_out() : r.child->take_err();
        if (data.empty()) continue;
        SessionEvent e;
        e.job = it->first;
        e.kind = kind;
        e.data = std::move(data);
        events.push_back(std::move(e));
      }
      if (r.stop_asked && now - *r.stop_asked > std::chrono::seconds(2) && r.child->running())
        r.child->signal_group(SIGKILL);
      const bool running = r.child->running();
      if (!running && !r.exited_at) r.exited_at = now;
      // Done once exited and its output read to the end (or a second after its exit: a
      // grandchild may hold the pipes).
      if (!running && (r.child->output_closed() || now - *r.exited_at > std::chrono::seconds(1))) {
        SessionEvent x;
        x.job = it->first;
        x.kind = SessionEvent::Kind::exit;
        x.status = r.child->status();
        x.status_text = r.child->status_text();
        events.push_back(std::move(x));
        it = jobs_.erase(it);
      } else {
        ++it;
      }
    }
    return woken;
  }

  void stop_all() override {
    for (auto& [id, r] : jobs_) r.child->signal_group(SIGTERM);
    const auto deadline = Clock::now() + std::chrono::seconds(2);
    for (;;) {
      bool running = false;
      std::vector<Child*> children;
      for (auto& [id, r] : jobs_) {
        running = running || r.child->running();
        children.push_back(r.child.get());
      }
      if (!running || Clock::now() >= deadline) break;
      pump(children, 50);
    }
    jobs_.clear();  // ~Child kills what is left, group and all, and reaps it
  }

 private:
  std::string self_;
  std::map<uint64_t, Running> jobs_;
};

}  // namespace

std::unique_ptr<LocalSessions> make_process_sessions(std::string self) {
  return std::make_unique<ProcessSessions>(std::move(self));
}

}  // namespace rdmabench::agent
