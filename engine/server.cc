// rdmabench server: the door (accept, read each hello without blocking, check the token) and
// the sessions behind it, several at once up to a cap.
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <list>
#include <memory>
#include <ostream>
#include <random>
#include <thread>

#include "base/clock.h"
#include "base/error.h"
#include "base/handshake_gate.h"
#include "base/oob_channel.h"
#include "base/version.h"
#include "engine/device_checks.h"
#include "engine/qp_settings.h"
#include "engine/server_session.h"
#include "engine/session.h"
#include "engine/session_messages.h"
#include "engine/session_resources.h"
#include "verbs/device.h"

namespace rdmabench {

uint64_t random_nonce() {
  std::random_device rd;
  uint64_t v = 0;
  while (v == 0) v = (uint64_t{rd()} << 32) | rd();
  return v;
}

namespace {

using std::chrono::milliseconds;

// Opens the device once up front so a wrong name fails now, not at the first client; returns
// the address to listen on ("" asked: the IPv4 address behind the port's RoCE GID).
std::string check_device_and_bind(const ServerOptions& opt) {
  Device d = Device::open(opt.local.device);
  const PortInfo& p = active_port(d, opt.local.port);
  const bool chosen = opt.local.gid_index >= 0 || !opt.local.gid.empty();
  const uint32_t gid =
      chosen ? choose_gid_index(p, opt.local.gid_index, opt.local.gid, "", GidType::kAuto) : 0;
  if (!opt.bind.empty()) return opt.bind;
  for (const auto& g : p.gids)
    if (!g.ipv4.empty() && (!chosen || g.index == gid)) return g.ipv4;
  return "";
}

// A session running on its own thread.
struct Running {
  OobChannel chan;
  std::thread thread;
  std::atomic<bool> done{false};
  int status = 0;
};

void refuse(OobChannel& chan, SessionLog& log, const std::string& why, const std::string& code) {
  log.line("refused " + chan.peer() + ": " + why);
  try {
    chan.send(to_message(ErrorMsg{why, code}));
  } catch (const std::exception&) {
  }
}

}  // namespace

int serve(const ServerOptions& opt, std::ostream& out, std::ostream& log_stream,
          const std::atomic<bool>& stop) {
  ServerOptions eff = opt;
  eff.bind = check_device_and_bind(opt);
  OobListener listener(eff.bind, opt.port);
  SessionLog log(log_stream);
  const Clock clock = Clock::calibrate();
  out << ServerReadyLine::kTag
      << to_message(ServerReadyLine{listener.address(), listener.port(), 0, opt.local.device,
                                    ::getpid(), kVersion})
             .dump()
      << std::endl;
  log.line("rdmabench server listening on " + listener.address() + ":" +
           std::to_string(listener.port()));
  HandshakeGate gate(listener, opt.handshake, [&log](const std::string& s) { log.line(s); });

  std::list<std::unique_ptr<Running>> running;
  size_t started = 0;  // authenticated sessions started (--sessions counts these)
  int status = 0;      // the first failed session's status
  const auto reap = [&] {
    for (auto it = running.begin(); it != running.end();) {
      if (!(*it)->done.load()) {
        ++it;
        continue;
      }
      (*it)->thread.join();
      if (status == 0) status = (*it)->status;
      it = running.erase(it);
    }
  };
  while (!stop.load()) {
    reap();
    if (opt.sessions != 0 && started >= opt.sessions && running.empty()) return status;
    std::optional<Arrival> a = gate.next(milliseconds(200));
    if (!a) continue;
    // The token first: nothing else of the hello is read, nothing is created, before it.
    try {
      if (a->first.value(kMessageType, std::string()) != HelloMsg::kType)
        throw PeerError("its first message is not a hello");
      if (hello_token(a->first) != opt.token)
        throw PeerError("the client's token does not match (use the same --token on both sides)");
    } catch (const PeerError& e) {
      refuse(a->chan, log, e.what(), "refused");
      continue;
    }
    if (opt.sessions != 0 && started >= opt.sessions) {
      refuse(a->chan, log,
             opt.sessions == 1
                 ? "the server is busy: it serves one session (--once) and that one has started"
                 : "the server is busy: it serves " + std::to_string(opt.sessions) +
                       " sessions (--sessions) and they have all started",
             "busy");
      continue;
    }
    if (running.size() >= opt.max_sessions) {
      refuse(a->chan, log,
             "the server is busy: " + std::to_string(running.size()) +
                 " sessions running, its limit (--max-sessions " +
                 std::to_string(opt.max_sessions) + ")",
             "busy");
      continue;
    }
    ++started;
    auto r = std::make_unique<Running>();
    r->chan = std::move(a->chan);
    Running* raw = r.get();
    r->thread = std::thread([raw, hello = std::move(a->first), &eff, &clock, &log] {
      raw->status = run_server_session(eff, raw->chan, hello, clock, log);
      raw->done.store(true);
    });
    running.push_back(std::move(r));
  }
  // Stopped: sessions still running end on their own (their clients' timeouts bound them).
  for (auto& r : running) r->thread.join();
  return 0;
}

}  // namespace rdmabench
