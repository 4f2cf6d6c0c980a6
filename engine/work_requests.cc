#include "engine/work_requests.h"

#include <arpa/inet.h>

#include <algorithm>

namespace rdmabench {

ibv_wr_opcode opcode_of(Op op) noexcept {
  switch (op) {
    case Op::kSend:
      return IBV_WR_SEND;
    case Op::kSendImm:
      return IBV_WR_SEND_WITH_IMM;
    case Op::kWrite:
      return IBV_WR_RDMA_WRITE;
    case Op::kWriteImm:
      return IBV_WR_RDMA_WRITE_WITH_IMM;
    case Op::kRead:
      return IBV_WR_RDMA_READ;
    case Op::kFetchAdd:
      return IBV_WR_ATOMIC_FETCH_AND_ADD;
    case Op::kCmpSwap:
      return IBV_WR_ATOMIC_CMP_AND_SWP;
  }
  return IBV_WR_SEND;
}

void shape_slot(QpSlot& q, uint32_t post_list, uint32_t sge) {
  q.wrs.assign(post_list, ibv_send_wr{});
  q.rwrs.assign(post_list, ibv_recv_wr{});
  q.sges.assign(sge, ibv_sge{});
  q.rsges.assign(sge, ibv_sge{});
  for (uint32_t k = 0; k < post_list; ++k) {
    q.wrs[k].next = k + 1 < post_list ? &q.wrs[k + 1] : nullptr;
    q.wrs[k].sg_list = q.sges.data();
    q.wrs[k].num_sge = static_cast<int>(sge);
    q.rwrs[k].next = k + 1 < post_list ? &q.rwrs[k + 1] : nullptr;
    q.rwrs[k].sg_list = q.rsges.data();
    q.rwrs[k].num_sge = static_cast<int>(sge);
  }
  q.wr = q.wrs.data();
  q.rwr = q.rwrs.data();
}

void build_work_requests(const WorkRequestSpec& s, QpSlot& q) {
  const uint32_t k_sge = s.sge;
  shape_slot(q, s.post_list, k_sge);
  // The message, split into k_sge contiguous pieces: sends gather from tx, reads scatter to rx.
  std::byte* local = is_fetch(s.op) ? s.rx : s.tx;
  const uint64_t len = is_atomic(s.op) ? 8 : s.size;
  for (uint32_t k = 0; k < k_sge; ++k)
    q.sges[k] = {reinterpret_cast<uint64_t>(local + sge_piece_offset(len, k_sge, k)),
                 static_cast<uint32_t>(sge_piece_length(len, k_sge, k)), s.lkey};
  for (ibv_send_wr& wr : q.wrs) {
    wr.opcode = opcode_of(s.op);
    if (s.size == 0) wr.num_sge = 0;
    switch (s.op) {
      case Op::kWrite:
      case Op::kWriteImm:
      case Op::kRead:
        wr.wr.rdma.remote_addr = s.remote_addr;
        wr.wr.rdma.rkey = s.rkey;
        break;
      case Op::kFetchAdd:
        wr.wr.atomic.remote_addr = s.remote_addr;
        wr.wr.atomic.rkey = s.rkey;
        wr.wr.atomic.compare_add = kFetchAddStep;
        break;
      case Op::kCmpSwap:
        wr.wr.atomic.remote_addr = s.remote_addr;
        wr.wr.atomic.rkey = s.rkey;
        wr.wr.atomic.compare_add = kCasPattern;
        wr.wr.atomic.swap = kCasPattern;
        break;
      default:
        break;
    }
    if (s.op == Op::kSendImm || s.op == Op::kWriteImm) wr.imm_data = htonl(0x5eed0000U | s.index);
    if (s.qp_type == QpType::kUd && s.ah != nullptr) {
      wr.wr.ud.ah = s.ah;
      wr.wr.ud.remote_qpn = s.remote_qpn;
      wr.wr.ud.remote_qkey = kUdQkey;
    }
  }
  // Receives scatter into the rx region in the sender's pieces (UD: the GRH in front of the
  // first); the last piece runs to the end of the region.
  const uint64_t grh = s.qp_type == QpType::kUd ? kUdGrh : 0;
  const uint64_t rlen = std::max<uint64_t>(s.size, k_sge);
  for (uint32_t k = 0; k < k_sge; ++k) {
    const uint64_t from = k == 0 ? 0 : grh + sge_piece_offset(rlen, k_sge, k);
    const uint64_t to = k + 1 < k_sge ? grh + sge_piece_offset(rlen, k_sge, k + 1) : s.region_bytes;
    q.rsges[k] = {reinterpret_cast<uint64_t>(s.rx + from), static_cast<uint32_t>(to - from),
                  s.lkey};
  }
  for (ibv_recv_wr& rwr : q.rwrs) rwr.wr_id = s.index;
  const uint64_t last = s.size == 0 ? 0 : s.size - 1;
  q.rx_last = reinterpret_cast<volatile uint8_t*>(s.rx + last);
  q.tx_last = reinterpret_cast<uint8_t*>(s.tx + last);
}

unsigned base_send_flags(Op op, uint64_t size, uint32_t inline_cap) noexcept {
  return size <= inline_cap && size > 0 && !is_fetch(op) ? IBV_SEND_INLINE : 0;
}

}  // namespace rdmabench
