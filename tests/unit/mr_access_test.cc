// Memory regions get only the remote access the op needs, only on the side the peer targets
// (engine/mr_access.h): a send test exposes nothing, a write test no remote read, and so on.
#include "engine/mr_access.h"

#include <gtest/gtest.h>
#include <infiniband/verbs.h>

namespace rdmabench {
namespace {

constexpr int kW = IBV_ACCESS_REMOTE_WRITE;
constexpr int kR = IBV_ACCESS_REMOTE_READ;
constexpr int kA = IBV_ACCESS_REMOTE_ATOMIC;

Workload make(Op op, QpType qp = QpType::kRc, Mode mode = Mode::kBw, bool bidir = false) {
  Workload w;
  w.op = op;
  w.qp = qp;
  w.mode = mode;
  w.bidir = bidir;
  return w;
}

TEST(MrAccess, SendsExposeNoMemory) {
  for (Op op : {Op::kSend, Op::kSendImm})
    for (QpType qp : {QpType::kRc, QpType::kUc, QpType::kUd})
      for (Mode mode : {Mode::kBw, Mode::kLat})
        for (bool client : {false, true}) {
          SCOPED_TRACE(std::string(to_string(op)) + " " + std::string(to_string(qp)) + " " +
                       std::string(to_string(mode)));
          EXPECT_EQ(mr_remote_access(make(op, qp, mode), client, false), 0);
        }
}

TEST(MrAccess, OnlyTheTargetGetsTheOpsAccess) {
  // Streaming: the server is the target; the client exposes nothing.
  EXPECT_EQ(mr_remote_access(make(Op::kWrite), false, false), kW);
  EXPECT_EQ(mr_remote_access(make(Op::kWrite), true, false), 0);
  EXPECT_EQ(mr_remote_access(make(Op::kWriteImm), false, false), kW);
  EXPECT_EQ(mr_remote_access(make(Op::kRead), false, false), kR);
  EXPECT_EQ(mr_remote_access(make(Op::kRead), true, false), 0);
  EXPECT_EQ(mr_remote_access(make(Op::kFetchAdd), false, false), kA);
  EXPECT_EQ(mr_remote_access(make(Op::kCmpSwap), false, false), kA);
  EXPECT_EQ(mr_remote_access(make(Op::kCmpSwap), true, false), 0);
  // Write ping-pong: the server writes back into the client.
  EXPECT_EQ(mr_remote_access(make(Op::kWrite, QpType::kRc, Mode::kLat), true, false), kW);
  // Read and atomics latency: still only the server is read.
  EXPECT_EQ(mr_remote_access(make(Op::kRead, QpType::kRc, Mode::kLat), true, false), 0);
  // Both directions: both sides are targets.
  EXPECT_EQ(mr_remote_access(make(Op::kWrite, QpType::kRc, Mode::kBw, true), true, false), kW);
  EXPECT_EQ(mr_remote_access(make(Op::kRead, QpType::kRc, Mode::kBw, true), true, false), kR);
}

TEST(MrAccess, NoOpGetsMoreThanItsOwnKind) {
  for (Op op : {Op::kWrite, Op::kWriteImm})
    EXPECT_EQ(mr_remote_access(make(op), false, false) & (kR | kA), 0);
  EXPECT_EQ(mr_remote_access(make(Op::kRead), false, false) & (kW | kA), 0);
  EXPECT_EQ(mr_remote_access(make(Op::kFetchAdd), false, false) & (kW | kR), 0);
}

TEST(MrAccess, UcAllowsAtMostRemoteWrite) {
  EXPECT_EQ(mr_remote_access(make(Op::kWrite, QpType::kUc), false, false), kW);
  EXPECT_EQ(mr_remote_access(make(Op::kSend, QpType::kUc), false, false), 0);
}

TEST(MrAccess, IwarpReadSinkAllowsRemoteWrite) {
  EXPECT_EQ(mr_remote_access(make(Op::kRead), true, true), kW);
  EXPECT_EQ(mr_remote_access(make(Op::kRead), false, true), kR);
  EXPECT_EQ(mr_remote_access(make(Op::kWrite), true, true), 0);
}

}  // namespace
}  // namespace rdmabench
