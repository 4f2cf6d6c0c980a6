#pragma once
// Hot per-worker state the datapath loops run on. Everything here is built at setup (work
// requests, SGEs, pointers); the loops only flip flags and counters.
#include <infiniband/verbs.h>

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "harness/clock.h"
#include "harness/histogram.h"

namespace rdmabench {

struct QpSlot {
  ibv_qp* qp = nullptr;
  ibv_srq* srq = nullptr;       // receives go here when set
  ibv_send_wr wr{};             // prebuilt: opcode, sge, remote address/rkey or UD AH
  ibv_sge sge{};
  ibv_recv_wr rwr{};            // prebuilt receive (wr_id = slot index)
  ibv_sge rsge{};
  volatile uint8_t* rx_last = nullptr;  // write latency: last byte of the receive region
  uint8_t* tx_last = nullptr;           //                last byte of the send region
  uint64_t posted = 0;
  uint64_t completed = 0;
  uint32_t unsignaled = 0;
};

// Signals from the control thread to the workers.
struct WorkerControl {
  explicit WorkerControl(size_t workers) : expected_recv(workers) {
    for (auto& e : expected_recv) e.store(UINT64_MAX);
  }
  std::atomic<bool> abort{false};            // stop now (error elsewhere, signal)
  std::atomic<bool> peer_finished{false};    // peer reported FINISH: stop pong / drain receives
  std::atomic<uint32_t> senders_done{0};     // workers whose send phases are over
  std::atomic<uint32_t> workers_done{0};     // workers that returned (ok or error)
  std::atomic<const char*> phase{"start"};   // what the workers are doing (for error messages)
  std::vector<std::atomic<uint64_t>> expected_recv;  // per worker: messages to receive, once known
};

struct WorkerContext {
  uint32_t index = 0;
  std::vector<QpSlot> qps;
  ibv_cq* cq = nullptr;
  ibv_comp_channel* channel = nullptr;
  const Clock* clock = nullptr;
  WorkerControl* control = nullptr;
  uint32_t tx_depth = 1;
  uint32_t signal_every = 1;
  unsigned base_send_flags = 0;  // IBV_SEND_INLINE when the size fits the inline threshold
  uint64_t timeout_ticks = 0;    // longest time without progress
  uint64_t drain_ticks = 0;      // unreliable QPs: quiet time after FINISH before giving up
  // Receive accounting (cumulative over the size).
  uint64_t received = 0;
  uint64_t received_bytes = 0;   // payload only
  uint32_t recv_header_bytes = 0;  // UD: the 40-byte GRH a receive completion also counts
  unsigned events_unacked = 0;
};

// Result of one datapath phase of one worker.
struct PhaseStats {
  uint64_t ops = 0;        // completed operations counted in the measured window
  uint64_t t_start = 0;    // clock ticks
  uint64_t t_end = 0;
  uint64_t posted = 0;     // operations posted in total (incl. any after the window)
};

}  // namespace rdmabench
