#pragma once
// Completion handling shared by the bandwidth and latency loops: error reporting, receive
// re-posting and the event-mode wait. All inline; nothing here allocates in the good path.
#include <infiniband/verbs.h>
#include <poll.h>

#include <string>

#include "base/error.h"
#include "engine/worker_context.h"

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
[[noreturn]] void throw_timeout(const WorkerContext& w, const char* phase,
                                const std::string& detail);

// Re-posts the receive a completion consumed; with a post list, once `post_list` of the slot's
// receives were consumed, as one chained post.
// Returns whether it posted (then `post_list` receives went back to the queue).
template <class V = VerbsOps>
inline bool repost_slot_recv(WorkerContext& w, QpSlot& q, const char* phase) {
  if (++q.recv_pending < w.post_list) return false;
  q.recv_pending = 0;
  ibv_recv_wr* bad = nullptr;
  int rc =
      q.srq != nullptr ? V::post_srq_recv(q.srq, q.rwr, &bad) : V::post_recv(q.qp, q.rwr, &bad);
  ++w.recv_post_calls;
  if (rc != 0) [[unlikely]]
    throw_post_error(w, q, rc, true, phase);
  return true;
}

template <class V = VerbsOps>
inline void repost_recv(WorkerContext& w, const ibv_wc& wc, const char* phase) {
  repost_slot_recv<V>(w, w.qps[wc.wr_id], phase);
}

// Latency loops: the receives a poll consumed are counted in `recv_owed` and re-posted here,
// after the time-critical step (the ping's clock read, the pong's reply), so that no
// ibv_post_recv sits inside a round trip. The receive queue keeps rx_depth - owed posted.
template <class V = VerbsOps>
inline void repost_owed(WorkerContext& w, QpSlot& q, const char* phase) {
  for (; q.recv_owed != 0; --q.recv_owed) repost_slot_recv<V>(w, q, phase);
}

// Polls the worker's CQ, or with one CQ per QP the next one in turn.
template <class V = VerbsOps>
inline int poll_worker_cq(WorkerContext& w, ibv_wc* wcs) noexcept {
  ibv_cq* cq = w.cq;
  if (w.cqs.size() > 1) {
    cq = w.cqs[w.next_cq];
    if (++w.next_cq == w.cqs.size()) w.next_cq = 0;
  }
  return V::poll_cq(cq, kPollBatch, wcs);
}

// Event mode: arm the CQ, then sleep on the channel up to `slice_ms`. Returns after an event
// (CQ re-armed on the next call) or the slice. The caller re-polls either way.
void wait_cq_event(WorkerContext& w, bool& armed, int slice_ms, const char* phase);
void ack_cq_events(WorkerContext& w);

}  // namespace rdmabench
