#pragma once
// One worker's share of one message size, on either side. Picks the templated datapath for the
// workload's op, QP type and CQ mode once, outside the loop.
#include <sched.h>

#include <memory>
#include <string>
#include <vector>

#include "base/histogram.h"
#include "engine/worker_context.h"
#include "model/result.h"
#include "model/workload.h"

namespace rdmabench {

struct SizePlan {
  uint64_t size = 0;
  uint64_t warmup = 0;      // per QP (count mode)
  uint64_t iterations = 0;  // per QP (count mode)
  bool is_client = true;
};

struct WorkerOutcome {
  PhaseStats measured;
  uint64_t posted_total = 0;  // everything this worker sent for the size, warm-up included
  CpuUse cpu;
  std::unique_ptr<Histogram> hist;  // latency mode, client
  std::string error;
  bool timed_out = false;    // the error is a no-progress stall (TimeoutError: exit status 4)
  bool sent_marked = false;  // senders_done was incremented for this worker
};

// While it lives, the calling thread (a session's control thread) may run only on the CPUs it
// was allowed other than `cpus` (the workers' --cpus), when one is left: its heartbeats and
// interval ticks then never wake on a measuring worker's CPU. Without --cpus, or when the workers
// hold every allowed CPU (taskset -c to one CPU), it changes nothing. Restores the thread's
// affinity at the end.
class ControlThreadAside {
 public:
  explicit ControlThreadAside(const std::vector<int>& cpus) noexcept;
  ~ControlThreadAside();
  ControlThreadAside(const ControlThreadAside&) = delete;
  ControlThreadAside& operator=(const ControlThreadAside&) = delete;

 private:
  cpu_set_t saved_{};
  bool moved_ = false;
};

// Throws the first worker error of `outcomes`, as the kind it was (a stall as TimeoutError,
// anything else as CompletionError); returns when none failed.
void throw_worker_error(const std::vector<WorkerOutcome>& outcomes);

// Does the server run worker threads for this workload? (It does not for one-sided ops unless
// bidirectional, nor for read/atomic latency.)
bool server_has_workers(const Workload& w) noexcept;

// Runs the worker; never throws: an error lands in out.error and sets control->abort.
// Always increments control->senders_done and control->workers_done.
void run_worker(const Workload& w, WorkerContext& ctx, const SizePlan& plan, WorkerOutcome& out);

// Pins the calling thread to `cpu` (throws ConfigError naming the CPU when not allowed).
void pin_current_thread(int cpu);

}  // namespace rdmabench
