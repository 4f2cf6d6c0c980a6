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

[[noreturn]] void throw_completion_error(const WorkerContext& w, const ibv_wc& wc,
                                         const char* phase);
[[noreturn]] void throw_post_error(const WorkerContext& w, const QpSlot& q, int rc, bool recv,
                                   const char* phase);
[[noreturn]] void throw_timeout(const WorkerContext& w, const char* phase, const std::string& detail);

inline void repost_recv(WorkerContext& w, const ibv_wc& wc, const char* phase) {
  QpSlot& q = w.qps[wc.wr_id];
  ibv_recv_wr* bad = nullptr;
  int rc = q.srq != nullptr ? ibv_post_srq_recv(q.srq, &q.rwr, &bad) : ibv_post_recv(q.qp, &q.rwr, &bad);
  if (rc != 0) [[unlikely]]
    throw_post_error(w, q, rc, true, phase);
}

// Event mode: arm the CQ, then sleep on the channel up to `slice_ms`. Returns after an event
// (CQ re-armed on the next call) or the slice. The caller re-polls either way.
void wait_cq_event(WorkerContext& w, bool& armed, int slice_ms, const char* phase);
void ack_cq_events(WorkerContext& w);

}  // namespace rdmabench
