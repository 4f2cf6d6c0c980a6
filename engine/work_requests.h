#pragma once
// A QP's prebuilt work requests, the ones the datapath posts (worker_context.h, QpSlot): built
// from plain values (buffer addresses, keys, the peer's region, op, QP type, size, SGE count,
// post list) by pure functions, at setup and per message size, never in the loop. Unit-tested
// without a device (tests/unit/work_requests_test.cc).
#include <infiniband/verbs.h>

#include <cstddef>
#include <cstdint>

#include "engine/worker_context.h"
#include "model/workload.h"

namespace rdmabench {

inline constexpr uint32_t kUdQkey = 0x11111111;
inline constexpr uint32_t kUdGrh = 40;  // a UD receive starts with the 40-byte GRH
// Compare-and-swap: what the target holds and what the requester compares and swaps in.
inline constexpr uint64_t kCasPattern = 0x0123456789abcdefULL;
// Fetch-and-add: what each operation adds.
inline constexpr uint64_t kFetchAddStep = 1;

ibv_wr_opcode opcode_of(Op op) noexcept;

// Sizes and links the slot's work requests: `post_list` chained sends and receives, each
// pointing at the shared `sge` entries.
void shape_slot(QpSlot& q, uint32_t post_list, uint32_t sge);

// Everything one QP's work requests depend on.
struct WorkRequestSpec {
  Op op = Op::kWrite;
  QpType qp_type = QpType::kRc;
  uint64_t size = 0;        // message bytes (atomics: 8 are moved whatever the size)
  uint32_t sge = 1;         // scatter/gather entries per message
  uint32_t post_list = 1;   // work requests chained per post call
  uint32_t index = 0;       // the QP's position in its worker (receive wr_id, immediate data)
  std::byte* rx = nullptr;  // local receive region (reads and atomic results land here)
  std::byte* tx = nullptr;  // local send region
  uint64_t region_bytes = 0;
  uint32_t lkey = 0;         // of the MR covering rx and tx
  uint64_t remote_addr = 0;  // the peer's receive region (write, read, atomics)
  uint32_t rkey = 0;
  ibv_ah* ah = nullptr;  // UD: address of the peer QP (none yet: no UD fields)
  uint32_t remote_qpn = 0;
};

// Builds the slot's work requests from `s` (shape_slot, then every field the datapath does not
// change): sends gather the message from tx (reads and atomics scatter into rx) in `sge`
// contiguous pieces (sge_piece_length/offset); receives scatter into rx in the same pieces
// (UD: the GRH in front of the first), the last piece running to the end of the region. Sets
// rx_last/tx_last to the message's last byte. Touches nothing but `q`'s work requests.
void build_work_requests(const WorkRequestSpec& s, QpSlot& q);

// The send flags every send of a message size carries (the datapath adds IBV_SEND_SIGNALED):
// IBV_SEND_INLINE when a non-empty message fits `inline_cap` and is sent (not read or fetched).
unsigned base_send_flags(Op op, uint64_t size, uint32_t inline_cap) noexcept;

}  // namespace rdmabench
