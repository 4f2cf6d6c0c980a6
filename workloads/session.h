#pragma once
// A test session over the out-of-band channel: the client drives (hello, endpoints, ready, then
// start/finish/result per message size, bye); the server follows. The whole workload travels in
// the hello, so the server needs only its local settings.
#include <atomic>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <string>

#include "workloads/fabric.h"
#include "workloads/local_host.h"
#include "workloads/result.h"
#include "workloads/workload.h"

namespace rdmabench {

inline constexpr uint16_t kDefaultPort = 18515;

struct ClientOptions {
  std::string server;
  uint16_t port = kDefaultPort;
  LocalSettings local;
  Workload workload;
  std::string token;
  double histogram_error = 0.01;  // latency histogram precision (relative error)
};

// Runs the workload against a server. Never throws for a failure after the handshake started:
// the error is in RunResult::error (and the failing size's error). Throws ConfigError for an
// invalid workload, before anything is created.
RunResult run_client(const ClientOptions& opt,
                     const std::function<void(const SizeResult&)>& on_size);

struct ServerOptions {
  LocalSettings local;
  std::string bind;  // "" = the address of the device's GID, else all interfaces
  uint16_t port = kDefaultPort;
  bool once = false;
  std::string token;
};

// Serves sessions one after another until `stop` is set (or after one with `once`). Prints the
// ready line on `out` once listening. Returns 0, or 1 when `once` and the session failed.
int serve(const ServerOptions& opt, std::ostream& out, std::ostream& log,
          const std::atomic<bool>& stop);

}  // namespace rdmabench
