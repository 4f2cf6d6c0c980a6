#pragma once
// The latency loops, templated like the bandwidth loop. Ping (the client) times each round
// trip with the TSC and records it in the worker's histogram; pong (the server) answers.
//  - send, send_imm, write_imm: arrival is a receive completion.
//  - write: arrival is the last byte of the receive region changing to the iteration's marker
//    (the perftest write_lat method); the send completion is only reaped.
//  - read and atomics: the round trip is the requester's own completion; there is no pong.
#include <infiniband/verbs.h>

#include "workloads/completion.h"
#include "workloads/workload.h"

namespace rdmabench {

struct LatPhase {
  const char* name = "measurement";
  uint64_t count = 0;       // iterations (UINT64_MAX: until deadline / peer finished)
  uint64_t deadline = 0;    // ticks; 0 = none
  Histogram* hist = nullptr;  // record round trips here (nullptr: warm-up)
  uint8_t marker = 0;       // write: last marker used; updated on return
};

namespace detail {

// Polls the CQ once; accounts send completions and returns true when a receive arrived.
template <Op kOp, CqMode kCq, class V>
inline int poll_lat(WorkerContext& w, QpSlot& q, const char* phase, bool& got_recv,
                    bool& got_own) {
  ibv_wc wcs[kPollBatch];
  int n = V::poll_cq(w.cq, kPollBatch, wcs);
  if (n < 0) [[unlikely]]
    throw SysError("ibv_poll_cq", -n, std::string("worker CQ in ") + phase);
  for (int k = 0; k < n; ++k) {
    const ibv_wc& wc = wcs[k];
    if (wc.status != IBV_WC_SUCCESS) [[unlikely]]
      throw_completion_error(w, wc, phase);
    if ((wc.opcode & IBV_WC_RECV) != 0) {
      ++w.received;
      w.received_bytes += wc.byte_len - w.recv_header_bytes;
      repost_recv<V>(w, wc, phase);
      got_recv = true;
    } else {
      q.completed += wc.wr_id >> 32;
      got_own = true;
    }
  }
  return n;
}

template <Op kOp, CqMode kCq, class V>
inline void post_one(WorkerContext& w, QpSlot& q, const char* phase) {
  // Keep the send queue from overflowing with unsignaled work.
  ++q.unsignaled;
  if (q.unsignaled == w.signal_every || is_fetch(kOp)) {
    q.wr.send_flags = w.base_send_flags | IBV_SEND_SIGNALED;
    q.wr.wr_id = uint64_t{q.unsignaled} << 32;
    q.unsignaled = 0;
  } else {
    q.wr.send_flags = w.base_send_flags;
  }
  ibv_send_wr* bad = nullptr;
  if (int rc = V::post_send(q.qp, &q.wr, &bad); rc != 0) [[unlikely]]
    throw_post_error(w, q, rc, false, phase);
  ++q.posted;
}

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
    uint64_t now = clock.now();
    if (start == 0) start = now;
    if (w.control->abort.load(std::memory_order_relaxed)) [[unlikely]]
      throw Error(std::string(phase) + ": aborted");
    if (stop_on_finish && w.control->peer_finished.load(std::memory_order_relaxed)) return false;
    if (now - start > w.timeout_ticks) [[unlikely]]
      throw_timeout(w, phase, "waiting for the peer's reply; " + std::to_string(q.posted) +
                                  " messages sent, " + std::to_string(w.received) + " received");
    if constexpr (kCq == CqMode::kEvent && kOp != Op::kWrite) wait_cq_event(w, armed, 100, phase);
  }
}

template <Op kOp, CqMode kCq, class V>
inline void make_room(WorkerContext& w, QpSlot& q, const char* phase) {
  while (q.posted - q.completed + 1 > w.tx_depth) {
    bool r = false;
    bool o = false;
    poll_lat<kOp, kCq, V>(w, q, phase, r, o);
    if (w.control->abort.load(std::memory_order_relaxed)) throw Error("aborted");
  }
}

}  // namespace detail

// Client side: count round trips (or until the deadline).
template <Op kOp, QpType kQp, CqMode kCq, class V = VerbsOps>
PhaseStats run_lat_ping(WorkerContext& w, LatPhase& ph) {
  (void)kQp;
  QpSlot& q = w.qps[0];
  const Clock& clock = *w.clock;
  PhaseStats st;
  st.t_start = clock.now();
  uint8_t marker = ph.marker;
  uint64_t i = 0;
  for (; i < ph.count; ++i) {
    detail::make_room<kOp, kCq, V>(w, q, ph.name);
    if constexpr (kOp == Op::kWrite) {
      marker = static_cast<uint8_t>(marker == 255 ? 1 : marker + 1);
      *q.tx_last = marker;
    }
    uint64_t t0 = clock.now();
    detail::post_one<kOp, kCq, V>(w, q, ph.name);
    detail::wait_arrival<kOp, kCq, V>(w, q, marker, ph.name, false);
    uint64_t t1 = clock.now();
    if (ph.hist != nullptr) ph.hist->record(t1 - t0);
    if (ph.deadline != 0 && t1 >= ph.deadline) {
      ++i;
      break;
    }
  }
  st.t_end = clock.now();
  st.ops = i;
  // Reap outstanding signaled sends so the next phase starts from an empty queue.
  if (q.unsignaled != 0) {
    // nothing signaled covers them; they complete silently with the QP's next signaled op
  }
  ph.marker = marker;
  st.posted = q.posted;
  if constexpr (kCq == CqMode::kEvent) ack_cq_events(w);
  return st;
}

// Server side: answer `count` messages, or until the peer reports it finished.
template <Op kOp, QpType kQp, CqMode kCq, class V = VerbsOps>
PhaseStats run_lat_pong(WorkerContext& w, LatPhase& ph) {
  (void)kQp;
  QpSlot& q = w.qps[0];
  PhaseStats st;
  st.t_start = w.clock->now();
  uint8_t marker = ph.marker;
  uint64_t i = 0;
  for (; i < ph.count; ++i) {
    uint8_t expect = static_cast<uint8_t>(marker == 255 ? 1 : marker + 1);
    if (!detail::wait_arrival<kOp, kCq, V>(w, q, expect, ph.name, true)) break;
    marker = expect;
    detail::make_room<kOp, kCq, V>(w, q, ph.name);
    if constexpr (kOp == Op::kWrite) *q.tx_last = marker;
    detail::post_one<kOp, kCq, V>(w, q, ph.name);
  }
  st.t_end = w.clock->now();
  st.ops = i;
  ph.marker = marker;
  st.posted = q.posted;
  if constexpr (kCq == CqMode::kEvent) ack_cq_events(w);
  return st;
}

}  // namespace rdmabench
