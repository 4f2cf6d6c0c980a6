#include "engine/size_runner.h"

#include <pthread.h>
#include <sched.h>
#include <sys/resource.h>

#include "base/error.h"
#include "engine/bw_datapath.h"
#include "engine/lat_datapath.h"

namespace rdmabench {
namespace {

double tv_s(const timeval& t) { return double(t.tv_sec) + double(t.tv_usec) / 1e6; }

struct ThreadCpu {
  rusage start{};
  void begin() { getrusage(RUSAGE_THREAD, &start); }
  CpuUse end(double wall_s) const {
    rusage e{};
    getrusage(RUSAGE_THREAD, &e);
    CpuUse c;
    c.user_s = tv_s(e.ru_utime) - tv_s(start.ru_utime);
    c.sys_s = tv_s(e.ru_stime) - tv_s(start.ru_stime);
    c.utilization = wall_s > 0 ? (c.user_s + c.sys_s) / wall_s : 0;
    c.voluntary_switches = static_cast<uint64_t>(e.ru_nvcsw - start.ru_nvcsw);
    c.involuntary_switches = static_cast<uint64_t>(e.ru_nivcsw - start.ru_nivcsw);
    return c;
  }
};

void mark_sent(WorkerContext& c, WorkerOutcome& out) {
  if (!out.sent_marked) {
    c.control->senders_done.fetch_add(1);
    c.control->wake.notify();
  }
  out.sent_marked = true;
}

template <Op kOp, QpType kQp, CqMode kCq>
void worker_body(const Workload& w, WorkerContext& c, const SizePlan& p, WorkerOutcome& out) {
  const Clock& clk = *c.clock;
  auto ticks = [&](double s) { return static_cast<uint64_t>(s * 1e9 / clk.ns_per_tick()); };
  const bool dur = w.timed();
  // The measurement's deadline: --run-infinitely has none (WorkerControl::stop ends it).
  auto measure_until = [&] {
    return w.run_infinitely ? kNoDeadline : clk.now() + ticks(w.duration_s);
  };
  // The measurement starts: tell the control thread (WorkerProgress).
  auto publish_start = [&c] {
    WorkerProgress& pr = c.control->progress[c.index];
    pr.ops.store(0, std::memory_order_relaxed);
    pr.start.store(c.clock->now(), std::memory_order_release);
  };
  ThreadCpu cpu;
  // A bandwidth phase, within receive credits when the session has them (iWARP send).
  // The phase's signalling interval (Workload::bw_signal_every) is set before it, at setup.
  auto bw_phase = [&c, &w, &p](const BwPhase& ph) {
    if (ph.send) c.signal_every = w.bw_signal_every(p.size, ph.target);
    if constexpr (uses_recv(kOp) && kQp == QpType::kRc)
      if (!c.credit_groups.empty()) return run_bw_phase<kOp, kQp, kCq, VerbsOps, true>(c, ph);
    return run_bw_phase<kOp, kQp, kCq>(c, ph);
  };
  if (w.mode == Mode::kBw) {
    if (p.is_client || w.bidir) {
      if (dur ? w.warmup_s > 0 : p.warmup > 0) {
        c.control->phase.store("warm-up");
        BwPhase warm{
            "warm-up", true, dur ? UINT64_MAX : p.warmup, dur ? clk.now() + ticks(w.warmup_s) : 0,
            true,      0};
        out.posted_total += bw_phase(warm).posted;
      }
      c.control->phase.store("measurement");
      cpu.begin();
      publish_start();
      BwPhase meas{"measurement", true, dur ? UINT64_MAX : p.iterations, dur ? measure_until() : 0,
                   true,          0};
      out.measured = bw_phase(meas);
      out.cpu = cpu.end(clk.to_ns(out.measured.t_end - out.measured.t_start) / 1e9);
      out.posted_total += out.measured.posted;
    }
    mark_sent(c, out);
    if (uses_recv(kOp) && (!p.is_client || w.bidir)) {
      BwPhase rx{"receive", false, 0, 0, true, UINT64_MAX};
      bw_phase(rx);
    }
    return;
  }
  if (p.is_client) {
    // Open loop (--rate) for the ops it supports; validate() refuses it for write.
    auto phase = [&](LatPhase& ph) {
      if constexpr (kOp != Op::kWrite)
        if (w.open_loop()) return run_lat_open<kOp, kCq>(c, ph);
      return run_lat_ping<kOp, kCq>(c, ph);
    };
    LatPhase warm{"warm-up", dur ? UINT64_MAX : p.warmup, dur ? clk.now() + ticks(w.warmup_s) : 0,
                  nullptr, 0};
    c.control->phase.store("warm-up");
    if (dur || p.warmup > 0) phase(warm);
    c.control->phase.store("measurement");
    cpu.begin();
    publish_start();
    LatPhase meas{"measurement", dur ? UINT64_MAX : p.iterations, dur ? measure_until() : 0,
                  out.hist.get(), warm.marker};
    out.measured = phase(meas);
    out.cpu = cpu.end(clk.to_ns(out.measured.t_end - out.measured.t_start) / 1e9);
    out.posted_total = c.qps[0].posted;
  } else if constexpr (!is_fetch(kOp)) {
    LatPhase pong{"pong", dur ? UINT64_MAX : p.warmup + p.iterations, 0, nullptr, 0};
    out.measured = run_lat_pong<kOp, kCq>(c, pong);
    out.posted_total = c.qps[0].posted;
  }
  mark_sent(c, out);
}

template <Op kOp, QpType kQp>
void dispatch_cq(const Workload& w, WorkerContext& c, const SizePlan& p, WorkerOutcome& o) {
  if (w.cq == CqMode::kPoll)
    worker_body<kOp, kQp, CqMode::kPoll>(w, c, p, o);
  else
    worker_body<kOp, kQp, CqMode::kEvent>(w, c, p, o);
}

template <Op kOp>
void dispatch_qp(const Workload& w, WorkerContext& c, const SizePlan& p, WorkerOutcome& o) {
  // Only the combinations the verbs table allows are instantiated.
  switch (w.qp) {
    case QpType::kRc:
      dispatch_cq<kOp, QpType::kRc>(w, c, p, o);
      return;
    case QpType::kUc:
      if constexpr (!is_fetch(kOp)) dispatch_cq<kOp, QpType::kUc>(w, c, p, o);
      return;
    case QpType::kUd:
      if constexpr (kOp == Op::kSend || kOp == Op::kSendImm)
        dispatch_cq<kOp, QpType::kUd>(w, c, p, o);
      return;
  }
}

void dispatch(const Workload& w, WorkerContext& c, const SizePlan& p, WorkerOutcome& o) {
  switch (w.op) {
    case Op::kSend:
      dispatch_qp<Op::kSend>(w, c, p, o);
      return;
    case Op::kSendImm:
      dispatch_qp<Op::kSendImm>(w, c, p, o);
      return;
    case Op::kWrite:
      dispatch_qp<Op::kWrite>(w, c, p, o);
      return;
    case Op::kWriteImm:
      dispatch_qp<Op::kWriteImm>(w, c, p, o);
      return;
    case Op::kRead:
      dispatch_qp<Op::kRead>(w, c, p, o);
      return;
    case Op::kFetchAdd:
      dispatch_qp<Op::kFetchAdd>(w, c, p, o);
      return;
    case Op::kCmpSwap:
      dispatch_qp<Op::kCmpSwap>(w, c, p, o);
      return;
  }
}

}  // namespace

bool server_has_workers(const Workload& w) noexcept {
  if (w.mode == Mode::kLat) return !is_fetch(w.op);
  return w.bidir || uses_recv(w.op);
}

void run_worker(const Workload& w, WorkerContext& ctx, const SizePlan& plan, WorkerOutcome& out) {
  try {
    if (!w.cpus.empty()) {
      pin_current_thread(w.cpus[ctx.index % w.cpus.size()]);
    } else if (ctx.affinity != nullptr) {
      // --numa: the CPUs of the node the buffers are bound to.
      if (int rc = pthread_setaffinity_np(pthread_self(), sizeof(cpu_set_t), ctx.affinity); rc != 0)
        throw SysError("pthread_setaffinity_np", rc,
                       "worker " + std::to_string(ctx.index) + " to the CPUs of its NUMA node");
    }
    dispatch(w, ctx, plan, out);
  } catch (const TimeoutError& e) {
    out.error = e.what();
    out.timed_out = true;
    ctx.control->abort.store(true);
  } catch (const std::exception& e) {
    out.error = e.what();
    ctx.control->abort.store(true);
  }
  mark_sent(ctx, out);
  ctx.control->workers_done.fetch_add(1);
  ctx.control->wake.notify();
}

ControlThreadAside::ControlThreadAside(const std::vector<int>& cpus) noexcept {
  if (cpus.empty() || pthread_getaffinity_np(pthread_self(), sizeof saved_, &saved_) != 0) return;
  cpu_set_t rest = saved_;
  for (int c : cpus)
    if (c >= 0 && c < CPU_SETSIZE) CPU_CLR(c, &rest);
  if (CPU_COUNT(&rest) == 0) return;
  moved_ = pthread_setaffinity_np(pthread_self(), sizeof rest, &rest) == 0;
}

ControlThreadAside::~ControlThreadAside() {
  if (moved_) pthread_setaffinity_np(pthread_self(), sizeof saved_, &saved_);
}

void throw_worker_error(const std::vector<WorkerOutcome>& outcomes) {
  for (const WorkerOutcome& o : outcomes) {
    if (o.error.empty()) continue;
    if (o.timed_out) throw TimeoutError(o.error);
    throw CompletionError(o.error);
  }
}

void pin_current_thread(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  if (int rc = pthread_setaffinity_np(pthread_self(), sizeof set, &set); rc != 0)
    throw ConfigError("cpus", std::to_string(cpu),
                      "a CPU this process may run on (this host has " +
                          std::to_string(sysconf(_SC_NPROCESSORS_ONLN)) + " online)");
}

}  // namespace rdmabench
