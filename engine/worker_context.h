#pragma once
// Hot per-worker state the datapath loops run on. Everything here is built at setup (work
// requests, SGEs, pointers); the loops only flip flags and counters.
#include <infiniband/verbs.h>
#include <sched.h>

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "base/clock.h"
#include "base/event_fd.h"
#include "base/histogram.h"
#include "engine/recv_credits.h"

namespace rdmabench {

struct QpSlot {
  ibv_qp* qp = nullptr;
  ibv_qp_ex* qpx = nullptr;  // latency loops post through ibv_wr_* when set (work_request_ex.h)
  ibv_srq* srq = nullptr;    // receives go here when set
  ibv_cq* cq = nullptr;      // this QP's CQ (the worker's, unless one CQ per QP)
  // Prebuilt work requests: `post_list` sends chained by `next` (opcode, SGEs, remote
  // address/rkey or UD AH), and as many receives (wr_id = slot index). All WRs of a list share
  // one array of `sge` scatter/gather entries. Built by build_work_requests()
  // (work_requests.h); the vectors are never resized in the datapath.
  ibv_send_wr* wr = nullptr;   // = wrs.data()
  ibv_recv_wr* rwr = nullptr;  // = rwrs.data()
  std::vector<ibv_send_wr> wrs;
  std::vector<ibv_sge> sges;
  std::vector<ibv_recv_wr> rwrs;
  std::vector<ibv_sge> rsges;
  volatile uint8_t* rx_last = nullptr;  // write latency: last byte of the receive region
  uint8_t* tx_last = nullptr;           //                last byte of the send region
  uint64_t posted = 0;
  uint64_t completed = 0;
  uint32_t unsignaled = 0;
  uint32_t recv_pending = 0;       // consumed receives not yet re-posted (post lists)
  uint32_t recv_owed = 0;          // latency loops: consumed receives to re-post after the reply
  CreditGroup* credits = nullptr;  // receive credits (iWARP send): this QP's group, else null
};

// The deadline of a timed phase that only WorkerControl::stop ends (--run-infinitely).
inline constexpr uint64_t kNoDeadline = UINT64_MAX;

// What a worker shows the control thread during the measurement, for its intervals
// (interval_meter.h): written by the worker alone with relaxed stores (no lock, no system call;
// one cache line of its own), read by the control thread.
struct alignas(64) WorkerProgress {
  // Operations completed in the measured window so far (bandwidth loops; latency loops show
  // theirs in their histogram). Set to 0 before `start`.
  std::atomic<uint64_t> ops{0};
  // Clock ticks at the start of the measurement, 0 before it (stored with release after `ops`
  // is reset, so a reader that sees it sees only the measurement's counts).
  std::atomic<uint64_t> start{0};
};

// Signals from the control thread to the workers.
struct WorkerControl {
  explicit WorkerControl(size_t workers) : expected_recv(workers), progress(workers) {
    for (auto& e : expected_recv) e.store(UINT64_MAX);
  }
  std::atomic<bool> abort{false};           // stop now (error elsewhere, signal)
  std::atomic<bool> peer_finished{false};   // peer reported FINISH: stop pong / drain receives
  std::atomic<uint32_t> senders_done{0};    // workers whose send phases are over
  std::atomic<uint32_t> workers_done{0};    // workers that returned (ok or error)
  std::atomic<const char*> phase{"start"};  // what the workers are doing (for error messages)
  std::vector<std::atomic<uint64_t>> expected_recv;  // per worker: messages to receive, once known
  std::vector<WorkerProgress> progress;              // per worker
  // End a timed phase now, as if its deadline had passed (--run-infinitely's SIGINT/SIGTERM).
  std::atomic<bool> stop{false};
  // Workers notify it after changing senders_done / workers_done (or failing), so the control
  // thread sleeps on its socket and this instead of waking on a timer during the measurement.
  EventFd wake;
};

struct WorkerContext {
  uint32_t index = 0;
  std::vector<QpSlot> qps;
  // Receive credits (recv_credits.h), when the session needs them: one group per receive queue.
  // Built once per session, kept across sizes (the counters run over the session).
  std::vector<CreditGroup> credit_groups;
  ibv_cq* cq = nullptr;      // the worker's CQ (the first QP's with one CQ per QP)
  std::vector<ibv_cq*> cqs;  // every CQ the worker polls (one, or one per QP)
  uint32_t next_cq = 0;      // round-robin position in `cqs`
  ibv_comp_channel* channel = nullptr;
  const Clock* clock = nullptr;
  WorkerControl* control = nullptr;
  uint32_t tx_depth = 1;
  bool defer_recv =
      false;  // latency loops: re-post receives after the reply (rx_depth > post_list)
  uint32_t signal_every = 1;
  uint32_t post_list = 1;     // WRs per post call
  uint64_t gap_ticks = 0;     // ping-pong: busy-wait between iterations
  uint64_t period_ticks = 0;  // open loop: intended time between sends (0 = closed loop)
  uint64_t late_ticks = 0;    // open loop: a send posted later than this after its time is late
  const cpu_set_t* affinity = nullptr;  // NUMA binding of the worker thread (nullptr = none)
  unsigned base_send_flags = 0;         // IBV_SEND_INLINE when the size fits the inline threshold
  uint64_t timeout_ticks = 0;           // longest time without progress
  uint64_t drain_ticks = 0;             // unreliable QPs: quiet time after FINISH before giving up
  // Receive accounting (cumulative over the size).
  uint64_t received = 0;
  uint64_t post_calls = 0;         // ibv_post_send calls (cumulative over the size)
  uint64_t recv_post_calls = 0;    // ibv_post_recv / ibv_post_srq_recv re-posts
  uint64_t received_bytes = 0;     // payload only
  uint32_t recv_header_bytes = 0;  // UD: the 40-byte GRH a receive completion also counts
  unsigned events_unacked = 0;
};

// Result of one datapath phase of one worker.
struct PhaseStats {
  uint64_t ops = 0;      // completed operations counted in the measured window
  uint64_t t_start = 0;  // clock ticks
  uint64_t t_end = 0;
  uint64_t posted = 0;  // operations posted in total (incl. any after the window)
  // Open loop only.
  uint64_t late = 0;        // sends posted more than late_ticks after their intended time
  uint64_t max_lag = 0;     // largest (post time - intended time), ticks
  uint64_t first_post = 0;  // ticks
  uint64_t last_post = 0;
};

}  // namespace rdmabench
