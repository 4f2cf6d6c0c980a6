#include "orchestrator/agent/agent.h"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <map>

#include "base/error.h"
#include "base/utc_time.h"
#include "orchestrator/agent/agent_protocol.h"
#include "orchestrator/launch/result_brief.h"

namespace rdmabench::agent {
namespace {

using Clock = std::chrono::steady_clock;

// The agent's end of the connection: frames out (blocking writes), frames in (non-blocking).
class Connection {
 public:
  Connection(int in_fd, int out_fd) : in_(in_fd), out_(out_fd) {
    ::fcntl(in_, F_SETFL, ::fcntl(in_, F_GETFL) | O_NONBLOCK);
  }
  // False when the controller is gone.
  bool send(const nlohmann::json& msg) { return send_frames(encode_message(msg)); }
  bool send_frames(const std::string& f) {
    size_t done = 0;
    while (done < f.size()) {
      const ssize_t n = ::write(out_, f.data() + done, f.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
        // A socket is both ends (--connect), non-blocking for reading: wait until it drains.
        pollfd p{out_, POLLOUT, 0};
        ::poll(&p, 1, 1000);
        continue;
      }
      if (n <= 0) return false;
      done += static_cast<size_t>(n);
    }
    return true;
  }
  // Reads what is there; false at end of file (or a read error).
  bool read() {
    char buf[65536];
    for (;;) {
      const ssize_t n = ::read(in_, buf, sizeof buf);
      if (n > 0) {
        reader.feed(std::string(buf, static_cast<size_t>(n)));
        continue;
      }
      if (n < 0 && errno == EINTR) continue;
      return n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);
    }
  }
  int in_fd() const { return in_; }
  FrameReader reader;

 private:
  int in_, out_;
};

// A session's news: its output (a message, then the bytes in a raw frame), or its exit.
std::string event_frames(const SessionEvent& e) {
  if (e.kind == SessionEvent::Kind::exit)
    return encode_message(
        {{"type", kExit}, {"job", e.job}, {"status", e.status}, {"status_text", e.status_text}});
  const char* type = e.kind == SessionEvent::Kind::out ? kOut : kErr;
  return encode_message({{"type", type}, {"job", e.job}, {"bytes", e.data.size()}}) +
         encode_raw(e.data);
}

// A session the agent will not run: its refusal as the session's stderr, and its exit.
bool refuse_job(Connection& c, uint64_t job, const std::string& why) {
  SessionEvent err;
  err.job = job;
  err.kind = SessionEvent::Kind::err;
  err.data = "rdmabench agent: " + why + "\n";
  return c.send_frames(event_frames(err)) &&
         c.send({{"type", kExit}, {"job", job}, {"status", 2}, {"status_text", "refused"}});
}

enum class Outcome { go_on, bye, refused, gone };

class Agent {
 public:
  Agent(const AgentOptions& opt, LocalSessions& s, Connection& c, std::ostream& log)
      : opt_(opt), sessions_(s), conn_(c), log_(log), nonce_(new_nonce()) {}

  int run() {
    if (!conn_.send({{"type", kChallenge}, {"nonce", nonce_}})) return 1;
    auto next_beat = Clock::now();
    std::vector<SessionEvent> events;
    for (;;) {
      const auto wait =
          std::chrono::duration_cast<std::chrono::milliseconds>(next_beat - Clock::now());
      events.clear();
      const bool readable = sessions_.wait(static_cast<int>(std::max<int64_t>(0, wait.count())),
                                           conn_.in_fd(), events);
      for (const SessionEvent& e : events)
        if (!conn_.send_frames(brief_frames(e) + event_frames(e)))
          return finish(1, "the controller's connection broke");
      // Anything sent says the agent is alive: the heartbeat is due a quiet interval later.
      if (!events.empty()) next_beat = beat_after_now();
      if (readable) {
        const bool open = conn_.read();
        Outcome o = Outcome::go_on;
        try {
          for (nlohmann::json m = conn_.reader.next(); !m.is_null() && o == Outcome::go_on;
               m = conn_.reader.next())
            o = handle(m);
        } catch (const PeerError& e) {
          return finish(2, std::string("bad message from the controller: ") + e.what());
        }
        if (o == Outcome::bye) return finish(0, "");
        if (o == Outcome::refused) return finish(2, "");
        if (o == Outcome::gone) return finish(1, "the controller's connection broke");
        if (!open) return finish(0, "");  // the controller is gone: end of file
      }
      if (Clock::now() >= next_beat) {
        if (authenticated_ && !conn_.send({{"type", kHeartbeat}}))
          return finish(1, "the controller's connection broke");
        next_beat = beat_after_now();
      }
    }
  }

