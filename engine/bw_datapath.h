#pragma once
// The bandwidth loop, templated on op, QP type and CQ mode so the compiler sees straight-line
// code: post while the send queue has room, poll a batch, account, repeat. Work requests are
// prebuilt (worker_context.h); per post only wr_id and send_flags change. No allocation, lock,
// virtual call or system call here in poll mode (the provider's doorbell aside).
#include <infiniband/verbs.h>

#include "engine/completion.h"
#include "model/workload.h"

namespace rdmabench {

struct BwPhase {
  const char* name = "measurement";
  bool send = true;
  uint64_t target = 0;      // operations per QP (UINT64_MAX: until the deadline)
  uint64_t deadline = 0;    // clock ticks; 0 = none
  bool recv = false;        // also consume and re-post receives
  uint64_t recv_until = 0;  // stop receiving at this cumulative count (UINT64_MAX: until told)
};

namespace detail {

// A phase's progress besides the slots' own counts.
struct BwProgress {
  size_t qps_done = 0;              // QPs whose completions reached the phase's target
  uint64_t window_ops = 0;          // operations completed inside the measured window
  uint64_t last_progress = 0;       // ticks: last poll that found completions
  uint64_t last_recv_progress = 0;  // ticks: same, once anything was received
};

// Receive credits (recv_credits.h): write the group's re-posted count to the peer.
template <class V>
inline void post_credit(CreditGroup& g, const char* phase) {
  *g.source = g.reposted;
  g.sent = g.reposted;
  g.busy = true;
  ibv_send_wr* bad = nullptr;
  if (const int rc = V::post_send(g.qp, &g.wr, &bad); rc != 0) [[unlikely]]
    throw_credit_post_error(g, rc, phase);
}

// `n` receives of the group went back to its queue: tell the peer once they add up to a step.
template <class V>
inline void credit_reposted(CreditGroup& g, uint32_t n, const char* phase) {
  g.reposted += n;
  if (!g.busy && g.reposted - g.sent >= g.step) post_credit<V>(g, phase);
}

// The group's credit write completed: send what was re-posted since, however little, so that a
// sender waiting at the window is never left waiting.
template <class V>
inline void credit_written(CreditGroup& g, const char* phase) {
  g.busy = false;
  if (g.reposted != g.sent) post_credit<V>(g, phase);
}

// Polls the worker's CQ once and accounts the batch: a receive is counted and its WR re-posted;
// a send completion credits its slot with the operations it covers (wr_id = slot | count << 32),
// and `in_window` the measured window too. Reads the clock into `now` after the poll and, when
// it found completions, records the progress time. Throws on a poll error or a failed
// completion. Returns how many completions it took. The one completion handler of the bandwidth
// loop: its main loop and the deadline flush both poll through it.
template <Op kOp, class V, bool kCredits>
[[gnu::always_inline]] inline int poll_bw(WorkerContext& w, const BwPhase& ph, ibv_wc* wcs,
                                          bool in_window, BwProgress& p, uint64_t& now) {
  const int n = poll_worker_cq<V>(w, wcs);
  if (n < 0) [[unlikely]]
    throw SysError("ibv_poll_cq", -n, std::string("worker CQ in ") + ph.name);
  for (int k = 0; k < n; ++k) {
    const ibv_wc& wc = wcs[k];
    if (wc.status != IBV_WC_SUCCESS) [[unlikely]]
      throw_completion_error(w, wc, ph.name);
    if constexpr (kCredits) {
      if (wc.wr_id & kCreditWrId) {
        credit_written<V>(w.credit_groups[wc.wr_id & 0xffffffffU], ph.name);
        continue;
      }
    }
    if constexpr (uses_recv(kOp)) {
      if (wc.opcode & IBV_WC_RECV) {
        ++w.received;
        w.received_bytes += wc.byte_len - w.recv_header_bytes;
        QpSlot& s = w.qps[wc.wr_id];
        if (repost_slot_recv<V>(w, s, ph.name)) {
          if constexpr (kCredits) credit_reposted<V>(*s.credits, w.post_list, ph.name);
        }
        continue;
      }
    }
    QpSlot& q = w.qps[wc.wr_id & 0xffffffffU];
    q.completed += wc.wr_id >> 32;
    if (q.completed == ph.target) ++p.qps_done;
    if (in_window) p.window_ops += wc.wr_id >> 32;
  }
  now = w.clock->now();
  if (n > 0) {
    p.last_progress = now;
    if (w.received != 0) p.last_recv_progress = now;
  }
  return n;
}

[[noreturn, gnu::cold, gnu::noinline]] inline void throw_bw_timeout(const WorkerContext& w,
                                                                    const char* phase) {
  uint64_t posted = 0;
  uint64_t completed = 0;
  for (const QpSlot& q : w.qps) {
    posted += q.posted;
    completed += q.completed;
  }
  std::string detail = std::to_string(completed) + " of " + std::to_string(posted) +
                       " posted operations completed, " + std::to_string(w.received) +
                       " messages received";
  for (const CreditGroup& g : w.credit_groups)
    if (g.posted >= *g.granted + g.window) {
      detail += "; waiting for the peer's receive credits (" + std::to_string(g.posted) +
                " sends posted, " + std::to_string(*g.granted) +
                " receives re-posted by the peer, " + std::to_string(g.window) +
                " posted at setup)";
      break;
    }
  throw_timeout(w, phase, detail);
}

// A poll found nothing: stop on abort, fail after timeout_ticks without progress, and in event
// mode, when `may_sleep`, sleep until the CQ has something (or a slice passed).
template <CqMode kCq>
[[gnu::always_inline]] inline void bw_idle(WorkerContext& w, const char* phase, uint64_t now,
                                           uint64_t last_progress, bool& armed, bool may_sleep) {
  if (w.control->abort.load(std::memory_order_relaxed)) [[unlikely]]
    throw Error(std::string(phase) + ": aborted");
  if (now - last_progress > w.timeout_ticks) [[unlikely]]
    throw_bw_timeout(w, phase);
  if constexpr (kCq == CqMode::kEvent) {
    if (may_sleep) wait_cq_event(w, armed, 100, phase);
  } else {
    (void)armed;
    (void)may_sleep;
  }
}

// At the deadline (duration mode): every QP with unsignaled work posts one signaled WR that
// covers it, once its send queue has room, so the phase can reap everything it posted. Runs
// once per phase: out of line, to keep the main loop small, and taking and returning the
// progress by value so that the main loop's copy never has its address taken (it stays in
// registers). Its polls go through poll_bw and wait like the main loop (bw_idle).
template <Op kOp, CqMode kCq, class V, bool kCredits>
[[gnu::noinline, gnu::cold]] BwProgress flush_unsignaled(WorkerContext& w, const BwPhase& ph,
                                                         ibv_wc* wcs, BwProgress p, bool& armed) {
  uint64_t now = 0;
  for (size_t i = 0; i < w.qps.size(); ++i) {
    QpSlot& q = w.qps[i];
    if (q.unsignaled == 0) continue;
    while (q.posted - q.completed >= w.tx_depth)  // room for the flushing WR
      if (poll_bw<kOp, V, kCredits>(w, ph, wcs, false, p, now) == 0)
        bw_idle<kCq>(w, ph.name, now, p.last_progress, armed, true);
    if constexpr (kCredits) {  // and a receive for it at the peer (credits raise no event)
      while (q.credits->posted + 1 > *q.credits->granted + q.credits->window)
        if (poll_bw<kOp, V, kCredits>(w, ph, wcs, false, p, now) == 0)
          bw_idle<kCq>(w, ph.name, now, p.last_progress, armed, false);
      ++q.credits->posted;
    }
    // One signaled WR alone covers the unsignaled ones before it.
    ibv_send_wr* const next = q.wr[0].next;
    q.wr[0].next = nullptr;
    q.wr[0].send_flags = w.base_send_flags | IBV_SEND_SIGNALED;
    q.wr[0].wr_id = i | (uint64_t{q.unsignaled + 1} << 32);
    q.unsignaled = 0;
    ibv_send_wr* bad = nullptr;
    const int rc = V::post_send(q.qp, q.wr, &bad);
    q.wr[0].next = next;
    ++w.post_calls;
    if (rc != 0) throw_post_error(w, q, rc, false, ph.name);
    ++q.posted;
  }
  return p;
}

}  // namespace detail

// kCredits: keep sends within the peer's receive credits (recv_credits.h; iWARP send).
// The one function exempt from the 80-line rule (.clang-tidy): the hot loop stays whole, since
// its parts would be calls on the hot path.
template <Op kOp, QpType kQp, CqMode kCq, class V = VerbsOps, bool kCredits = false>
PhaseStats run_bw_phase(  // NOLINT(readability-function-size)
    WorkerContext& w, const BwPhase& ph) {
  static_assert(!kCredits || (uses_recv(kOp) && kQp == QpType::kRc));
  constexpr bool kReliable = kQp == QpType::kRc;
  const Clock& clock = *w.clock;
  const size_t nqp = w.qps.size();
  const uint32_t plist = w.post_list;
  for (QpSlot& q : w.qps) {
    q.posted = 0;
    q.completed = 0;
    q.unsignaled = 0;
  }
  PhaseStats st;
  ibv_wc wcs[kPollBatch];
  bool armed = false;
  bool time_up = !ph.send;
  detail::BwProgress progress;
  progress.qps_done = ph.send ? 0 : nqp;
  uint64_t now = clock.now();
  st.t_start = now;
  progress.last_progress = now;
  progress.last_recv_progress = now;
  bool finished_seen = false;
  // The measured operations so far, shown to the control thread (WorkerProgress).
  std::atomic<uint64_t>& shown = w.control->progress[w.index].ops;

  for (;;) {
    // Post as much as the send queues allow.
    bool sq_room = false;
    bool credit_wait = false;  // a list waits for the peer's receive credits
    if (!time_up) {
      for (size_t i = 0; i < nqp; ++i) {
        QpSlot& q = w.qps[i];
        // One post call per list of `post_list` chained WRs (the last list of a phase may be
        // shorter); a list is posted only when the send queue has room for all of it.
        while (q.posted < ph.target) {
          const uint64_t left = ph.target - q.posted;
          const uint32_t n = left < plist ? static_cast<uint32_t>(left) : plist;
          if (q.posted - q.completed + n > w.tx_depth) break;
          if constexpr (kCredits) {
            const CreditGroup& g = *q.credits;
            if (g.posted + n > *g.granted + g.window) {
              credit_wait = true;
              break;
            }
          }
          for (uint32_t k = 0; k < n; ++k) {
            ibv_send_wr& wr = q.wr[k];
            ++q.unsignaled;
            if (q.unsignaled == w.signal_every || q.posted + k + 1 == ph.target) {
              wr.send_flags = w.base_send_flags | IBV_SEND_SIGNALED;
              wr.wr_id = i | (uint64_t{q.unsignaled} << 32);
              q.unsignaled = 0;
            } else {
              wr.send_flags = w.base_send_flags;
            }
          }
          if (n < plist) [[unlikely]]
            q.wr[n - 1].next = nullptr;
          ibv_send_wr* bad = nullptr;
          const int rc = V::post_send(q.qp, q.wr, &bad);
          if (n < plist) [[unlikely]]
            q.wr[n - 1].next = &q.wr[n];
          ++w.post_calls;
          if (rc != 0) [[unlikely]]
            throw_post_error(w, q, rc, false, ph.name);
          q.posted += n;
          if constexpr (kCredits) q.credits->posted += n;
        }
        sq_room |= q.posted < ph.target;
      }
    }

    const int n = detail::poll_bw<kOp, V, kCredits>(w, ph, wcs, !time_up, progress, now);
    shown.store(progress.window_ops, std::memory_order_relaxed);  // for the control thread

    // Deadline (duration mode, or told to stop): stop posting; flush unsignaled work with one
    // signaled op each.
    if (!time_up && ph.deadline != 0 &&
        (now >= ph.deadline || w.control->stop.load(std::memory_order_relaxed))) {
      time_up = true;
      st.t_end = now;
      st.ops = progress.window_ops;
      progress = detail::flush_unsignaled<kOp, kCq, V, kCredits>(w, ph, wcs, progress, armed);
      now = clock.now();
    }

    // Done?
    bool send_done;
    if (ph.deadline != 0) {
      send_done = time_up;
      if (send_done)
        for (const QpSlot& q : w.qps) send_done &= q.completed == q.posted;
    } else {
      send_done = progress.qps_done == nqp;
      if (send_done && ph.send && st.t_end == 0) {
        st.t_end = now;
        st.ops = progress.window_ops;
      }
    }
    bool recv_done = true;
    if constexpr (uses_recv(kOp)) {
      if (ph.recv) {
        uint64_t until = ph.recv_until != UINT64_MAX
                             ? ph.recv_until
                             : w.control->expected_recv[w.index].load(std::memory_order_relaxed);
        recv_done = w.received >= until;
        if (!recv_done && !kReliable && w.control->peer_finished.load(std::memory_order_relaxed)) {
          // Unreliable transport: after the peer finished, stop once the wire is quiet.
          if (!finished_seen) {
            finished_seen = true;
            progress.last_recv_progress = now;
          }
          recv_done = now - progress.last_recv_progress > w.drain_ticks;
        }
      }
    }
    if (send_done && recv_done) break;
    // Credits arrive by RDMA WRITE, which raises no completion: a sender waiting for them polls.
    if (n == 0)
      detail::bw_idle<kCq>(w, ph.name, now, progress.last_progress, armed,
                           (!sq_room || time_up) && !credit_wait);
  }
  if constexpr (kCq == CqMode::kEvent) ack_cq_events(w);
  for (const QpSlot& q : w.qps) st.posted += q.posted;
  if (st.t_end == 0) st.t_end = clock.now();
  return st;
}

}  // namespace rdmabench
