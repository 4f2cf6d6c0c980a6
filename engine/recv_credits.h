#pragma once
// Receive credits: flow control for SEND-type operations on transports without RNR retry
// (iWARP). On InfiniBand and RoCE a SEND that finds no posted receive is retried by the
// hardware (RNR NAK, rnr_retry 7 = forever); on iWARP the receiver terminates the connection.
// There, each side tells the other, by an RDMA WRITE of an 8-byte counter into a registered
// word, how many receives it has re-posted, and a sender keeps what it posted within the
// receives the peer posted at setup plus those re-posted since:
//   posted + n <= granted + window.
// A credit group is the set of QPs that share one receive queue: a QP with its own, or all QPs
// of a worker with a shared receive queue (SRQ). Both sides group alike (the QPs pair up in the
// same worker-major order). The counters run over the whole session (warm-up and every size).
#include <infiniband/verbs.h>

#include <cstddef>
#include <cstdint>
#include <memory>

#include "model/recv_credit_rules.h"
#include "verbs/verbs.h"

namespace rdmabench {

// wr_id of a credit write: this bit, and the group index in the low 32 bits. Data operations'
// wr_ids (slot | count << 32, count <= signal_every) never have it set.
inline constexpr uint64_t kCreditWrId = uint64_t{1} << 63;

struct CreditGroup {
  // Sender side.
  const volatile uint64_t* granted = nullptr;  // the peer's re-posted count (RDMA-written)
  uint64_t posted = 0;                         // sends posted to the group's receive queue
  uint64_t window = 0;                         // receives the peer posted at setup
  // Receiver side: one credit write in flight at most, on the group's first QP.
  uint64_t reposted = 0;       // receives re-posted
  uint64_t sent = 0;           // the count the last credit write carried
  uint64_t step = 1;           // write when the count advanced this much since the last write
  bool busy = false;           // a credit write is in flight
  uint64_t* source = nullptr;  // registered word the write sends (stable while in flight)
  ibv_qp* qp = nullptr;
  ibv_sge sge{};
  ibv_send_wr wr{};
};

// The registered words: per group a source word (our count, sent to the peer) and a granted
// word (the peer's count, written by it), each on its own cache line. Setup path only.
class CreditWords {
 public:
  CreditWords() = default;
  CreditWords(ibv_pd* pd, size_t groups);

  size_t groups() const noexcept { return groups_; }
  uint64_t* source(size_t g) const noexcept { return word(2 * g); }
  volatile uint64_t* granted(size_t g) const noexcept { return word(2 * g + 1); }
  uint32_t lkey() const noexcept { return mr_ ? mr_->lkey : 0; }
  uint32_t rkey() const noexcept { return mr_ ? mr_->rkey : 0; }

 private:
  static constexpr size_t kStride = 64 / sizeof(uint64_t);  // one word per cache line
  uint64_t* word(size_t i) const noexcept { return mem_.get() + i * kStride; }
  struct FreeAligned {
    void operator()(uint64_t* p) const noexcept;
  };
  std::unique_ptr<uint64_t, FreeAligned> mem_;
  size_t groups_ = 0;
  MrPtr mr_;
};

// A credit write could not be posted: the verb, its error and the QP.
[[noreturn, gnu::cold]] void throw_credit_post_error(const CreditGroup& g, int rc,
                                                     const char* phase);

}  // namespace rdmabench
