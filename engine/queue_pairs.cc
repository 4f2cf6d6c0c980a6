#include "engine/queue_pairs.h"

#include <algorithm>
#include <random>

#include "engine/work_requests.h"

namespace rdmabench {
namespace {

ibv_qp_type qp_type_of(QpType t) noexcept {
  switch (t) {
    case QpType::kRc:
      return IBV_QPT_RC;
    case QpType::kUc:
      return IBV_QPT_UC;
    case QpType::kUd:
      return IBV_QPT_UD;
  }
  return IBV_QPT_RC;
}

// The extended QP's send op for the workload's op (ibv_wr_* posts it; work_request_ex.h):
// verbs.h numbers each IBV_QP_EX_WITH_<OP> as 1 << IBV_WR_<OP>.
uint64_t send_op_flag(Op op) noexcept { return uint64_t{1} << opcode_of(op); }
static_assert(IBV_QP_EX_WITH_RDMA_READ == 1ULL << IBV_WR_RDMA_READ &&
              IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD == 1ULL << IBV_WR_ATOMIC_FETCH_AND_ADD &&
              IBV_QP_EX_WITH_SEND_WITH_IMM == 1ULL << IBV_WR_SEND_WITH_IMM);

}  // namespace

QueueSizes queue_sizes(const Workload& w, uint32_t extra_send_wr) {
  QueueSizes q;
  q.send = w.tx_depth + extra_send_wr;
  const uint64_t qps = w.cq_per_qp ? 1 : w.qps_per_thread;
  if (w.mode != Mode::kLat) {
    q.recv = w.rx_depth;
    q.cqe = w.cq_per_qp ? uint64_t(w.tx_depth) + w.rx_depth + 16
                        : qps * (uint64_t(w.tx_depth) + w.rx_depth) + 16;
    return q;
  }
  // One entry, never posted to, for the ops without receives: siw refuses a QP with none
  // (rdma_create_qp: EINVAL; engine_on_siw).
  q.recv = uses_recv(w.op) ? w.rx_depth : 1;
  // Completions that can wait in the CQ at once: the signalled sends in flight and the
  // receives their replies complete. A read or an atomic waits for its own completion (the
  // reply) before the next: one in flight. A send or write ping-pong answers the peer at once
  // and reaps its own send completions as it goes, within tx_depth: up to tx_depth /
  // signal_every of them can wait (a CQ of one send overflowed there: engine_on_softroce,
  // write_uc_lat_poll). An open loop: tx_depth.
  const uint64_t every = std::max<uint32_t>(1, w.effective_signal_every());
  const uint64_t sends = w.open_loop()    ? w.tx_depth
                         : is_fetch(w.op) ? 1
                                          : (uint64_t(w.tx_depth) + every - 1) / every;
  const uint64_t recvs = uses_recv(w.op) ? std::min<uint64_t>(sends, w.rx_depth) : 0;
  q.cqe = qps * (sends + recvs) + 8;
  return q;
}

QueuePairs::QueuePairs(const Workload& w, ibv_context* ctx, ibv_pd* pd, int max_cqe,
                       uint32_t inline_cap, uint32_t extra_send_wr)
    : pd_(pd),
      qp_type_(w.qp),
      qps_per_worker_(w.qps_per_thread),
      sge_(w.sge),
      inline_cap_(inline_cap) {
  const uint32_t qps = w.qps_per_thread;
  const QueueSizes sizes = queue_sizes(w, extra_send_wr);
  tx_depth_ = sizes.send;
  rx_depth_ = sizes.recv;
  cqe_ = static_cast<int>(std::min<uint64_t>(sizes.cqe, uint64_t(max_cqe)));
  // Latency mode posts one work request at a time through ibv_wr_* where the provider has
  // extended QPs (perftest's default post path); a receive-credit write (extra_send_wr) would
  // be a second op on the QP: those sessions keep ibv_post_send.
  if (w.mode == Mode::kLat && extra_send_wr == 0) send_ops_ = send_op_flag(w.op);
  const int cqe = cqe_;
  workers_.resize(w.threads);
  for (WorkerQueues& wq : workers_) {
    if (w.cq == CqMode::kEvent) wq.channel = create_comp_channel(ctx);
    wq.qps.resize(qps);
    if (w.cq_per_qp) {
      for (QpEndpoint& q : wq.qps) q.cq = create_cq(ctx, cqe, nullptr);
    } else {
      wq.cq = create_cq(ctx, cqe, wq.channel.get());
    }
    if (w.srq) {
      ibv_srq_init_attr sa{};
      sa.attr.max_wr = w.rx_depth;
      sa.attr.max_sge = w.sge;
      wq.srq = create_srq(pd, &sa);
    }
  }
  std::mt19937 rng(std::random_device{}());
  for (WorkerQueues& wq : workers_)
    for (QpEndpoint& q : wq.qps) q.psn = rng() & 0xffffff;
}

ibv_qp_init_attr QueuePairs::init_attr(size_t flat) const {
  const WorkerQueues& wq = worker_of(flat);
  ibv_qp_init_attr a{};
  a.send_cq = wq.cq_of(at(flat));
  a.recv_cq = a.send_cq;
  a.srq = wq.srq.get();
  a.qp_type = qp_type_of(qp_type_);
  a.cap.max_send_wr = tx_depth_;
  a.cap.max_recv_wr = wq.srq ? 0 : rx_depth_;
  a.cap.max_send_sge = sge_;
  a.cap.max_recv_sge = sge_;
  a.cap.max_inline_data = inline_cap_;
  a.sq_sig_all = 0;
  return a;
}

ibv_qp_init_attr_ex QueuePairs::init_attr_ex(size_t flat) const {
  const ibv_qp_init_attr a = init_attr(flat);
  ibv_qp_init_attr_ex x{};
  x.send_cq = a.send_cq;
  x.recv_cq = a.recv_cq;
  x.srq = a.srq;
  x.cap = a.cap;
  x.qp_type = a.qp_type;
  x.sq_sig_all = a.sq_sig_all;
  x.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
  x.pd = pd_;
  x.send_ops_flags = send_ops_;
  return x;
}

size_t QueuePairs::cq_count() const noexcept {
  size_t n = 0;
  for (const WorkerQueues& wq : workers_) {
    n += wq.cq ? 1 : 0;
    for (const QpEndpoint& q : wq.qps) n += q.cq ? 1 : 0;
  }
  return n;
}

double QueuePairs::max_qp_setup_s() const noexcept {
  double m = 0;
  for (const WorkerQueues& wq : workers_)
    for (const QpEndpoint& q : wq.qps) m = std::max(m, q.setup_s);
  return m;
}

double QueuePairs::total_qp_setup_s() const noexcept {
  double s = 0;
  for (const WorkerQueues& wq : workers_)
    for (const QpEndpoint& q : wq.qps) s += q.setup_s;
  return s;
}

}  // namespace rdmabench
