#include "engine/completion.h"

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace rdmabench {

void throw_completion_error(const WorkerContext& w, const ibv_wc& wc, const char* phase) {
  std::string what = (wc.opcode & IBV_WC_RECV) != 0 ? "receive" : "send-side operation";
  if (wc.status == IBV_WC_WR_FLUSH_ERR) what = "work request";
  throw CompletionError(std::string(phase) + ": " + what + " completed with status '" +
                        ibv_wc_status_str(wc.status) + "' (" + std::to_string(wc.status) +
                        ", vendor error " + std::to_string(wc.vendor_err) + ") on QP " +
                        std::to_string(wc.qp_num) + ", worker " + std::to_string(w.index) +
                        (wc.status == IBV_WC_RETRY_EXC_ERR || wc.status == IBV_WC_RNR_RETRY_EXC_ERR
                             ? " — the peer stopped responding (killed, or link down?)"
                             : ""));
}

void throw_post_error(const WorkerContext& w, const QpSlot& q, int rc, bool recv,
                      const char* phase) {
  throw CompletionError(std::string(phase) + ": " + (recv ? "ibv_post_recv" : "ibv_post_send") +
                        " failed on QP " + std::to_string(q.qp->qp_num) + ", worker " +
                        std::to_string(w.index) + ": " + std::strerror(rc));
}

void throw_timeout(const WorkerContext& w, const char* phase, const std::string& detail) {
  const double s = w.clock->to_ns(w.timeout_ticks) / 1e9;
  char text[32];
  std::snprintf(text, sizeof text, "%g", s);
  throw TimeoutError(std::string(phase) + ": no progress for " + text + " s on worker " +
                     std::to_string(w.index) + " (" + detail + "); --timeout " + text +
                     " was the longest wait without a completion: raise --timeout (timeout_s in a "
                     "campaign) for a slower link");
}

void wait_cq_event(WorkerContext& w, bool& armed, int slice_ms, const char* phase) {
  if (!armed) {
    if (int rc = ibv_req_notify_cq(w.cq, 0); rc != 0)
      throw SysError("ibv_req_notify_cq", rc, std::string("worker CQ in ") + phase);
    armed = true;
    return;  // re-poll once: a completion may have arrived before arming
  }
  pollfd p{w.channel->fd, POLLIN, 0};
  int rc = ::poll(&p, 1, slice_ms);
  if (rc <= 0) return;
  ibv_cq* cq = nullptr;
  void* ctx = nullptr;
  if (ibv_get_cq_event(w.channel, &cq, &ctx) != 0)
    throw SysError("ibv_get_cq_event", errno, std::string("worker completion channel in ") + phase);
  ++w.events_unacked;
  armed = false;
}

void ack_cq_events(WorkerContext& w) {
  if (w.events_unacked > 0) ibv_ack_cq_events(w.cq, w.events_unacked);
  w.events_unacked = 0;
}

}  // namespace rdmabench
