#pragma once
// A side's queues: per worker a CQ (with a completion channel in event mode; one CQ per QP with
// --cq-per-qp), an optional SRQ, and its QPs' records. The QPs themselves are created by the
// connection method (tcp_exchange.h or cm_connection.h), which also times each one. Setup path
// only; SessionResources turns these into the datapath's WorkerContexts.
#include <infiniband/verbs.h>

#include <chrono>
#include <cstdint>
#include <vector>

#include "engine/side_info.h"
#include "model/workload.h"
#include "verbs/cm.h"
#include "verbs/verbs.h"

namespace rdmabench {

// One QP, what owns it and what it is connected to.
struct QpEndpoint {
  CqPtr cq;        // --cq-per-qp
  CmIdPtr cm_id;   // rdma_cm: owns the QP
  QpPtr qp_owned;  // TCP exchange: owns the QP
  ibv_qp* qp = nullptr;
  bool extended = false;  // created by ibv_create_qp_ex: the datapath posts with ibv_wr_*
  AhPtr ah;               // UD: address of the peer QP
  uint32_t psn = 0;
  QpInfo remote;       // the peer's QP and receive region
  double setup_s = 0;  // this QP's own create + connect time
};

struct WorkerQueues {
  CompChannelPtr channel;  // event mode
  CqPtr cq;                // unless one CQ per QP
  SrqPtr srq;
  std::vector<QpEndpoint> qps;
  ibv_cq* cq_of(const QpEndpoint& q) const noexcept { return q.cq ? q.cq.get() : cq.get(); }
};

// The queue sizes a workload needs. Bandwidth mode: the send and receive depths asked for, and a
// CQ that holds both. Latency mode (one QP per worker): the CQ holds what can complete at once
// plus a margin, not the depths' sum — one read or atomic (each waits for its reply), the
// signalled sends of a send or write ping-pong not reaped yet (up to tx_depth / signal_every) and
// their replies' receives, an open loop's tx_depth — (perftest's read latency CQ holds about two
// entries; a ring of hundreds puts every completion on a new cache line for nothing), and the
// receive queue holds one entry (never posted to) unless the op takes receives (read, write and
// atomics post none). The send queue keeps tx_depth: a closed loop's of signal_every + 1 entries
// stalled rxe's write ping-pong (bench/README "Latency: queues, threads and the post path",
// issue 47).
struct QueueSizes {
  uint32_t send = 0;  // per QP
  uint32_t recv = 0;  // per QP
  uint64_t cqe = 0;   // per CQ, before the device's max_cqe caps it
};
QueueSizes queue_sizes(const Workload& w, uint32_t extra_send_wr);

class QueuePairs {
 public:
  QueuePairs() = default;
  // Creates the CQs (at most `max_cqe` entries each) and SRQs on `ctx`/`pd` and a record per QP
  // with a random PSN. `inline_cap`: the inline size the QPs will be created with;
  // `extra_send_wr`: send-queue entries beyond tx_depth (a receive-credit write).
  QueuePairs(const Workload& w, ibv_context* ctx, ibv_pd* pd, int max_cqe, uint32_t inline_cap,
             uint32_t extra_send_wr = 0);

  std::vector<WorkerQueues>& workers() noexcept { return workers_; }
  const std::vector<WorkerQueues>& workers() const noexcept { return workers_; }
  size_t count() const noexcept { return size_t(workers_.size()) * qps_per_worker_; }
  // QP `flat` in worker-major order, and its worker.
  QpEndpoint& at(size_t flat) {
    return workers_[flat / qps_per_worker_].qps[flat % qps_per_worker_];
  }
  const QpEndpoint& at(size_t flat) const {
    return workers_[flat / qps_per_worker_].qps[flat % qps_per_worker_];
  }
  const WorkerQueues& worker_of(size_t flat) const { return workers_[flat / qps_per_worker_]; }

  ibv_pd* pd() const noexcept { return pd_; }
  QpType qp_type() const noexcept { return qp_type_; }
  // The creation attributes of QP `flat` (its CQ, the worker's SRQ, depths, SGEs, inline size).
  ibv_qp_init_attr init_attr(size_t flat) const;
  // The same as an extended QP's attributes with the workload's send op, when the QPs should be
  // extended (latency mode, one op: send_ops() != 0); a provider without them gets init_attr's.
  ibv_qp_init_attr_ex init_attr_ex(size_t flat) const;
  uint64_t send_ops() const noexcept { return send_ops_; }

  // The setup report's counts and times: CQs created (each of cq_entries() entries), and per QP
  // its own setup time.
  size_t cq_count() const noexcept;
  int cq_entries() const noexcept { return cqe_; }
  double max_qp_setup_s() const noexcept;
  double total_qp_setup_s() const noexcept;

 private:
  std::vector<WorkerQueues> workers_;
  ibv_pd* pd_ = nullptr;
  QpType qp_type_ = QpType::kRc;
  uint32_t qps_per_worker_ = 1;
  uint32_t tx_depth_ = 0;  // send-queue entries per QP
  uint32_t rx_depth_ = 0;  // receive-queue entries per QP
  int cqe_ = 0;
  uint32_t sge_ = 1;
  uint32_t inline_cap_ = 0;
  uint64_t send_ops_ = 0;  // IBV_QP_EX_WITH_* of an extended QP; 0: classic QPs
};

// Adds the time from its construction to its destruction to a QP's setup_s, however the scope
// ends.
class QpSetupTimer {
 public:
  explicit QpSetupTimer(QpEndpoint& q) : q_(q), t0_(std::chrono::steady_clock::now()) {}
  QpSetupTimer(const QpSetupTimer&) = delete;
  QpSetupTimer& operator=(const QpSetupTimer&) = delete;
  ~QpSetupTimer() {
    q_.setup_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
  }

 private:
  QpEndpoint& q_;
  std::chrono::steady_clock::time_point t0_;
};

}  // namespace rdmabench
