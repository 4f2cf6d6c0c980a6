#pragma once
// Connection through librdmacm (--connect rdma_cm; iWARP's only way): the client resolves the
// server's address and route and connects every QP (its index as private data); the server
// listens and accepts them, creating each QP on the cm_id of its request. The QPs' cm_ids (in
// QueuePairs) come from this object's event channel. Setup path only.
#include <chrono>
#include <cstdint>
#include <map>
#include <string>

#include "engine/queue_pairs.h"
#include "verbs/cm.h"

namespace rdmabench {

// The connect requests a listener turned away: how many, and from which address for which
// reason (what the server's log names). At most kMaxNamed distinct peer/reason pairs are kept;
// the rest are only counted, so a flood cannot grow it.
struct CmRejections {
  static constexpr size_t kMaxNamed = 16;
  uint64_t total = 0;
  std::map<std::string, uint64_t> named;  // "ADDRESS (reason)" -> requests
  void add(const std::string& peer_and_reason);
  // "198.18.0.1 (no session nonce) x2, 198.18.0.1 (wrong nonce)" (+ ", N more" beyond the cap).
  std::string describe() const;
};

// What rdma_cm lets a side choose of its connections (the rest it takes from the route and the
// CM exchange): the traffic class and the local ACK timeout (rdma_set_option), the retry counts
// (the connection parameters). The defaults are rdmabench's usual values.
struct CmSettings {
  uint8_t tos = 0;
  uint8_t ack_timeout = 14;
  uint8_t retry_count = 7;
  uint8_t rnr_retry = 7;
};

class CmConnection {
 public:
  // librdmacm's context for `device` ("" = the first) and an event channel.
  explicit CmConnection(const std::string& device);
  CmConnection(const CmConnection&) = delete;
  CmConnection& operator=(const CmConnection&) = delete;

  // The device context the QPs must be created on (the cm_ids carry this one).
  ibv_context* context() const noexcept { return dev_.ctx; }

  // Client: connects every QP of `qps` to the server's CM port, offering `rd_atomic` reads and
  // atomics in flight both ways. Each request carries the QP's index and the session's `nonce`
  // (from the server's accept message) as private data.
  void connect(QueuePairs& qps, int rd_atomic, const std::string& server_addr, uint16_t cm_port,
               uint64_t nonce, std::chrono::milliseconds timeout);
  // Server: listens on `bind_addr` ("" = any) : `cm_port` (0 = any free port); returns the port.
  uint16_t listen(const std::string& bind_addr, uint16_t cm_port);
  // Accepts one connection per QP. A request without the session's `nonce`, with a bad index
  // or for a QP already connected is rejected and recorded with its peer's address (rejected()),
  // never the session's end: anything can reach the listening port.
  void accept_all(QueuePairs& qps, int rd_atomic, uint64_t nonce,
                  std::chrono::milliseconds timeout);
  const CmRejections& rejected() const noexcept { return rejected_; }
  // Applied to every connection made or accepted from now on (the listener's TOS at listen()).
  void set_settings(const CmSettings& s) noexcept { settings_ = s; }

 private:
  void apply_settings(rdma_cm_id* id, const std::string& where, bool timeout) const;
  CmSettings settings_;
  CmDeviceContext dev_;
  CmChannelPtr channel_;
  CmIdPtr listener_;
  CmRejections rejected_;
};

}  // namespace rdmabench
