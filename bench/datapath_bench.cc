// The real bandwidth and latency loops (engine/*_datapath.h) over an in-memory fake of the
// verbs they call: what remains is rdmabench's own per-operation bookkeeping (signal decision,
// wr_id encoding, completion accounting, clock reads, histogram record), i.e. the engine's
// overhead per message on top of the provider.
#include <benchmark/benchmark.h>

#include <array>
#include <cmath>
#include <random>
#include <vector>

#include "engine/bw_datapath.h"
#include "engine/lat_datapath.h"
#include "engine/work_requests.h"

namespace rdmabench {
namespace {

// A completion queue in memory: a signaled send completes at once; for latency runs, every send
// also produces the peer's reply (a receive completion).
struct FakeVerbs {
  static inline std::array<ibv_wc, 4096> ring{};
  static inline size_t head = 0;
  static inline size_t tail = 0;
  static inline bool echo = false;

  static void push(uint64_t wr_id, ibv_wc_opcode op) noexcept {
    ibv_wc& wc = ring[tail++ & (ring.size() - 1)];
    wc = {};
    wc.wr_id = wr_id;
    wc.status = IBV_WC_SUCCESS;
    wc.opcode = op;
  }
  static int post_send(ibv_qp*, ibv_send_wr* wr, ibv_send_wr**) noexcept {
    for (; wr != nullptr; wr = wr->next) {  // a post list: every chained WR
      if ((wr->send_flags & IBV_SEND_SIGNALED) != 0) push(wr->wr_id, IBV_WC_SEND);
      if (echo) push(0, IBV_WC_RECV);
    }
    return 0;
  }
  static int post_recv(ibv_qp*, ibv_recv_wr*, ibv_recv_wr**) noexcept { return 0; }
  static int post_srq_recv(ibv_srq*, ibv_recv_wr*, ibv_recv_wr**) noexcept { return 0; }
  static int poll_cq(ibv_cq*, int n, ibv_wc* wc) noexcept {
    int k = 0;
    while (k < n && head != tail) wc[k++] = ring[head++ & (ring.size() - 1)];
    return k;
  }
};

struct Rig {
  Clock clock = Clock::calibrate();
  WorkerControl control{1};
  WorkerContext ctx;
  Rig(uint32_t signal_every, bool echo, uint32_t post_list = 1) {
    FakeVerbs::head = FakeVerbs::tail = 0;
    FakeVerbs::echo = echo;
    ctx.qps.resize(1);
    shape_slot(ctx.qps[0], post_list, 1);
    ctx.post_list = post_list;
    ctx.clock = &clock;
    ctx.control = &control;
    ctx.tx_depth = 128;
    ctx.signal_every = signal_every;
    ctx.timeout_ticks = UINT64_MAX / 2;
    ctx.drain_ticks = 0;
  }
};

void BM_BwLoopPerOp(benchmark::State& state) {
  Rig rig(static_cast<uint32_t>(state.range(0)), false);
  constexpr uint64_t kOps = 1 << 16;
  for (auto _ : state) {
    BwPhase ph{"bench", true, kOps, 0, false, 0};
    PhaseStats st = run_bw_phase<Op::kWrite, QpType::kRc, CqMode::kPoll, FakeVerbs>(rig.ctx, ph);
    benchmark::DoNotOptimize(st);
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * kOps));
  state.SetLabel("signal every " + std::to_string(state.range(0)));
}
BENCHMARK(BM_BwLoopPerOp)->Arg(1)->Arg(16)->Arg(100);

// Doorbell batching (--post-list): N chained WRs per post call, signaling every 64.
void BM_BwLoopPostList(benchmark::State& state) {
  const auto n = static_cast<uint32_t>(state.range(0));
  Rig rig(64, false, n);
  constexpr uint64_t kOps = 1 << 16;
  for (auto _ : state) {
    BwPhase ph{"bench", true, kOps, 0, false, 0};
    PhaseStats st = run_bw_phase<Op::kWrite, QpType::kRc, CqMode::kPoll, FakeVerbs>(rig.ctx, ph);
    benchmark::DoNotOptimize(st);
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * kOps));
  state.SetLabel("post list " + std::to_string(n));
}
BENCHMARK(BM_BwLoopPostList)->Arg(1)->Arg(8)->Arg(32);

void BM_LatPingPerOp(benchmark::State& state) {
  Rig rig(1, true);
  constexpr uint64_t kOps = 1 << 14;
  // As the engine's: every round trip kept too (exact percentiles).
  Histogram hist(static_cast<uint64_t>(3600e9 / rig.clock.ns_per_tick()), 0.01, kOps);
  for (auto _ : state) {
    state.PauseTiming();
    hist.reset();
    state.ResumeTiming();
    LatPhase ph{"bench", kOps, 0, &hist, 0};
    PhaseStats st = run_lat_ping<Op::kSend, CqMode::kPoll, FakeVerbs>(rig.ctx, ph);
    benchmark::DoNotOptimize(st);
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * kOps));
  state.SetLabel("incl. 2 clock reads + histogram record (sample kept) per op");
}
BENCHMARK(BM_LatPingPerOp);

// The engine's per-operation overhead if every operation were also timed: the bandwidth loop's
// bookkeeping (signal every 100, as perftest's default CQ moderation) plus one histogram record
// per operation, of log-normal latencies around 3 us. The target is <= 10 ns per op
// (one core could then drive >= 50 M ops/s with the provider's own cost on top).
void BM_BwBookkeepingPlusRecordPerOp(benchmark::State& state) {
  Rig rig(100, false);
  Histogram hist(static_cast<uint64_t>(3600e9 / rig.clock.ns_per_tick()), 0.01);
  std::vector<uint64_t> values(1 << 16);
  std::mt19937_64 rng(7);
  std::lognormal_distribution<double> dist(std::log(3000.0 / rig.clock.ns_per_tick()), 1.0);
  for (auto& v : values) v = static_cast<uint64_t>(dist(rng));
  constexpr uint64_t kOps = 1 << 16;
  for (auto _ : state) {
    BwPhase ph{"bench", true, kOps, 0, false, 0};
    PhaseStats st = run_bw_phase<Op::kWrite, QpType::kRc, CqMode::kPoll, FakeVerbs>(rig.ctx, ph);
    for (uint64_t i = 0; i < kOps; ++i) hist.record(values[i]);
    benchmark::DoNotOptimize(st);
  }
  benchmark::DoNotOptimize(hist.count());
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * kOps));
  state.SetLabel("bw bookkeeping (signal every 100) + 1 histogram record per op");
}
BENCHMARK(BM_BwBookkeepingPlusRecordPerOp);

}  // namespace
}  // namespace rdmabench
