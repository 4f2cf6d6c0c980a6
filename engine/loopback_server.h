#pragma once
// An rdmabench server on a thread of this process, for a test against this host's own device
// (`rdmabench check --loopback`): it listens on an ephemeral port at the device's address, and
// stops and is joined when the object goes (RAII). Its session log is kept for the error text.
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>

#include "engine/session.h"

namespace rdmabench {

class LoopbackServer {
 public:
  // Starts serving `opt` (its port is replaced by an ephemeral one) and waits, up to
  // `timeout_s`, for it to listen. Throws Error with the server's own message when it cannot
  // start (a bad device or port: ConfigError, as the server command would).
  LoopbackServer(ServerOptions opt, double timeout_s);
  LoopbackServer(const LoopbackServer&) = delete;
  LoopbackServer& operator=(const LoopbackServer&) = delete;
  ~LoopbackServer();

  const std::string& address() const noexcept { return address_; }
  uint16_t port() const noexcept { return port_; }

 private:
  struct Shared;
  std::shared_ptr<Shared> shared_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
  std::string address_;
  uint16_t port_ = 0;
};

}  // namespace rdmabench
