#include <unistd.h>

#include <cerrno>
#include <charconv>

#include "base/error.h"
#include "orchestrator/agent/agent_hub.h"
#include "orchestrator/agent/agent_hub_state.h"

// The agents that connect back (slurm): one job step per rdmabench path starts them all, each
// dials the address the hub listens on, and a connection becomes a host's once its hello proves
// the token and names that host (SLURMD_NODENAME there).
namespace rdmabench {

using Clock = std::chrono::steady_clock;

namespace {

// "HOST" and its port from "HOST" or "HOST:PORT" ("[V6]:PORT" for an IPv6 literal); port 0 when
// none is given. Throws ConfigError naming the value.
std::pair<std::string, uint16_t> split_listen(const std::string& listen,
                                              const std::string& field = "/fabric/agent_listen") {
  const auto bad = [&] {
    return ConfigError(field, listen,
                       "\"auto\", a host name or address the agents can reach, or HOST:PORT "
                       "(PORT 1-65535; [ADDRESS]:PORT for IPv6)");
  };
  if (listen.empty()) throw bad();
  std::string host = listen, port_text;
  if (listen.front() == '[') {
    const size_t close = listen.find(']');
    if (close == std::string::npos) throw bad();
    host = listen.substr(1, close - 1);
    if (close + 1 < listen.size()) {
      if (listen[close + 1] != ':') throw bad();
      port_text = listen.substr(close + 2);
    }
  } else if (const size_t colon = listen.rfind(':'); colon != std::string::npos) {
    if (listen.find(':') != colon) throw bad();  // an IPv6 literal needs its brackets
    host = listen.substr(0, colon);
    port_text = listen.substr(colon + 1);
  }
  if (host.empty() || host.find_first_of(" \t\n/") != std::string::npos) throw bad();
  unsigned port = 0;
  if (listen.back() == ':') throw bad();
  if (!port_text.empty()) {
    const auto [end, ec] =
        std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
    if (ec != std::errc() || end != port_text.data() + port_text.size() || port < 1 || port > 65535)
      throw bad();
  }
  return {host, static_cast<uint16_t>(port)};
}

std::string this_host_name() {
  char buf[256] = {};
  if (::gethostname(buf, sizeof buf - 1) != 0 || buf[0] == '\0')
    throw Error(std::string("cannot read this machine's host name for the agents to connect "
                            "to: ") +
                std::strerror(errno) + " (set fabric.agent_listen to HOST or HOST:PORT)");
  return buf;
}

}  // namespace

uint16_t AgentHub::listen_port(const std::string& listen, const std::string& field) {
  return listen == "auto" ? 0 : split_listen(listen, field).second;
}

std::string AgentHub::connect_address_for(const std::string& listen, uint16_t port) {
  const std::string host = listen == "auto" ? this_host_name() : split_listen(listen).first;
  const bool v6 = host.find(':') != std::string::npos;
  return (v6 ? "[" + host + "]" : host) + ":" + std::to_string(port);
}

void AgentHub::start_steps(const std::map<std::string, Host>& hosts) {
  // One step per rdmabench path (one for a campaign whose nodes share it).
  std::map<std::string, std::vector<std::string>> by_path;
  Launcher* any = nullptr;
  for (const auto& [host, h] : hosts)
    if (agents_connect_back(*h.launcher)) {
      by_path[h.rdmabench].push_back(host);
      any = h.launcher;
    }
  for (const auto& [path, names] : by_path) start_step(*any, path, names);
}

void AgentHub::start_step(Launcher& l, const std::string& rdmabench,
                          const std::vector<std::string>& names) {
  if (!listener_) {
    // Every agent may dial at once: room for all of them in the queue of connections.
    listener_ = std::make_unique<OobListener>("", listen_port(s_.listen), 4096);
    address_ = connect_address_for(s_.listen, listener_->port());
  }
  const int index = static_cast<int>(steps_.size());
  auto st = std::make_unique<Step>();
  st->hosts = names.size();
  std::string why;
  try {
    st->job = l.start_agents_step(names, {rdmabench, "agent", "--connect", address_}, token_);
  } catch (const Error& e) {
    why = std::string("cannot start the agents' step: ") + e.what();
    st->ended = true;
  }
  steps_.push_back(std::move(st));
  for (const std::string& host : names) {
    auto a = std::make_unique<Agent>();
    a->host = host;
    a->step = index;
    a->launched = a->last_heard = Clock::now();
    a->lost = why;
    agents_[host] = std::move(a);
  }
}

bool AgentHub::restart_failed_steps(const std::map<std::string, Host>& hosts) {
  // Slurm does not launch a step on some of its nodes when one cannot start its task (its slurmd
  // gone, a node failing): the agents of such a step are started again one step per node, so a
  // bad node costs only itself. Once: a one-node step is never retried.
  std::vector<std::string> again;
  for (const auto& [host, h] : hosts) {
    auto it = agents_.find(host);
    if (!agents_connect_back(*h.launcher) || it == agents_.end() || it->second->lost.empty() ||
        it->second->step < 0 || steps_[static_cast<size_t>(it->second->step)]->hosts < 2)
      continue;
    again.push_back(host);
  }
  for (const std::string& host : again) {
    const Host& h = hosts.at(host);
    start_step(*h.launcher, h.rdmabench, {host});
  }
  return !again.empty();
}

std::vector<std::string> AgentHub::steps() const {
  std::vector<std::string> out;
  for (const auto& st : steps_)
    if (std::string id = st->job ? st->job->step() : ""; !id.empty()) out.push_back(std::move(id));
  return out;
}

std::string AgentHub::step_of(const std::string& host) const {
  auto it = agents_.find(host);
  if (it == agents_.end() || it->second->step < 0) return "";
  const Step& st = *steps_.at(static_cast<size_t>(it->second->step));
  return st.job ? st.job->step() : "";
}

void AgentHub::accept_all() {
  // (A step's output stays in its process: its first lines name the step, and srun says little.)
  for (auto& st : steps_)
    if (!st->ended) st->job->process().read_available();  // (ended when it has no job)
  if (!listener_) return;
  for (;;) {
    OobChannel c = listener_->accept(std::chrono::milliseconds(0));
    if (c.fd() < 0) return;
    // At most one connection per expected host waits for its hello: more is a flood.
    if (pending_.size() >= agents_.size() + 16) continue;  // closed (c's destructor)
    auto a = std::make_unique<Agent>();
    a->conn = std::move(c);
    a->nonce = agent::new_nonce();
    a->launched = a->last_heard = Clock::now();
    pending_.push_back(std::move(a));
  }
}

void AgentHub::read_connection(Agent& a) {
  char buf[65536];
  const ssize_t n = ::read(a.conn.fd(), buf, sizeof buf);
  if (n > 0) {
    take_in(a, std::string(buf, static_cast<size_t>(n)));
  } else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
    lose(a, n == 0 ? "its connection closed"
                   : std::string("its connection broke: ") + std::strerror(errno));
  }
}

void AgentHub::adopt(Agent& a) {
  const std::string host = a.hello.value("host", "");
  auto it = agents_.find(host);
  const bool expected = it != agents_.end() && it->second->step >= 0 && !it->second->connected() &&
                        it->second->lost.empty();
  if (!expected) {
    send(a, {{"type", "error"},
             {"code", "refused"},
             {"message", "'" + host +
                             "' is not a host of this campaign waiting for its agent (or its "
                             "agent is already connected)"}});
    lose(a, "it named a host not waiting for its agent: '" + host + "'");
    return;
  }
  for (auto& p : pending_)
    if (p.get() == &a) {
      a.host = host;
      a.step = it->second->step;
      it->second = std::move(p);  // the placeholder goes; `a` lives on as the host's agent
      return;
    }
}

}  // namespace rdmabench
