#include "orchestrator/agent/agent_hub.h"

#include <poll.h>
#include <sys/resource.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "base/error.h"
#include "orchestrator/launch/job_output.h"
#include "orchestrator/launch/shell_quote.h"

namespace rdmabench {

using Clock = std::chrono::steady_clock;
namespace proto = agent;

namespace {

AgentJob* job_of(const std::map<uint64_t, AgentJob*>& jobs, const nlohmann::json& m) {
  if (!m.contains("job") || !m["job"].is_number_unsigned()) return nullptr;
  auto it = jobs.find(m["job"].get<uint64_t>());
  return it == jobs.end() ? nullptr : it->second;
}

}  // namespace

struct AgentHub::Agent {
  std::string host;
  std::unique_ptr<ProcessJob> launch;  // the process running the agent (ssh, or local)
  proto::FrameReader reader;
  std::string nonce;  // ours
  bool greeted = false;
  std::string lost;  // why it is gone; "" while up
  nlohmann::json hello;
  Clock::time_point launched, last_heard;
  std::string err_tail;  // the launch's stderr (the last few KiB), for reasons
  std::map<uint64_t, AgentJob*> jobs;
  nlohmann::json data_for;  // an out or err message whose raw frame is still to come
};

AgentHub::AgentHub(std::string token, AgentHubSettings s) : token_(std::move(token)), s_(s) {}

AgentHub::~AgentHub() {
  std::vector<Job*> launches;
  for (auto& [host, a] : agents_) {
    for (auto& [id, j] : a->jobs) j->exited(255, "the campaign ended");
    a->jobs.clear();
    if (a->lost.empty()) send(*a, {{"type", proto::kBye}});
    if (a->launch) {
      // The agents end their sessions and exit on bye (or at the end of their input).
      a->launch->process().close_stdin();
      launches.push_back(a->launch.get());
    }
  }
  stop_all(launches, 5.0);
}

AgentHub::Agent& AgentHub::at(const std::string& host) {
  auto it = agents_.find(host);
  if (it == agents_.end()) throw Error("no agent was started on " + host);
  return *it->second;
}

void AgentHub::send(Agent& a, const nlohmann::json& m) {
  if (!a.lost.empty() || !a.launch) return;
  if (!a.launch->process().write_stdin(proto::encode_message(m)))
    lose(a, "its control connection closed");
}

void AgentHub::lose(Agent& a, const std::string& why) {
  if (!a.lost.empty()) return;
  std::string tail = without_tagged_line(a.err_tail, kPgidTag);
  while (!tail.empty() && (tail.back() == '\n' || tail.back() == ' ')) tail.pop_back();
  a.lost = why + (tail.empty() ? "" : " (its stderr: " + tail + ")");
  for (auto& [id, j] : a.jobs) {
    j->append_err("rdmabench: the agent on " + a.host + " was lost: " + a.lost + "\n");
    j->exited(255, "the agent was lost: " + why);
  }
  a.jobs.clear();
  if (a.launch) a.launch->begin_stop();
}

void AgentHub::launch(const std::string& host, const Host& h) {
  auto a = std::make_unique<Agent>();
  a->host = host;
  a->nonce = proto::new_nonce();
  a->launched = a->last_heard = Clock::now();
  try {
    a->launch = h.launcher->start_agent({h.rdmabench, "agent"}, token_);
  } catch (const Error& e) {
    a->lost = std::string("cannot start its agent: ") + e.what();
  }
  agents_[host] = std::move(a);
}

namespace {

// Each agent costs the controller three pipes' ends (its stdin, stdout, stderr), and the sweep
// has its own files besides: the soft limit is raised as far as that needs (up to the hard one).
void raise_open_file_limit(size_t agents) {
  const rlim_t needed = static_cast<rlim_t>(3 * agents + 256);
  rlimit l{};
  if (::getrlimit(RLIMIT_NOFILE, &l) != 0 || l.rlim_cur >= needed) return;
  if (l.rlim_max != RLIM_INFINITY && l.rlim_max < needed)
    throw Error(std::to_string(agents) + " agents need about " + std::to_string(needed) +
                " open files here, and the hard limit (ulimit -Hn) is " +
                std::to_string(l.rlim_max) + ": raise it (limits.conf, systemd LimitNOFILE)");
  l.rlim_cur = needed;
  if (::setrlimit(RLIMIT_NOFILE, &l) != 0)
    throw Error("cannot raise the open-file limit to " + std::to_string(needed) + ": " +
                std::strerror(errno));
}

}  // namespace

std::map<std::string, std::string> AgentHub::start(const std::map<std::string, Host>& hosts) {
  raise_open_file_limit(agents_.size() + hosts.size());
  auto next = hosts.begin();
  const auto in_flight = [&] {
    size_t n = 0;
    for (auto& [host, a] : agents_) n += a->lost.empty() && !a->greeted ? 1 : 0;
    return n;
  };
  for (;;) {
    while (next != hosts.end() && in_flight() < s_.fanout) {
      launch(next->first, next->second);
      ++next;
    }
    if (next == hosts.end() && in_flight() == 0) break;
    pump(100);
    const auto now = Clock::now();
    for (auto& [host, a] : agents_)
      if (a->lost.empty() && !a->greeted &&
          now - a->launched > std::chrono::duration<double>(s_.hello_timeout_s))
        lose(*a, "no hello within " + seconds_text(s_.hello_timeout_s) + " s of its launch");
  }
  std::map<std::string, std::string> failed;
  for (const auto& [host, h] : hosts)
    if (const std::string why = lost(host); !why.empty()) failed[host] = why;
  return failed;
}

nlohmann::json AgentHub::hello(const std::string& host) const {
  auto it = agents_.find(host);
  return it == agents_.end() ? nlohmann::json() : it->second->hello;
}

std::map<std::string, std::string> AgentHub::lost_after_hello() const {
  std::map<std::string, std::string> out;
  for (const auto& [host, a] : agents_)
    if (a->greeted && !a->lost.empty()) out[host] = a->lost;
  return out;
}

std::string AgentHub::lost(const std::string& host) const {
  auto it = agents_.find(host);
  if (it == agents_.end()) return "no agent was started there";
  return it->second->lost;
}

void AgentHub::pump(int timeout_ms) {
  // One poll over every agent's pipes; only the agents with news are read (a thousand agents
  // send a thousand heartbeats a second: each wake-up must not cost a pass over all of them).
  std::vector<pollfd> fds;
  std::vector<Agent*> owner;
  fds.reserve(2 * agents_.size());
  owner.reserve(2 * agents_.size());
  for (auto& [host, a] : agents_) {
    if (!a->launch) continue;
    for (const int fd : {a->launch->process().out_fd(), a->launch->process().err_fd()})
      if (fd >= 0) {
        fds.push_back({fd, POLLIN, 0});
        owner.push_back(a.get());
      }
  }
  const int n = fds.empty() ? (timeout_ms > 0 ? ::poll(nullptr, 0, timeout_ms), 0 : 0)
                            : ::poll(fds.data(), fds.size(), timeout_ms);
  bool hung_up = false;
  for (size_t i = 0; n > 0 && i < fds.size(); ++i) {
    if (fds[i].revents == 0) continue;
    hung_up = hung_up || (fds[i].revents & (POLLHUP | POLLERR)) != 0;
    Agent& a = *owner[i];
    a.launch->process().read_available();
    take_in(a);
  }
  // Exits and silences: when a pipe closed, and once a second.
  const auto now = Clock::now();
  if (!hung_up && now - last_sweep_ < std::chrono::seconds(1)) return;
  last_sweep_ = now;
  for (auto& [host, a] : agents_) {
    if (!a->launch) continue;
    if (!a->lost.empty()) {
      a->launch->running();  // reaped once it ends
      continue;
    }
    if (!a->launch->running() && a->launch->output_closed()) {
      take_in(*a);
      lose(*a, "its launch ended (" + a->launch->status_text() + ")");
    } else if (a->greeted &&
               now - a->last_heard > std::chrono::duration<double>(s_.heartbeat_timeout_s)) {
      lose(*a, "no heartbeat for " + seconds_text(s_.heartbeat_timeout_s) + " s");
    }
  }
}

void AgentHub::take_in(Agent& a) {
  Child& c = a.launch->process();
  if (std::string e = c.take_err(); !e.empty()) {
    a.err_tail += e;
    if (a.err_tail.size() > 4096) a.err_tail.erase(0, a.err_tail.size() - 4096);
  }
  const std::string bytes = c.take_out();
  if (bytes.empty() || !a.lost.empty()) return;
  a.reader.feed(bytes);
  a.last_heard = Clock::now();
  try {
    while (a.lost.empty()) {
      if (!a.data_for.is_null()) {
        std::optional<std::string> bytes = a.reader.next_raw();
        if (!bytes) break;
        if (AgentJob* j = job_of(a.jobs, a.data_for))
          a.data_for["type"] == proto::kOut ? j->append_out(*bytes) : j->append_err(*bytes);
        a.data_for = nullptr;
        continue;
      }
      nlohmann::json m = a.reader.next();
      if (m.is_null()) break;
      handle(a, m);
    }
  } catch (const Error& e) {
    lose(a, std::string("it broke the protocol: ") + e.what());
  }
}

void AgentHub::handle(Agent& a, const nlohmann::json& m) {
  const std::string type = m.value("type", "");
  if (type == "error") {
    lose(a, "it refused the controller: " + m.value("message", std::string("(no reason)")));
  } else if (!a.greeted) {
    if (type == proto::kChallenge) {
      const std::string theirs = m.value("nonce", "");
      a.hello = {{"nonce", theirs}};  // kept for the hello's proof
      send(a, {{"type", proto::kAuth},
               {"nonce", a.nonce},
               {"proof", proto::proof(token_, "controller", theirs, a.nonce)}});
    } else if (type == proto::kHello) {
      const std::string theirs = a.hello.value("nonce", "");
      if (theirs.empty() || !proto::same_proof(m.value("proof", ""),
                                               proto::proof(token_, "agent", theirs, a.nonce))) {
        lose(a, "its proof does not match: it does not hold this campaign's token");
        return;
      }
      a.hello = m;
      a.hello.erase("proof");
      a.hello.erase("type");
      a.greeted = true;
    } else {
      lose(a, "it sent '" + type + "' before its hello");
    }
  } else if (type == proto::kOut || type == proto::kErr) {
    a.data_for = m;  // its bytes: the next frame, raw
  } else if (type == proto::kExit) {
    if (AgentJob* j = job_of(a.jobs, m)) {
      a.jobs.erase(m["job"].get<uint64_t>());
      j->exited(m.value("status", -1), m.value("status_text", std::string("exited")));
    }
  }
  // heartbeat, time: taken in (last_heard) above.
}

uint64_t AgentHub::start_job(const std::string& host, AgentJob* job,
                             const std::vector<std::string>& argv) {
  Agent& a = at(host);
  if (!a.lost.empty()) throw Error("the agent on " + host + " was lost: " + a.lost);
  const uint64_t id = next_job_++;
  a.jobs[id] = job;
  send(a, {{"type", proto::kStart}, {"job", id}, {"argv", argv}});
  if (!a.lost.empty()) throw Error("the agent on " + host + " was lost: " + a.lost);
  return id;
}

void AgentHub::stop_job(const std::string& host, uint64_t id) {
  Agent& a = at(host);
  if (a.jobs.count(id) != 0) send(a, {{"type", proto::kStop}, {"job", id}});
}

void AgentHub::forget_job(const std::string& host, uint64_t id) {
  if (auto it = agents_.find(host); it != agents_.end()) it->second->jobs.erase(id);
}

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
