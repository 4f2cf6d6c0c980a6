#include <chrono>

#include "base/error.h"
#include "orchestrator/agent/agent_hub.h"
#include "orchestrator/launch/shell_quote.h"

// The jobs and launchers over the hub: a session an agent runs is a Job (AgentJob), and each
// host's agent is a Launcher (AgentLauncher) whose start() asks it for one.
namespace rdmabench {

using Clock = std::chrono::steady_clock;

// ---- AgentJob ----------------------------------------------------------------------------------

AgentJob::~AgentJob() {
  if (!exited_) {
    begin_stop();
    hub_.forget_job(host_, id_);
  }
}

void AgentJob::exited(int status, std::string text) {
  if (exited_) return;
  exited_ = true;
  status_ = status;
  status_text_ = std::move(text);
}

void AgentJob::begin_stop() {
  if (exited_ || stop_sent_) return;
  stop_sent_ = true;
  hub_.stop_job(host_, id_);
}

void AgentJob::stop() {
  begin_stop();
  // The agent ends the session (SIGTERM, SIGKILL after 2 s) and reports its exit.
  const auto deadline = Clock::now() + std::chrono::seconds(5);
  while (!exited_ && Clock::now() < deadline) hub_.pump(100);
  if (!exited_) {
    hub_.forget_job(host_, id_);
    exited(255, "no exit reported within 5 s of the stop");
  }
}

// ---- AgentLauncher -----------------------------------------------------------------------------

namespace {

class AgentLauncher : public Launcher {
 public:
  AgentLauncher(AgentHub& hub, std::string host) : hub_(hub), host_(std::move(host)) {}
  const std::string& host() const override { return host_; }
  const char* kind() const override { return "agent"; }
  CommandOutput run(const std::vector<std::string>& argv, double /*timeout_s*/) override {
    throw Error("an agent runs rdmabench sessions only, not '" + shell_join(argv) + "'");
  }
  // argv: the host's rdmabench and the session's arguments; the agent runs its own binary.
  std::unique_ptr<Job> start(const std::vector<std::string>& argv,
                             const std::string& /*token: the agent's*/) override {
    auto job = std::make_unique<AgentJob>(hub_, host_);
    std::vector<std::string> args(argv.begin() + (argv.empty() ? 0 : 1), argv.end());
    job->set_id(hub_.start_job(host_, job.get(), args));
    return job;
  }
  std::string describe() const override {
    return "the host's agent (rdmabench agent, started once for the campaign)";
  }
  std::string describe_start(const std::vector<std::string>& argv) const override {
    return shell_join(argv);
  }

 private:
  AgentHub& hub_;
  std::string host_;
};

}  // namespace

std::unique_ptr<Launcher> AgentHub::launcher(const std::string& host) {
  at(host);
  return std::make_unique<AgentLauncher>(*this, host);
}

}  // namespace rdmabench
