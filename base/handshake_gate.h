#pragma once
// The server's door: accepts connections continuously and reads each one's first message
// without blocking on any of them. A pending handshake holds at most a socket and a first frame
// of `max_first_frame` bytes, for at most `deadline`; the number pending is capped in total and
// per source address, the excess closed at once. A connection that sends garbage, an oversized
// frame or nothing in time is closed with a log line naming the peer. What comes out is a
// connection whose first message arrived whole, for the caller to authenticate.
// (Written by hand: a poll() loop over non-blocking sockets; no library in Debian fits.)
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "base/oob_channel.h"

namespace rdmabench {

struct HandshakeLimits {
  std::chrono::milliseconds deadline{3000};  // for the whole first message
  size_t max_pending = 32;                   // unauthenticated connections at once
  size_t max_per_source = 4;                 // of them from one address
  uint32_t max_first_frame = 64 * 1024;      // bytes of the first message
};

struct Arrival {
  OobChannel chan;  // blocking again, ready for the session
  nlohmann::json first;
};

class HandshakeGate {
 public:
  using Note = std::function<void(const std::string&)>;
  HandshakeGate(OobListener& listener, HandshakeLimits limits, Note note);
  HandshakeGate(const HandshakeGate&) = delete;
  HandshakeGate& operator=(const HandshakeGate&) = delete;
  ~HandshakeGate();

  // Accepts and reads for up to `wait`; returns the first connection whose first message is
  // complete, or nothing when none was within `wait`.
  std::optional<Arrival> next(std::chrono::milliseconds wait);
  size_t pending() const noexcept { return pending_.size(); }

  // Counters since construction (for logs and tests).
  struct Stats {
    uint64_t accepted = 0;
    uint64_t refused_cap = 0;  // over max_pending / max_per_source
    uint64_t timed_out = 0;
    uint64_t bad = 0;  // garbage, oversized, closed early
    uint64_t arrived = 0;
  };
  const Stats& stats() const noexcept { return stats_; }

 private:
  struct Pending {
    OobChannel chan;     // non-blocking while pending
    std::string source;  // address
    std::chrono::steady_clock::time_point deadline;
    std::vector<uint8_t> buf;  // header, then header + payload
    size_t want = kFrameHeaderBytes;
  };
  void accept_all();
  // Reads what is there; returns the message when complete, throws PeerError on bad input,
  // nullopt when more is needed.
  std::optional<nlohmann::json> read_some(Pending& p);
  void drop(size_t i, const std::string& why);

  OobListener& listener_;
  HandshakeLimits limits_;
  Note note_;
  std::vector<Pending> pending_;
  std::map<std::string, size_t> per_source_;
  Stats stats_;
};

}  // namespace rdmabench
