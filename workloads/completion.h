#pragma once
// Completion handling shared by the bandwidth and latency loops: error reporting, receive
// re-posting and the event-mode wait. All inline; nothing here allocates in the good path.
#include <infiniband/verbs.h>
#include <poll.h>

#include <string>

#include "harness/error.h"
#include "workloads/worker_context.h"

namespace rdmabench {

constexpr int kPollBatch = 16;

// The verbs the datapath calls, as a policy so the loops can be benchmarked without a device
// (bench/datapath_bench.cc substitutes an in-memory fake). All inline: no indirection at run time.
struct VerbsOps {
  static int post_send(ibv_qp* qp, ibv_send_wr* wr, ibv_send_wr** bad) noexcept {
    return ibv_post_send(qp, wr, bad);
  }
  static int post_recv(ibv_qp* qp, ibv_recv_wr* wr, ibv_recv_wr** bad) noexcept {
    return ibv_post_recv(qp, wr, bad);
  }
  static int post_srq_recv(ibv_srq* srq, ibv_recv_wr* wr, ibv_recv_wr** bad) noexcept {
    return ibv_post_srq_recv(srq, wr, bad);
  }
  static int poll_cq(ibv_cq* cq, int n, ibv_wc* wc) noexcept { return ibv_poll_cq(cq, n, wc); }
};

[[noreturn]] void throw_completion_error(const WorkerContext& w, const ibv_wc& wc,
                                         const char* phase);
[[noreturn]] void throw_post_error(const WorkerContext& w, const QpSlot& q, int rc, bool recv,
                                   const char* phase);
[[noreturn]] void throw_timeout(const WorkerContext& w, const char* phase, const std::string& detail);

template <class V = VerbsOps>
inline void repost_recv(WorkerContext& w, const ibv_wc& wc, const char* phase) {
  QpSlot& q = w.qps[wc.wr_id];
  ibv_recv_wr* bad = nullptr;
  int rc = q.srq != nullptr ? V::post_srq_recv(q.srq, &q.rwr, &bad) : V::post_recv(q.qp, &q.rwr, &bad);
  if (rc != 0) [[unlikely]]
    throw_post_error(w, q, rc, true, phase);
}

// Event mode: arm the CQ, then sleep on the channel up to `slice_ms`. Returns after an event
// (CQ re-armed on the next call) or the slice. The caller re-polls either way.
void wait_cq_event(WorkerContext& w, bool& armed, int slice_ms, const char* phase);
void ack_cq_events(WorkerContext& w);

}  // namespace rdmabench
