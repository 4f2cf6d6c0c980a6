#pragma once
// What the server's door (server.cc) hands a session: one authenticated client's channel and
// hello, run to the end on a thread of its own (session_server.cc), logging through a log that
// sessions running side by side share.
#include <cstdint>
#include <mutex>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>

#include "base/clock.h"
#include "base/oob_channel.h"
#include "engine/session.h"

namespace rdmabench {

// One line at a time, whole, from any thread.
class SessionLog {
 public:
  explicit SessionLog(std::ostream& out) : out_(out) {}
  void line(const std::string& text) {
    const std::lock_guard<std::mutex> lock(mu_);
    out_ << text << std::endl;
  }

 private:
  std::ostream& out_;
  std::mutex mu_;
};

// A random 64-bit value (std::random_device), never 0.
uint64_t random_nonce();

// Runs the session of an authenticated client whose hello is `hello`. Returns 0 when it ended
// well, 1 when it failed (logged, and told to the client when the channel still works).
int run_server_session(const ServerOptions& opt, OobChannel& chan, const nlohmann::json& hello,
                       const Clock& clock, SessionLog& log);

}  // namespace rdmabench
