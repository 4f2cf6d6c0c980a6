#pragma once
// Posting one prebuilt work request through an extended QP's ibv_wr_* calls (perftest's default
// post path), for the latency loops: the request is read from the same ibv_send_wr that
// ibv_post_send would take (work_requests.h builds it at setup), so both paths post the same
// thing. Inline; no allocation. Providers without extended QPs (siw) never get here: their
// QpSlot::qpx is null and the loops call ibv_post_send.
#include <infiniband/verbs.h>

#include "model/workload.h"

namespace rdmabench {

// The most pieces a request posted this way may have (inline data is copied from a list on the
// stack): a QP whose requests have more stays on ibv_post_send (session_resources.cc).
inline constexpr int kMaxExSges = 32;

template <Op kOp>
inline int post_wr_ex(ibv_qp_ex* x, const ibv_send_wr& wr) noexcept {
  ibv_wr_start(x);
  x->wr_id = wr.wr_id;
  x->wr_flags = wr.send_flags;
  const bool ud = x->qp_base.qp_type == IBV_QPT_UD;
  if constexpr (kOp == Op::kSend) {
    ibv_wr_send(x);
  } else if constexpr (kOp == Op::kSendImm) {
    ibv_wr_send_imm(x, wr.imm_data);
  } else if constexpr (kOp == Op::kWrite) {
    ibv_wr_rdma_write(x, wr.wr.rdma.rkey, wr.wr.rdma.remote_addr);
  } else if constexpr (kOp == Op::kWriteImm) {
    ibv_wr_rdma_write_imm(x, wr.wr.rdma.rkey, wr.wr.rdma.remote_addr, wr.imm_data);
  } else if constexpr (kOp == Op::kRead) {
    ibv_wr_rdma_read(x, wr.wr.rdma.rkey, wr.wr.rdma.remote_addr);
  } else if constexpr (kOp == Op::kFetchAdd) {
    ibv_wr_atomic_fetch_add(x, wr.wr.atomic.rkey, wr.wr.atomic.remote_addr,
                            wr.wr.atomic.compare_add);
  } else {
    ibv_wr_atomic_cmp_swp(x, wr.wr.atomic.rkey, wr.wr.atomic.remote_addr, wr.wr.atomic.compare_add,
                          wr.wr.atomic.swap);
  }
  if (ud) ibv_wr_set_ud_addr(x, wr.wr.ud.ah, wr.wr.ud.remote_qpn, wr.wr.ud.remote_qkey);
  if ((wr.send_flags & IBV_SEND_INLINE) != 0) {
    if (wr.num_sge == 1) {
      ibv_wr_set_inline_data(x, reinterpret_cast<void*>(wr.sg_list[0].addr), wr.sg_list[0].length);
    } else {
      ibv_data_buf bufs[kMaxExSges];
      for (int k = 0; k < wr.num_sge; ++k)
        bufs[k] = {reinterpret_cast<void*>(wr.sg_list[k].addr), wr.sg_list[k].length};
      ibv_wr_set_inline_data_list(x, static_cast<size_t>(wr.num_sge), bufs);
    }
  } else if (wr.num_sge == 1) {
    ibv_wr_set_sge(x, wr.sg_list[0].lkey, wr.sg_list[0].addr, wr.sg_list[0].length);
  } else {
    ibv_wr_set_sge_list(x, static_cast<size_t>(wr.num_sge), wr.sg_list);
  }
  return ibv_wr_complete(x);
}

}  // namespace rdmabench
