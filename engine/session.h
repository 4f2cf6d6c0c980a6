#pragma once
// A test session over the out-of-band channel: the client drives (hello, endpoints, ready, then
// start/finish/result per message size, bye); the server follows. The whole workload travels in
// the hello, so the server needs only its local settings.
#include <atomic>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <optional>
#include <string>

#include "base/handshake_gate.h"
#include "engine/local_host.h"
#include "engine/session_resources.h"
#include "model/result.h"
#include "model/workload.h"

namespace rdmabench {

inline constexpr uint16_t kDefaultPort = 18515;

struct ClientOptions {
  std::string server;
  uint16_t port = kDefaultPort;
  LocalSettings local;
  Workload workload;
  std::string token;
  double histogram_error = 0.01;  // latency histogram precision (relative error)
  // Unix seconds on this host's realtime clock: once connected and the server has started the
  // first size, its workers wait until then (a fabric round's synchronised start); how long it
  // waited, or how late it was, goes to the result's setup.start. nullopt: start at once.
  std::optional<double> start_at;
  // --run-infinitely: a flag (set by the signal handler) that ends the measurement; the run then
  // finishes as if its time were up. nullptr: none.
  const std::atomic<bool>* stop = nullptr;
};

// Runs the workload against a server. Never throws for a failure after the handshake started:
// the error is in RunResult::error (and the failing size's error). Throws ConfigError for an
// invalid workload, before anything is created.
// `on_interval` (--interval): each interval of a size as it closes, with the size.
RunResult run_client(const ClientOptions& opt,
                     const std::function<void(const SizeResult&)>& on_size,
                     const std::function<void(uint64_t, const IntervalResult&)>& on_interval = {});

struct ServerOptions {
  LocalSettings local;
  std::string bind;  // "" = the address of the device's GID, else all interfaces
  uint16_t port = kDefaultPort;
  size_t sessions =
      0;  // 0: serve until stopped; N (--sessions N, --once = 1): N sessions, then exit
  std::string token;
  HandshakeLimits handshake;  // the door: deadline and caps of unauthenticated connections
  size_t max_sessions = 16;   // sessions served at once; more are told "busy"
  // This side's placement (server --cpus / --numa), whatever the client's workload says: the
  // client's cpus and numa are the client's.
  std::vector<int> cpus;
  int32_t numa = Workload::kNumaNone;
};

// Serves sessions until `stop` is set: connections are accepted continuously and each one's
// hello read without blocking the others (base/handshake_gate.h); the token is checked on
// the hello before anything else; up to `max_sessions` sessions run at once, each on its own
// thread, and a client beyond that is told at once that the server is busy. With `sessions` N,
// the first N authenticated sessions are the only ones (a fabric round's server serves its N
// clients at once; --once is N = 1): later clients are told busy, and the server returns when
// they have all ended (a refused or dropped connection never counts). Prints the ready line on
// `out` once listening. Returns 0, or the first failed session's status (1) with `sessions`.
int serve(const ServerOptions& opt, std::ostream& out, std::ostream& log,
          const std::atomic<bool>& stop);

}  // namespace rdmabench
