#pragma once
// The latency loops, templated on op and CQ mode (the QP type changes nothing here). Ping (the
// client) times each round trip with the TSC and records it in the worker's histogram; pong (the
// server) answers.
//  - send, send_imm, write_imm: arrival is a receive completion.
//  - write: arrival is the last byte of the receive region changing to the iteration's marker
//    (the perftest write_lat method); the send completion is only reaped.
//  - read and atomics: the round trip is the requester's own completion; there is no pong.
// Closed loop (default): one message in flight, optionally `gap_ticks` of busy-waiting between
// iterations. Open loop (`period_ticks` > 0, run_lat_open): the client posts on a fixed
// schedule whatever the replies do, and records each reply's time from its *intended* send
// time, so queueing behind a slow responder shows in the histogram (coordinated omission
// corrected, as HdrHistogram's corrected recording does).
#include <infiniband/verbs.h>

#include "engine/completion.h"
#include "engine/work_request_ex.h"
#include "model/workload.h"

namespace rdmabench {

struct LatPhase {
  const char* name = "measurement";
  uint64_t count = 0;         // iterations (UINT64_MAX: until deadline / peer finished)
  uint64_t deadline = 0;      // ticks; 0 = none
  Histogram* hist = nullptr;  // record round trips here (nullptr: warm-up)
  uint8_t marker = 0;         // write: last marker used; updated on return
};

namespace detail {

// Polls the CQ once; accounts send completions and returns true when a receive arrived.
template <Op kOp, CqMode kCq, class V>
inline int poll_lat(WorkerContext& w, QpSlot& q, const char* phase, bool& got_recv, bool& got_own) {
  ibv_wc wcs[kPollBatch];
  int n = poll_worker_cq<V>(w, wcs);
  if (n < 0) [[unlikely]]
    throw SysError("ibv_poll_cq", -n, std::string("worker CQ in ") + phase);
  for (int k = 0; k < n; ++k) {
    const ibv_wc& wc = wcs[k];
    if (wc.status != IBV_WC_SUCCESS) [[unlikely]]
      throw_completion_error(w, wc, phase);
    if ((wc.opcode & IBV_WC_RECV) != 0) {
      ++w.received;
      w.received_bytes += wc.byte_len - w.recv_header_bytes;
      if (w.defer_recv)
        ++w.qps[wc.wr_id].recv_owed;  // re-posted after the reply (repost_owed)
      else
        repost_recv<V>(w, wc, phase);
      got_recv = true;
    } else {
      q.completed += wc.wr_id >> 32;
      got_own = true;
    }
  }
  return n;
}

// `last`: the phase's last send, signaled whatever the interval, so the phase can reap it.
template <Op kOp, CqMode kCq, class V>
inline void post_one(WorkerContext& w, QpSlot& q, const char* phase, bool last) {
  // Keep the send queue from overflowing with unsignaled work.
  ++q.unsignaled;
  if (q.unsignaled == w.signal_every || last || is_fetch(kOp)) {
    q.wr->send_flags = w.base_send_flags | IBV_SEND_SIGNALED;
    q.wr->wr_id = uint64_t{q.unsignaled} << 32;
    q.unsignaled = 0;
  } else {
    q.wr->send_flags = w.base_send_flags;
  }
  ibv_send_wr* bad = nullptr;
  // Latency mode: a list of one, through the extended QP's ibv_wr_* where it has one.
  const int rc = q.qpx != nullptr ? post_wr_ex<kOp>(q.qpx, *q.wr) : V::post_send(q.qp, q.wr, &bad);
  ++w.post_calls;
  if (rc != 0) [[unlikely]]
    throw_post_error(w, q, rc, false, phase);
  ++q.posted;
}

// Polls of one wait before wait_arrival first reads the clock for its timeout in poll mode (every
// 256th poll from there on): at tens of ns a poll, a wait this long is already an extreme outlier.
inline constexpr uint32_t kSpinsBeforeClock = uint32_t{1} << 16;

// Waits until the current iteration's message arrived (or the own fetch completed).
template <Op kOp, CqMode kCq, class V>
inline bool wait_arrival(WorkerContext& w, QpSlot& q, uint8_t marker, const char* phase,
                         bool stop_on_finish) {
  const Clock& clock = *w.clock;
  uint64_t start = 0;
  bool armed = false;
  for (uint32_t spin = 0;; ++spin) {
    bool got_recv = false;
    bool got_own = false;
    if constexpr (kOp == Op::kWrite) {
      if (*q.rx_last == marker) return true;
      if ((spin & 63) == 0) poll_lat<kOp, kCq, V>(w, q, phase, got_recv, got_own);
    } else {
      int n = poll_lat<kOp, kCq, V>(w, q, phase, got_recv, got_own);
      if constexpr (is_fetch(kOp)) {
        if (got_own && q.completed == q.posted) return true;
      } else {
        if (got_recv) return true;
      }
      if (n != 0) continue;
    }
    if ((spin & 255) != 255) continue;
    if (w.control->abort.load(std::memory_order_relaxed)) [[unlikely]]
      throw Error(std::string(phase) + ": aborted");
    if (stop_on_finish && w.control->peer_finished.load(std::memory_order_relaxed)) return false;
    if constexpr (kCq == CqMode::kEvent && kOp != Op::kWrite) wait_cq_event(w, armed, 100, phase);
    // Poll mode reads the clock for the timeout only in a wait already far longer than any
    // round trip: a read inside the measured span would add its own cost to the sample (about
    // 1 µs for clock_gettime where the guest's clocksource is HPET). Event mode slept above.
    if (kCq == CqMode::kPoll && spin < kSpinsBeforeClock) continue;
    uint64_t now = clock.now();
    if (start == 0) start = now;
    if (now - start > w.timeout_ticks) [[unlikely]]
      throw_timeout(w, phase,
                    "waiting for the peer's reply; " + std::to_string(q.posted) +
                        " messages sent, " + std::to_string(w.received) + " received");
  }
}

// Checks, every 256 calls, for an abort and for no progress since `start` (set on the first check).
inline void check_stalled(WorkerContext& w, uint32_t spin, uint64_t& start, const char* phase,
                          const char* waiting_for, const QpSlot& q) {
  if ((spin & 255) != 255) return;
  uint64_t now = w.clock->now();
  if (start == 0) start = now;
  if (w.control->abort.load(std::memory_order_relaxed)) [[unlikely]]
    throw Error(std::string(phase) + ": aborted");
  if (now - start > w.timeout_ticks) [[unlikely]]
    throw_timeout(w, phase,
                  std::string(waiting_for) + "; " + std::to_string(q.completed) + " of " +
                      std::to_string(q.posted) + " sends completed");
}

// Waits for room for one more send in the send queue.
template <Op kOp, CqMode kCq, class V>
inline void make_room(WorkerContext& w, QpSlot& q, const char* phase) {
  uint64_t start = 0;
  for (uint32_t spin = 0; q.posted + 1 > q.completed + w.tx_depth; ++spin) {
    bool r = false;
    bool o = false;
    if (poll_lat<kOp, kCq, V>(w, q, phase, r, o) == 0)
      check_stalled(w, spin, start, phase, "waiting for send completions", q);
  }
}

// Reaps every send completion of the phase, so that none is left in the CQ to be counted in the
// next message size (whose counters start from zero). Latency mode signals every send.
template <Op kOp, CqMode kCq, class V>
inline void drain_sends(WorkerContext& w, QpSlot& q, const char* phase) {
  uint64_t start = 0;
  for (uint32_t spin = 0; q.completed < q.posted; ++spin) {
    bool r = false;
    bool o = false;
    if (poll_lat<kOp, kCq, V>(w, q, phase, r, o) == 0)
      check_stalled(w, spin, start, phase, "waiting for the last send completions", q);
  }
}

// Ends a ping or pong phase: stops its clock, reaps its sends and re-posts what it consumed, so
// nothing is left over for the next phase.
template <Op kOp, CqMode kCq, class V>
inline PhaseStats end_phase(WorkerContext& w, QpSlot& q, LatPhase& ph, PhaseStats st, uint64_t ops,
                            uint8_t marker) {
  st.t_end = w.clock->now();
  st.ops = ops;
  drain_sends<kOp, kCq, V>(w, q, ph.name);
  repost_owed<V>(w, q, ph.name);
  ph.marker = marker;
  st.posted = q.posted;
  if constexpr (kCq == CqMode::kEvent) ack_cq_events(w);
  return st;
}

}  // namespace detail

// Client side: count round trips (or until the deadline).
template <Op kOp, CqMode kCq, class V = VerbsOps>
PhaseStats run_lat_ping(WorkerContext& w, LatPhase& ph) {
  QpSlot& q = w.qps[0];
  const Clock& clock = *w.clock;
  PhaseStats st;
  st.t_start = clock.now();
  uint8_t marker = ph.marker;
  uint64_t i = 0;
  uint64_t next_start = 0;  // --latency-gap: earliest start of the next iteration
  for (; i < ph.count; ++i) {
    detail::make_room<kOp, kCq, V>(w, q, ph.name);
    if constexpr (kOp == Op::kWrite) {
      marker = static_cast<uint8_t>(marker == 255 ? 1 : marker + 1);
      *q.tx_last = marker;
    }
    if (w.gap_ticks != 0)
      while (clock.now() < next_start) {
      }
    uint64_t t0 = clock.now();
    detail::post_one<kOp, kCq, V>(w, q, ph.name, i + 1 == ph.count);
    detail::wait_arrival<kOp, kCq, V>(w, q, marker, ph.name, false);
    uint64_t t1 = clock.now();
    next_start = t1 + w.gap_ticks;
    if (ph.hist != nullptr) ph.hist->record(t1 - t0);
    repost_owed<V>(w, q, ph.name);
    if (ph.deadline != 0 &&
        (t1 >= ph.deadline || w.control->stop.load(std::memory_order_relaxed))) {
      ++i;
      break;
    }
  }
  return detail::end_phase<kOp, kCq, V>(w, q, ph, st, i, marker);
}

// Server side: answer `count` messages, or until the peer reports it finished.
template <Op kOp, CqMode kCq, class V = VerbsOps>
PhaseStats run_lat_pong(WorkerContext& w, LatPhase& ph) {
  QpSlot& q = w.qps[0];
  PhaseStats st;
  st.t_start = w.clock->now();
  uint8_t marker = ph.marker;
  uint64_t i = 0;
  if constexpr (kOp == Op::kWrite) {
    for (; i < ph.count; ++i) {
      uint8_t expect = static_cast<uint8_t>(marker == 255 ? 1 : marker + 1);
      if (!detail::wait_arrival<kOp, kCq, V>(w, q, expect, ph.name, true)) break;
      marker = expect;
      detail::make_room<kOp, kCq, V>(w, q, ph.name);
      *q.tx_last = marker;
      detail::post_one<kOp, kCq, V>(w, q, ph.name, i + 1 == ph.count);
    }
  } else {
    // One reply per message received; several may be waiting (open-loop clients).
    const uint64_t base = w.received;
    while (i < ph.count) {
      if (w.received - base > i) {
        detail::make_room<kOp, kCq, V>(w, q, ph.name);
        detail::post_one<kOp, kCq, V>(w, q, ph.name, i + 1 == ph.count);
        repost_owed<V>(w, q, ph.name);  // the reply first, then the receive it consumed
        ++i;
        continue;
      }
      if (!detail::wait_arrival<kOp, kCq, V>(w, q, 0, ph.name, true)) break;
    }
  }
  return detail::end_phase<kOp, kCq, V>(w, q, ph, st, i, marker);
}

// Client side, open loop: message k is due at t_start + k * period_ticks and is posted then (or
// as soon as the send queue has room: it is then late); its reply is recorded from that intended
// time. Stops posting after `count` messages or at the deadline, then waits for the replies.
// RC only, and not for write (validate() refuses both).
template <Op kOp, CqMode kCq, class V = VerbsOps>
PhaseStats run_lat_open(WorkerContext& w, LatPhase& ph) {
  QpSlot& q = w.qps[0];
  const Clock& clock = *w.clock;
  const uint64_t period = w.period_ticks;
  PhaseStats st;
  const uint64_t t0 = clock.now();
  st.t_start = t0;
  uint64_t sent = 0;
  uint64_t done = 0;
  uint64_t due = t0;  // intended time of message `sent`
  uint64_t last_progress = t0;
  bool sending = ph.count > 0;
  ibv_wc wcs[kPollBatch];
  for (uint32_t spin = 0;; ++spin) {
    uint64_t now = clock.now();
    if (sending && now >= due) {
      if (ph.deadline != 0 &&
          (now >= ph.deadline || w.control->stop.load(std::memory_order_relaxed))) {
        sending = false;
      } else if (q.posted - q.completed < w.tx_depth) {
        const uint64_t lag = now - due;
        if (lag > w.late_ticks) ++st.late;
        if (lag > st.max_lag) st.max_lag = lag;
        if (sent == 0) st.first_post = now;
        st.last_post = now;
        detail::post_one<kOp, kCq, V>(w, q, ph.name, false);  // open loop: signal_every is 1
        ++sent;
        due += period;
        last_progress = now;
        if (sent == ph.count) sending = false;
      }
    }
    const int n = poll_worker_cq<V>(w, wcs);
    if (n < 0) [[unlikely]]
      throw SysError("ibv_poll_cq", -n, std::string("worker CQ in ") + ph.name);
    if (n > 0) {
      now = clock.now();
      for (int k = 0; k < n; ++k) {
        const ibv_wc& wc = wcs[k];
        if (wc.status != IBV_WC_SUCCESS) [[unlikely]]
          throw_completion_error(w, wc, ph.name);
        bool reply = false;
        if ((wc.opcode & IBV_WC_RECV) != 0) {
          ++w.received;
          w.received_bytes += wc.byte_len - w.recv_header_bytes;
          repost_recv<V>(w, wc, ph.name);
          reply = !is_fetch(kOp);
        } else {
          q.completed += wc.wr_id >> 32;
          reply = is_fetch(kOp);
        }
        if (reply) {
          if (ph.hist != nullptr) ph.hist->record(now - (t0 + done * period));
          ++done;
        }
      }
      last_progress = now;
    }
    if (!sending && done >= sent) break;
    if (n == 0 && (spin & 255) == 255) {
      if (w.control->abort.load(std::memory_order_relaxed)) [[unlikely]]
        throw Error(std::string(ph.name) + ": aborted");
      if (done < sent && now - last_progress > w.timeout_ticks) [[unlikely]]
        throw_timeout(w, ph.name,
                      "open loop: " + std::to_string(sent) + " messages sent, " +
                          std::to_string(done) + " replies");
    }
  }
  st.t_end = clock.now();
  st.ops = done;
  st.posted = q.posted;
  return st;
}

}  // namespace rdmabench
