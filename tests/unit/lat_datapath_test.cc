// The latency loops' send accounting (engine/lat_datapath.h), driven by a verbs policy that
// completes sends late: the peer's reply is seen before the local send completion, as happens on
// RC when the reply overtakes the ACK's processing. A phase must reap all of its own send
// completions before it returns, so that none is counted in the next message size (whose
// counters start from zero): a stale one made completed > posted and the send-queue room check
// spin forever (seen on the testbed as a write-latency stall at the second size).
#include "engine/lat_datapath.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <string>
#include <vector>

#include "base/clock.h"
#include "base/histogram.h"
#include "engine/work_requests.h"
#include "engine/worker_context.h"

namespace rdmabench {
namespace {

// Each post answers with a receive at once; the post's own completion is held back until the
// poll after next.
struct LateSendVerbs {
  static inline std::vector<ibv_wc> ready;
  static inline std::vector<ibv_wc> held;
  static inline uint64_t post_calls = 0;
  static inline std::string events;  // 's' per send post, 'r' per receive post, in call order

  static void reset() {
    ready.clear();
    held.clear();
    post_calls = 0;
    events.clear();
  }
  static ibv_wc wc(uint64_t wr_id, ibv_wc_opcode op) {
    ibv_wc c{};
    c.wr_id = wr_id;
    c.status = IBV_WC_SUCCESS;
    c.opcode = op;
    return c;
  }
  static int post_send(ibv_qp*, ibv_send_wr* wr, ibv_send_wr**) noexcept {
    ++post_calls;
    events += 's';
    ready.push_back(wc(0, IBV_WC_RECV));
    if ((wr->send_flags & IBV_SEND_SIGNALED) != 0) held.push_back(wc(wr->wr_id, IBV_WC_SEND));
    return 0;
  }
  static int post_recv(ibv_qp*, ibv_recv_wr*, ibv_recv_wr**) noexcept {
    events += 'r';
    return 0;
  }
  static int post_srq_recv(ibv_srq*, ibv_recv_wr*, ibv_recv_wr**) noexcept { return 0; }
  static int poll_cq(ibv_cq*, int n, ibv_wc* out) noexcept {
    int k = 0;
    while (k < n && !ready.empty()) {
      out[k++] = ready.front();
      ready.erase(ready.begin());
    }
    // What was held becomes ready for the next poll.
    ready.insert(ready.end(), held.begin(), held.end());
    held.clear();
    return k;
  }
};

struct Rig {
  Clock clock = Clock::calibrate();
  WorkerControl control{1};
  WorkerContext ctx;
  Rig() {
    LateSendVerbs::reset();
    ctx.qps.resize(1);
    shape_slot(ctx.qps[0], 1,
               1);  // the prebuilt work requests' shape, as SessionResources builds them
    ctx.clock = &clock;
    ctx.control = &control;
    ctx.tx_depth = 4;
    ctx.signal_every = 1;
    ctx.post_list = 1;
    // A stall fails the test with a TimeoutError instead of hanging it (not a speed limit).
    ctx.timeout_ticks = static_cast<uint64_t>(10e9 / clock.ns_per_tick());
  }
  void next_size() {  // what SessionResources::prepare_size does to the counters
    QpSlot& q = ctx.qps[0];
    q.posted = q.completed = 0;
    q.unsignaled = 0;
  }
};

TEST(LatDatapath, PingReapsItsSendCompletionsBeforeReturning) {
  Rig rig;
  Histogram hist(1ULL << 40, 0.01);
  for (uint64_t iters : {1ULL, 7ULL, 100ULL}) {
    SCOPED_TRACE(iters);
    rig.next_size();
    LatPhase ph{"measurement", iters, 0, &hist, 0};
    PhaseStats st = run_lat_ping<Op::kSend, CqMode::kPoll, LateSendVerbs>(rig.ctx, ph);
    EXPECT_EQ(st.ops, iters);
    EXPECT_EQ(rig.ctx.qps[0].posted, iters);
    EXPECT_EQ(rig.ctx.qps[0].completed, iters);
    EXPECT_TRUE(LateSendVerbs::ready.empty() && LateSendVerbs::held.empty())
        << "a completion was left in the CQ for the next size";
  }
  EXPECT_EQ(LateSendVerbs::post_calls, 108u);
}

TEST(LatDatapath, PongReapsItsSendCompletionsBeforeReturning) {
  Rig rig;
  // The pong answers what arrives: prime one receive per expected ping.
  for (uint64_t iters : {1ULL, 50ULL}) {
    SCOPED_TRACE(iters);
    rig.next_size();
    LateSendVerbs::ready.push_back(LateSendVerbs::wc(0, IBV_WC_RECV));
    LatPhase ph{"pong", iters, 0, nullptr, 0};
    // Each pong post also "delivers" the next ping (the fake answers every post with a receive).
    PhaseStats st = run_lat_pong<Op::kSend, CqMode::kPoll, LateSendVerbs>(rig.ctx, ph);
    EXPECT_EQ(st.ops, iters);
    EXPECT_EQ(rig.ctx.qps[0].completed, rig.ctx.qps[0].posted);
    EXPECT_TRUE(LateSendVerbs::held.empty());
    // The last post's echoed receive belongs to no ping: drop it before the next size.
    LateSendVerbs::ready.erase(
        std::remove_if(LateSendVerbs::ready.begin(), LateSendVerbs::ready.end(),
                       [](const ibv_wc& c) { return c.opcode == IBV_WC_RECV; }),
        LateSendVerbs::ready.end());
    EXPECT_TRUE(LateSendVerbs::ready.empty());
  }
}

// Selective signaling in latency mode (-n only): every signal_every-th send and the phase's last
// one are signaled, so the phase still reaps all of its sends whatever the count.
TEST(LatDatapath, SelectiveSignalingSignalsTheLastSendOfThePhase) {
  Rig rig;
  rig.ctx.tx_depth = 8;
  rig.ctx.signal_every = 4;
  Histogram hist(1ULL << 40, 0.01);
  for (uint64_t iters : {1ULL, 4ULL, 10ULL}) {
    SCOPED_TRACE(iters);
    rig.next_size();
    LatPhase ph{"measurement", iters, 0, &hist, 0};
    PhaseStats st = run_lat_ping<Op::kSend, CqMode::kPoll, LateSendVerbs>(rig.ctx, ph);
    EXPECT_EQ(st.ops, iters);
    EXPECT_EQ(rig.ctx.qps[0].completed, iters) << "an unsignaled tail was left unreaped";
    EXPECT_TRUE(LateSendVerbs::held.empty());
  }
}

// The receive a message consumed is re-posted after the reply went out (and, on the ping, after
// the round trip's clock read), so no ibv_post_recv sits inside a round trip; with no spare
// receive (rx_depth == post_list, defer_recv false) it is re-posted first, before the reply.
TEST(LatDatapath, PongRepostsTheReceiveAfterTheReplyWhenASpareIsPosted) {
  for (bool defer : {true, false}) {
    SCOPED_TRACE(defer ? "spare receive" : "no spare");
    Rig rig;
    rig.ctx.defer_recv = defer;
    LateSendVerbs::ready.push_back(LateSendVerbs::wc(0, IBV_WC_RECV));
    LatPhase ph{"pong", 3, 0, nullptr, 0};
    PhaseStats st = run_lat_pong<Op::kSend, CqMode::kPoll, LateSendVerbs>(rig.ctx, ph);
    EXPECT_EQ(st.ops, 3u);
    // Three pings answered. The fake echoes a receive for every post, so the last reply also
    // "delivers" a fourth message, reaped while the phase drains its send completion.
    EXPECT_EQ(LateSendVerbs::events, defer ? "srsrsr"
                                             "r"
                                           : "rsrsrs"
                                             "r");
    // Every consumed receive was re-posted exactly once, none is left owed.
    EXPECT_EQ(rig.ctx.received, 4u);
    EXPECT_EQ(rig.ctx.recv_post_calls, rig.ctx.received);
    EXPECT_EQ(rig.ctx.qps[0].recv_owed, 0u) << "a consumed receive was left un-posted";
  }
}

TEST(LatDatapath, PingRepostsEveryReplysReceiveWithinItsIteration) {
  Rig rig;
  rig.ctx.defer_recv = true;
  Histogram hist(1ULL << 40, 0.01);
  LatPhase ph{"measurement", 4, 0, &hist, 0};
  run_lat_ping<Op::kSend, CqMode::kPoll, LateSendVerbs>(rig.ctx, ph);
  // Each iteration: the ping's send, then (after the reply and the clock read) the re-post.
  EXPECT_EQ(LateSendVerbs::events, "srsrsrsr");
  EXPECT_EQ(rig.ctx.qps[0].recv_owed, 0u);
  EXPECT_EQ(hist.count(), 4u);
}

}  // namespace
}  // namespace rdmabench
