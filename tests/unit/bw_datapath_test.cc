// The bandwidth loop's deadline flush (engine/bw_datapath.h): in duration mode, at the
// deadline each QP with unsignaled work posts one signaled WR, first waiting for send-queue room.
// That wait polls through the loop's one completion handler, so it fails like the main loop does:
// on a poll error, on an abort, and after timeout_ticks without progress (it used to spin forever
// on a CQ that stayed empty). A verbs policy whose CQ never completes the sends drives it there.
#include "engine/bw_datapath.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <string>
#include <vector>

#include "base/clock.h"
#include "base/error.h"
#include "engine/work_requests.h"
#include "engine/worker_context.h"

namespace rdmabench {
namespace {

// Sends are accepted and never complete; from poll number `fail_from` on, polling fails.
struct StuckVerbs {
  static inline int polls = 0;
  static inline int fail_from = INT32_MAX;
  static int post_send(ibv_qp*, ibv_send_wr*, ibv_send_wr**) noexcept { return 0; }
  static int post_recv(ibv_qp*, ibv_recv_wr*, ibv_recv_wr**) noexcept { return 0; }
  static int post_srq_recv(ibv_srq*, ibv_recv_wr*, ibv_recv_wr**) noexcept { return 0; }
  static int poll_cq(ibv_cq*, int, ibv_wc*) noexcept { return ++polls >= fail_from ? -EIO : 0; }
};

constexpr uint32_t kDepth = 4;

struct Rig {
  Clock clock = Clock::calibrate();
  WorkerControl control{1};
  WorkerContext ctx;
  Rig() {
    StuckVerbs::polls = 0;
    StuckVerbs::fail_from = INT32_MAX;
    ctx.qps.resize(1);
    shape_slot(ctx.qps[0], 1, 1);
    ctx.clock = &clock;
    ctx.control = &control;
    ctx.tx_depth = kDepth;
    ctx.signal_every = 100;  // the queue fills with unsignaled work
    ctx.post_list = 1;
    ctx.timeout_ticks = UINT64_MAX / 2;
  }
  // Duration mode with the deadline already passed: the first pass posts a full queue, finds
  // no completion and goes to the flush.
  PhaseStats run() {
    BwPhase ph{"measurement", true, UINT64_MAX, clock.now(), false, 0};
    return run_bw_phase<Op::kWrite, QpType::kRc, CqMode::kPoll, StuckVerbs>(ctx, ph);
  }
  // The flush's signaled WR was not posted: the failure came from its wait for room.
  void expect_failed_in_flush_wait() const {
    EXPECT_EQ(ctx.qps[0].posted, kDepth);
    EXPECT_EQ(ctx.qps[0].unsignaled, kDepth);
    EXPECT_EQ(ctx.qps[0].completed, 0u);
  }
};

TEST(BwDatapath, FlushWaitTimesOutWithoutProgress) {
  Rig rig;
  rig.ctx.timeout_ticks = 0;  // any time without progress is too long
  try {
    rig.run();
    FAIL() << "the flush returned although no send ever completed";
  } catch (const TimeoutError& e) {
    EXPECT_NE(std::string(e.what()).find("0 of 4 posted operations completed"), std::string::npos)
        << e.what();
    // It names the timeout it used and the option that raises it.
    EXPECT_NE(std::string(e.what()).find("no progress for 0 s"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("--timeout 0 was the longest wait without a completion: "
                                         "raise --timeout"),
              std::string::npos)
        << e.what();
  }
  rig.expect_failed_in_flush_wait();
  EXPECT_GE(StuckVerbs::polls, 2);  // the main loop's poll, then the flush's
}

TEST(BwDatapath, FlushWaitStopsOnAbort) {
  Rig rig;
  rig.control.abort = true;
  try {
    rig.run();
    FAIL() << "the flush returned although no send ever completed";
  } catch (const TimeoutError& e) {
    FAIL() << "timed out instead of stopping on the abort: " << e.what();
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "measurement: aborted");
  }
  rig.expect_failed_in_flush_wait();
}

TEST(BwDatapath, FlushWaitReportsPollErrors) {
  Rig rig;
  StuckVerbs::fail_from = 2;  // the main loop's poll succeeds, the flush's fails
  try {
    rig.run();
    FAIL() << "the flush ignored a failing ibv_poll_cq";
  } catch (const SysError& e) {
    EXPECT_NE(std::string(e.what()).find("ibv_poll_cq"), std::string::npos) << e.what();
  }
  rig.expect_failed_in_flush_wait();
  EXPECT_EQ(StuckVerbs::polls, 2);
}

// Every signaled send completes at the next poll (one completion covering its run of WRs).
struct CompletingVerbs {
  static inline std::vector<uint64_t> pending;
  static int post_send(ibv_qp*, ibv_send_wr* wr, ibv_send_wr**) noexcept {
    for (; wr != nullptr; wr = wr->next)
      if ((wr->send_flags & IBV_SEND_SIGNALED) != 0) pending.push_back(wr->wr_id);
    return 0;
  }
  static int post_recv(ibv_qp*, ibv_recv_wr*, ibv_recv_wr**) noexcept { return 0; }
  static int post_srq_recv(ibv_srq*, ibv_recv_wr*, ibv_recv_wr**) noexcept { return 0; }
  static int poll_cq(ibv_cq*, int n, ibv_wc* wcs) noexcept {
    int k = 0;
    for (; k < n && !pending.empty(); ++k) {
      wcs[k] = ibv_wc{};
      wcs[k].wr_id = pending.front();
      wcs[k].status = IBV_WC_SUCCESS;
      wcs[k].opcode = IBV_WC_RDMA_WRITE;
      pending.erase(pending.begin());
    }
    return k;
  }
};

// The loop shows the control thread its measured operations as it goes (WorkerProgress, for
// the intervals): at the end of a counted phase, exactly the phase's operations.
TEST(BwDatapath, ShowsItsCompletedOperations) {
  Rig rig;
  CompletingVerbs::pending.clear();
  rig.ctx.signal_every = 3;
  BwPhase ph{"measurement", true, 1000, 0, false, 0};
  const PhaseStats st =
      run_bw_phase<Op::kWrite, QpType::kRc, CqMode::kPoll, CompletingVerbs>(rig.ctx, ph);
  EXPECT_EQ(st.ops, 1000U);
  EXPECT_EQ(rig.control.progress[0].ops.load(), 1000U);
}

// WorkerControl::stop ends a timed phase without an end (--run-infinitely) as its deadline
// would: posting stops, unsignaled work is flushed, everything posted completes, and what was
// measured is what the loop showed.
TEST(BwDatapath, StopEndsAPhaseWithoutDeadline) {
  Rig rig;
  CompletingVerbs::pending.clear();
  rig.ctx.signal_every = 3;
  rig.control.stop = true;
  BwPhase ph{"measurement", true, UINT64_MAX, kNoDeadline, false, 0};
  const PhaseStats st =
      run_bw_phase<Op::kWrite, QpType::kRc, CqMode::kPoll, CompletingVerbs>(rig.ctx, ph);
  EXPECT_EQ(rig.ctx.qps[0].completed, rig.ctx.qps[0].posted);
  EXPECT_GE(rig.ctx.qps[0].posted, uint64_t{kDepth});
  EXPECT_EQ(rig.control.progress[0].ops.load(), st.ops);
  EXPECT_TRUE(CompletingVerbs::pending.empty());
}

}  // namespace
}  // namespace rdmabench
