#pragma once
// Connection through librdmacm (--connect rdma_cm; iWARP's only way): the client resolves the
// server's address and route and connects every QP (its index as private data); the server
// listens and accepts them, creating each QP on the cm_id of its request. The QPs' cm_ids (in
// QueuePairs) come from this object's event channel. Setup path only.
#include <chrono>
#include <cstdint>
#include <string>

#include "harness/cm.h"
#include "workloads/queue_pairs.h"

namespace rdmabench {

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
  // or for a QP already connected is rejected and counted (rejected()), never the session's end:
  // anything can reach the listening port.
  void accept_all(QueuePairs& qps, int rd_atomic, uint64_t nonce,
                  std::chrono::milliseconds timeout);
  uint64_t rejected() const noexcept { return rejected_; }

 private:
  CmDeviceContext dev_;
  CmChannelPtr channel_;
  CmIdPtr listener_;
  uint64_t rejected_ = 0;
};

}  // namespace rdmabench
