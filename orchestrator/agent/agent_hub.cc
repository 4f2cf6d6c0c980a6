#include "orchestrator/agent/agent_hub.h"

#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "base/error.h"
#include "base/utc_time.h"
#include "base/version.h"
#include "orchestrator/agent/agent_hub_state.h"
#include "orchestrator/launch/job_output.h"

namespace rdmabench {

using Clock = std::chrono::steady_clock;
namespace proto = agent;

namespace {

AgentJob* job_of(const std::map<uint64_t, AgentJob*>& jobs, const nlohmann::json& m) {
  if (!m.contains("job") || !m["job"].is_number_unsigned()) return nullptr;
  auto it = jobs.find(m["job"].get<uint64_t>());
  return it == jobs.end() ? nullptr : it->second;
}

// Writes all of `data` to a connected socket (blocking); false when the peer is gone.
bool write_all(int fd, const std::string& data) {
  size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = ::send(fd, data.data() + done, data.size() - done, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

}  // namespace

AgentHub::AgentHub(std::string token, AgentHubSettings s) : token_(std::move(token)), s_(s) {}

AgentHub::~AgentHub() {
  std::vector<Job*> launches;
  for (auto& [host, a] : agents_) {
    for (auto& [id, j] : a->jobs) j->exited(255, "the campaign ended");
    a->jobs.clear();
    if (a->lost.empty()) send(*a, {{"type", proto::kBye}});
    // The agents end their sessions and exit on bye, or at the end of their input.
    if (a->launch) {
      a->launch->process().close_stdin();
      launches.push_back(a->launch.get());
    }
    a->conn.close();
  }
  pending_.clear();
  // A step ends once its agents have (they were told bye); cancelled if it has not in 5 s.
  const auto deadline = Clock::now() + std::chrono::seconds(5);
  for (auto& st : steps_)
    while (st->job && st->job->running() && Clock::now() < deadline)
      pump_jobs({st->job.get()}, 100);
  for (auto& st : steps_)
    if (st->job) launches.push_back(st->job.get());
  stop_all(launches, 5.0);
}

AgentHub::Agent& AgentHub::at(const std::string& host) {
  auto it = agents_.find(host);
  if (it == agents_.end()) throw Error("no agent was started on " + host);
  return *it->second;
}

void AgentHub::send(Agent& a, const nlohmann::json& m) {
  if (!a.lost.empty() || !a.connected()) return;
  const std::string frames = proto::encode_message(m);
  const bool sent =
      a.launch ? a.launch->process().write_stdin(frames) : write_all(a.conn.fd(), frames);
  if (!sent) lose(a, "its control connection closed");
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
  a.conn.close();
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

// Each agent costs the controller up to three descriptors (a launch's stdin, stdout and stderr
// pipes, or one socket), and the sweep has its own files besides: the soft limit is raised as
// far as that needs (up to the hard one).
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
  std::map<std::string, Host> launched_one_by_one;
  for (const auto& [host, h] : hosts)
    if (!agents_connect_back(*h.launcher)) launched_one_by_one.emplace(host, h);
  start_steps(hosts);
  auto next = launched_one_by_one.begin();
  const auto in_flight = [&] {
    size_t n = 0;
    for (auto& [host, a] : agents_) n += a->lost.empty() && !a->greeted && a->launch ? 1 : 0;
    return n;
  };
  const auto waiting = [&] {
    return std::any_of(agents_.begin(), agents_.end(),
                       [](const auto& e) { return e.second->lost.empty() && !e.second->greeted; });
  };
  for (bool retried = false;;) {
    while (next != launched_one_by_one.end() && in_flight() < s_.fanout) {
      launch(next->first, next->second);
      ++next;
    }
    if (next == launched_one_by_one.end() && !waiting()) {
      if (retried || !restart_failed_steps(hosts)) break;
      retried = true;
    }
    pump(100);
    const auto now = Clock::now();
    for (auto& [host, a] : agents_)
      if (a->lost.empty() && !a->greeted &&
          now - a->launched > std::chrono::duration<double>(s_.hello_timeout_s))
        lose(*a, "no hello within " + seconds_text(s_.hello_timeout_s) + " s of its launch");
  }
  pending_.clear();  // connections that never proved themselves
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
  // One poll over every connection (and the listener, the steps' pipes); only the agents with
  // news are read (a thousand agents send a thousand heartbeats a second: each wake-up must not
  // cost a pass over all of them).
  std::vector<pollfd> fds;
  std::vector<Agent*> owner;  // null: the listener or a step's pipe
  fds.reserve(2 * agents_.size() + pending_.size() + 1);
  owner.reserve(fds.capacity());
  const auto watch = [&](int fd, Agent* a) {
    if (fd < 0) return;
    fds.push_back({fd, POLLIN, 0});
    owner.push_back(a);
  };
  if (listener_) watch(listener_->fd(), nullptr);
  for (auto& st : steps_)
    if (!st->ended) {
      watch(st->job->process().out_fd(), nullptr);
      watch(st->job->process().err_fd(), nullptr);
    }
  for (auto& a : pending_) watch(a->conn.fd(), a.get());
  for (auto& [host, a] : agents_) {
    if (a->launch) {
      watch(a->launch->process().out_fd(), a.get());
      watch(a->launch->process().err_fd(), a.get());
    } else {
      watch(a->conn.fd(), a.get());
    }
  }
  const int n = fds.empty() ? (timeout_ms > 0 ? ::poll(nullptr, 0, timeout_ms), 0 : 0)
                            : ::poll(fds.data(), fds.size(), timeout_ms);
  bool hung_up = false, others = false;
  for (size_t i = 0; n > 0 && i < fds.size(); ++i) {
    if (fds[i].revents == 0) continue;
    hung_up = hung_up || (fds[i].revents & (POLLHUP | POLLERR)) != 0;
    Agent* a = owner[i];
    if (a == nullptr) {
      others = true;
      continue;
    }
    a->read_at = realtime_unix_s();
    if (a->launch) {
      a->launch->process().read_available();
      keep_tail(a->err_tail, a->launch->process().take_err());
      take_in(*a, a->launch->process().take_out());
    } else {
      read_connection(*a);
    }
  }
  if (others) accept_all();
  // Connections that were refused, or never said hello in time.
  const auto now = Clock::now();
  std::erase_if(pending_, [&](const std::unique_ptr<Agent>& a) {
    return !a || !a->lost.empty() ||
           now - a->launched > std::chrono::duration<double>(s_.hello_timeout_s);
  });
  // Exits and silences: when a pipe closed, and once a second.
  if (!hung_up && !others && now - last_sweep_ < std::chrono::seconds(1)) return;
  last_sweep_ = now;
  check_exits_and_silences();
}

void AgentHub::check_exits_and_silences() {
  const auto now = Clock::now();
  for (size_t i = 0; i < steps_.size(); ++i) {
    Step& st = *steps_[i];
    if (st.ended || !st.job || st.job->running() || !st.job->output_closed()) continue;
    st.ended = true;
    std::string tail = st.job->process().err() + st.job->process().out();
    for (std::string less = without_tagged_line(tail, kStepTag); less != tail;
         less = without_tagged_line(tail, kStepTag))
      tail = less;  // every agent's "RDMABENCH_STEP" line
    if (tail.size() > 2048) tail.erase(0, tail.size() - 2048);
    while (!tail.empty() && (tail.back() == '\n' || tail.back() == ' ')) tail.pop_back();
    const std::string id = st.job->step();
    const std::string why = "its job step " + (id.empty() ? "" : id + " ") + "ended (" +
                            st.job->status_text() + ") before the agent connected" +
                            (tail.empty() ? "" : " (srun: " + tail + ")");
    for (auto& [host, a] : agents_)
      if (a->step == static_cast<int>(i) && !a->greeted && a->lost.empty()) lose(*a, why);
  }
  for (auto& [host, a] : agents_) {
    if (!a->lost.empty()) {
      if (a->launch) a->launch->running();  // reaped once it ends
      continue;
    }
    if (a->launch && !a->launch->running() && a->launch->output_closed()) {
      take_in(*a, a->launch->process().take_out());
      lose(*a, "its launch ended (" + a->launch->status_text() + ")");
    } else if (a->greeted &&
               now - a->last_heard > std::chrono::duration<double>(s_.heartbeat_timeout_s)) {
      lose(*a, "no heartbeat for " + seconds_text(s_.heartbeat_timeout_s) + " s");
    }
  }
}

void AgentHub::take_in(Agent& a, const std::string& bytes) {
  if (bytes.empty() || !a.lost.empty()) return;
  a.reader.feed(bytes);
  a.last_heard = Clock::now();
  try {
    while (a.lost.empty()) {
      if (!a.data_for.is_null()) {
        std::optional<std::string> raw = a.reader.next_raw();
        if (!raw) break;
        if (AgentJob* j = job_of(a.jobs, a.data_for))
          a.data_for["type"] == proto::kOut ? j->append_out(*raw) : j->append_err(*raw);
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
      // One version everywhere: the session protocol and the result documents follow it.
      if (const std::string v = a.hello.value("version", ""); v != kVersion) {
        lose(a, "it is rdmabench " + v + ", this controller is rdmabench " + kVersion +
                    ": install the same version on every host");
        return;
      }
      a.greeted = true;
      if (a.host.empty()) adopt(a);  // a connection that came in: whose is it?
    } else {
      lose(a, "it sent '" + type + "' before its hello");
    }
  } else if (type == proto::kOut || type == proto::kErr) {
    a.data_for = m;  // its bytes: the next frame, raw
  } else if (type == proto::kTime) {
    if (a.time_seq != 0 && m.value("seq", uint64_t{0}) == a.time_seq && m.contains("t") &&
        m["t"].is_number()) {
      a.clock_samples.push_back({a.time_sent, m["t"].get<double>(), a.read_at});
      a.time_seq = 0;
    }
  } else if (type == proto::kBrief) {
    if (AgentJob* j = job_of(a.jobs, m)) j->set_brief(brief_from_json(m));
  } else if (type == proto::kExit) {
    if (AgentJob* j = job_of(a.jobs, m)) {
      a.jobs.erase(m["job"].get<uint64_t>());
      j->exited(m.value("status", -1), m.value("status_text", std::string("exited")));
    }
  }
  // heartbeat: taken in (last_heard) above.
}

std::map<std::string, ClockOffset> AgentHub::measure_clocks(unsigned samples, double timeout_s) {
  const auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                           std::chrono::duration<double>(timeout_s));
  uint64_t seq = 0;
  for (auto& [host, a] : agents_) a->clock_samples.clear();
  for (unsigned k = 0; k < samples && Clock::now() < deadline; ++k) {
    // One exchange with every agent at once; the next once all have answered (or the deadline).
    for (auto& [host, a] : agents_) {
      if (!a->greeted || !a->lost.empty()) continue;
      a->time_seq = ++seq;
      a->time_sent = realtime_unix_s();
      send(*a, {{"type", proto::kTime}, {"seq", a->time_seq}});
    }
    const auto waiting = [&] {
      return std::any_of(agents_.begin(), agents_.end(), [](const auto& e) {
        return e.second->time_seq != 0 && e.second->lost.empty();
      });
    };
    while (waiting() && Clock::now() < deadline) pump(50);
  }
  std::map<std::string, ClockOffset> out;
  for (auto& [host, a] : agents_) {
    a->time_seq = 0;
    if (auto best = best_offset(a->clock_samples)) out[host] = *best;
  }
  return out;
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

}  // namespace rdmabench
