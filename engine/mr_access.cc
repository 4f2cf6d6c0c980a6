#include "engine/mr_access.h"

#include <infiniband/verbs.h>

namespace rdmabench {

int mr_remote_access(const Workload& w, bool is_client, bool iwarp) noexcept {
  // The peer targets the server, both sides when bidirectional, and the client in a write
  // ping-pong (the server's pong writes into it).
  const bool target = !is_client || w.bidir ||
                      (w.mode == Mode::kLat && (w.op == Op::kWrite || w.op == Op::kWriteImm));
  int a = 0;
  if (target) {
    switch (w.op) {
      case Op::kWrite:
      case Op::kWriteImm:
        a |= IBV_ACCESS_REMOTE_WRITE;
        break;
      case Op::kRead:
        a |= IBV_ACCESS_REMOTE_READ;
        break;
      case Op::kFetchAdd:
      case Op::kCmpSwap:
        a |= IBV_ACCESS_REMOTE_ATOMIC;
        break;
      default:
        break;
    }
  }
  // iWARP: the sink of an RDMA read (the reading side's buffer) must allow remote write.
  if (w.op == Op::kRead && iwarp && (is_client || w.bidir)) a |= IBV_ACCESS_REMOTE_WRITE;
  if (w.qp == QpType::kUc) a &= IBV_ACCESS_REMOTE_WRITE;
  if (w.qp == QpType::kUd) a = 0;
  return a;
}

}  // namespace rdmabench
