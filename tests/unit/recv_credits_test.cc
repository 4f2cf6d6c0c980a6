// Receive credits (engine/recv_credits.h, recv_credit_rules.h): the step rule, a sender that
// stops at the window until the peer's credits arrive, and a receiver that writes its re-posted
// count once per step, one write in flight, re-writing after the completion what came since.
// A scripted verbs policy stands in for the device.
#include "engine/recv_credits.h"

#include <gtest/gtest.h>

#include <deque>
#include <string>
#include <vector>

#include "base/clock.h"
#include "base/error.h"
#include "engine/bw_datapath.h"
#include "engine/work_requests.h"
#include "engine/worker_context.h"

namespace rdmabench {
namespace {

TEST(RecvCreditRules, StepIsAQuarterWindowWhenThePostListAllowsIt) {
  EXPECT_EQ(credit_step(512, 1, 0), 128u);
  EXPECT_EQ(credit_step(16, 1, 0), 4u);
  EXPECT_EQ(credit_step(1, 1, 0), 1u);
  // window >= post_list + pending + step - 1: the step shrinks, then the window is too small.
  EXPECT_EQ(credit_step(8, 2, 1), 2u);
  EXPECT_EQ(credit_step(7, 4, 3), 1u);
  EXPECT_EQ(credit_step(6, 4, 3), 0u);
  EXPECT_EQ(credit_step(4, 4, 3), 0u);
}

TEST(RecvCreditRules, OnlyIwarpSendBandwidthOverRcNeedsThem) {
  Workload w;
  w.op = Op::kSend;
  w.mode = Mode::kBw;
  w.qp = QpType::kRc;
  EXPECT_TRUE(needs_recv_credits(w, true));
  EXPECT_FALSE(needs_recv_credits(w, false));  // RNR retry holds the sender back
  w.op = Op::kWrite;
  EXPECT_FALSE(needs_recv_credits(w, true));
  w.op = Op::kSend;
  w.mode = Mode::kLat;
  EXPECT_FALSE(needs_recv_credits(w, true));
  w.mode = Mode::kBw;
  w.post_list = 4;
  w.srq = true;
  w.qps_per_thread = 3;
  EXPECT_EQ(credit_pending_max(w), 9u);
  w.srq = false;
  EXPECT_EQ(credit_pending_max(w), 3u);
}

// Every signaled send completes at the next poll; receive completions and credit-write
// completions are handed out from a script; credit writes are recorded with the count they
// carry. `grant_per_poll` raises the sender's granted word at each poll (the peer's credits).
struct ScriptedVerbs {
  static inline std::deque<ibv_wc> pending;
  static inline std::vector<uint64_t> credit_writes;  // the count each credit write carried
  static inline volatile uint64_t* granted = nullptr;
  static inline uint64_t grant_per_poll = 0;
  static inline int polls = 0;
  static void reset() {
    pending.clear();
    credit_writes.clear();
    granted = nullptr;
    grant_per_poll = 0;
    polls = 0;
  }
  static int post_send(ibv_qp*, ibv_send_wr* wr, ibv_send_wr**) noexcept {
    for (; wr != nullptr; wr = wr->next) {
      if (wr->wr_id & kCreditWrId) {
        credit_writes.push_back(*reinterpret_cast<const uint64_t*>(wr->sg_list->addr));
      } else if (wr->send_flags & IBV_SEND_SIGNALED) {
        ibv_wc wc{};
        wc.wr_id = wr->wr_id;
        wc.opcode = IBV_WC_SEND;
        pending.push_back(wc);
      }
    }
    return 0;
  }
  static int post_recv(ibv_qp*, ibv_recv_wr*, ibv_recv_wr**) noexcept { return 0; }
  static int post_srq_recv(ibv_srq*, ibv_recv_wr*, ibv_recv_wr**) noexcept { return 0; }
  static int poll_cq(ibv_cq*, int n, ibv_wc* out) noexcept {
    ++polls;
    if (granted != nullptr) *granted = *granted + grant_per_poll;
    int k = 0;
    for (; k < n && !pending.empty(); ++k) {
      out[k] = pending.front();
      pending.pop_front();
    }
    return k;
  }
};

constexpr uint64_t kWindow = 8;

struct Rig {
  Clock clock = Clock::calibrate();
  WorkerControl control{1};
  WorkerContext ctx;
  uint64_t granted_word = 0;
  uint64_t source_word = 0;
  Rig() {
    ScriptedVerbs::reset();
    ctx.qps.resize(1);
    shape_slot(ctx.qps[0], 1, 1);
    ctx.clock = &clock;
    ctx.control = &control;
    ctx.tx_depth = 64;  // never the limit here
    ctx.signal_every = 1;
    ctx.post_list = 1;
    ctx.timeout_ticks = UINT64_MAX / 2;
    ctx.credit_groups.resize(1);
    CreditGroup& g = ctx.credit_groups[0];
    g.granted = &granted_word;
    g.window = kWindow;
    g.step = credit_step(kWindow, 1, 0);
    g.source = &source_word;
    g.sge = {reinterpret_cast<uint64_t>(&source_word), sizeof(uint64_t), 0};
    g.wr.wr_id = kCreditWrId;
    g.wr.sg_list = &g.sge;
    g.wr.num_sge = 1;
    ctx.qps[0].credits = &g;
  }
  PhaseStats send(uint64_t n) {
    BwPhase ph{"measurement", true, n, 0, false, 0};
    return run_bw_phase<Op::kSend, QpType::kRc, CqMode::kPoll, ScriptedVerbs, true>(ctx, ph);
  }
  PhaseStats receive(uint64_t until) {
    BwPhase ph{"receive", false, 0, 0, true, until};
    return run_bw_phase<Op::kSend, QpType::kRc, CqMode::kPoll, ScriptedVerbs, true>(ctx, ph);
  }
};

TEST(RecvCredits, SenderStopsAtTheWindowAndSaysSoWhenCreditsNeverCome) {
  Rig rig;
  rig.ctx.timeout_ticks = 0;
  try {
    rig.send(20);
    FAIL() << "the sender went past the receives its peer posted";
  } catch (const TimeoutError& e) {
    EXPECT_NE(std::string(e.what()).find("waiting for the peer's receive credits"),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(rig.ctx.qps[0].posted, kWindow);
  EXPECT_EQ(rig.ctx.credit_groups[0].posted, kWindow);
}

TEST(RecvCredits, SenderGoesOnAsCreditsArriveAndNeverPassesThem) {
  Rig rig;
  ScriptedVerbs::granted = &rig.granted_word;
  ScriptedVerbs::grant_per_poll = 1;
  const PhaseStats st = rig.send(40);
  EXPECT_EQ(st.ops, 40u);
  EXPECT_EQ(rig.ctx.credit_groups[0].posted, 40u);
  EXPECT_LE(rig.ctx.credit_groups[0].posted, rig.granted_word + kWindow);
  EXPECT_GE(ScriptedVerbs::polls, 32);  // 32 sends beyond the window needed 32 credits
  // The counters run over the session: a second phase starts from where the first ended.
  rig.send(5);
  EXPECT_EQ(rig.ctx.credit_groups[0].posted, 45u);
}

TEST(RecvCredits, ReceiverWritesOncePerStepOneAtATimeAndCatchesUpAfterTheCompletion) {
  Rig rig;  // step 2 for a window of 8
  ASSERT_EQ(rig.ctx.credit_groups[0].step, 2u);
  ibv_wc recv{};
  recv.opcode = IBV_WC_RECV;
  recv.wr_id = 0;
  for (int i = 0; i < 5; ++i) ScriptedVerbs::pending.push_back(recv);
  rig.receive(5);
  // After 2 receives: one write of 2; then busy (no completion yet) while 3 more came.
  ASSERT_EQ(ScriptedVerbs::credit_writes.size(), 1u);
  EXPECT_EQ(ScriptedVerbs::credit_writes[0], 2u);
  EXPECT_TRUE(rig.ctx.credit_groups[0].busy);
  // The write completes: what came since goes out at once, however little.
  ibv_wc done{};
  done.opcode = IBV_WC_RDMA_WRITE;
  done.wr_id = kCreditWrId;
  ScriptedVerbs::pending.push_back(done);
  ScriptedVerbs::pending.push_back(recv);
  const PhaseStats st = rig.receive(6);
  ASSERT_EQ(ScriptedVerbs::credit_writes.size(), 2u);
  EXPECT_EQ(ScriptedVerbs::credit_writes[1], 5u);
  EXPECT_EQ(rig.ctx.received, 6u);
  EXPECT_EQ(st.ops, 0u);  // a credit write is not a data operation
  EXPECT_EQ(rig.ctx.qps[0].completed, 0u);
}

}  // namespace
}  // namespace rdmabench