 private:
  Clock::time_point beat_after_now() const {
    return Clock::now() + std::chrono::duration_cast<Clock::duration>(
                              std::chrono::duration<double>(opt_.heartbeat_s));
  }

  // A client session's output is kept until it exits; then its brief goes before its exit
  // (result_brief.h: the controller reads the brief, and stores the document as it came).
  std::string brief_frames(const SessionEvent& e) {
    const auto it = client_out_.find(e.job);
    if (it == client_out_.end()) return "";
    if (e.kind == SessionEvent::Kind::out) it->second += e.data;
    if (e.kind != SessionEvent::Kind::exit) return "";
    nlohmann::json m = to_json(brief_of_output(it->second));
    client_out_.erase(it);
    m["type"] = kBrief;
    m["job"] = e.job;
    return encode_message(m);
  }

  int finish(int status, const std::string& why) {
    if (!why.empty()) log_ << "rdmabench agent: " << why << "\n";
    sessions_.stop_all();
    return status;
  }

  Outcome refuse(const std::string& why) {
    log_ << "rdmabench agent: " << why << "\n";
    conn_.send({{"type", "error"}, {"code", "refused"}, {"message", why}});
    return Outcome::refused;
  }

  Outcome authenticate(const nlohmann::json& m) {
    const std::string type = m.value("type", "");
    if (type != kAuth) return refuse("expected the controller's auth first, got '" + type + "'");
    const std::string theirs = m.value("nonce", "");
    if (theirs.size() < 16 || theirs == nonce_) return refuse("the controller's nonce is invalid");
    if (!same_proof(m.value("proof", ""), proof(opt_.token, "controller", nonce_, theirs)))
      return refuse(
          "the controller's proof does not match: it does not hold this campaign's "
          "token (RDMABENCH_TOKEN)");
    nlohmann::json hello = opt_.facts;
    hello["type"] = kHello;
    hello["proof"] = proof(opt_.token, "agent", nonce_, theirs);
    authenticated_ = true;
    return conn_.send(hello) ? Outcome::go_on : Outcome::gone;
  }

  Outcome handle(const nlohmann::json& m) {
    if (!authenticated_) return authenticate(m);
    const std::string type = m.value("type", "");
    if (type == kStart) return start(m);
    if (type == kStop) {
      if (m.contains("job") && m["job"].is_number_unsigned())
        sessions_.stop(m["job"].get<uint64_t>());
      return Outcome::go_on;
    }
    if (type == kTime)
      return conn_.send({{"type", kTime}, {"seq", m.value("seq", 0)}, {"t", realtime_unix_s()}})
                 ? Outcome::go_on
                 : Outcome::gone;
    if (type == kBye) return Outcome::bye;
    if (type == kAuth) return refuse("a second controller's auth (one controller per agent)");
    return Outcome::go_on;  // heartbeat, or a type of a later version: ignored
  }

  Outcome start(const nlohmann::json& m) {
    if (!m.contains("job") || !m["job"].is_number_unsigned())
      return refuse("a start without a job number");
    const auto job = m["job"].get<uint64_t>();
    std::vector<std::string> argv;
    if (m.contains("argv") && m["argv"].is_array())
      for (const auto& a : m["argv"])
        if (a.is_string()) argv.push_back(a.get<std::string>());
    std::string why = session_argv_problem(argv, opt_.path_options);
    if (why.empty()) {
      try {
        sessions_.start(job, argv, opt_.token);
        if (argv.front() == "client") client_out_[job];
      } catch (const Error& e) {
        why = e.what();
      }
    }
    if (!why.empty() && !refuse_job(conn_, job, why)) return Outcome::gone;
    return Outcome::go_on;
  }

  const AgentOptions& opt_;
  LocalSessions& sessions_;
  Connection& conn_;
  std::ostream& log_;
  std::string nonce_;
  bool authenticated_ = false;
  std::map<uint64_t, std::string> client_out_;  // the running clients' output so far
};

}  // namespace

int run_agent(const AgentOptions& opt, LocalSessions& sessions, int in_fd, int out_fd,
              std::ostream& log) {
  Connection c(in_fd, out_fd);
  return Agent(opt, sessions, c, log).run();
}

}  // namespace rdmabench::agent
