#include "model/recv_credit_rules.h"

#include <algorithm>

namespace rdmabench {

bool needs_recv_credits(const Workload& w, bool iwarp) noexcept {
  return iwarp && w.mode == Mode::kBw && uses_recv(w.op) && w.qp == QpType::kRc;
}

uint64_t credit_step(uint64_t window, uint32_t post_list, uint64_t pending_max) noexcept {
  // A sender stalls when posted + n > granted + window (n <= post_list). Once everything it
  // posted has arrived, the receiver has re-posted all but pending_max of it and written all
  // but step - 1 of that: the sender is released while window >= post_list + pending_max +
  // step - 1.
  if (window < uint64_t{post_list} + pending_max) return 0;
  const uint64_t most = window + 1 - post_list - pending_max;
  return std::max<uint64_t>(1, std::min(most, window / 4));
}

uint64_t credit_pending_max(const Workload& w) noexcept {
  const uint64_t per_qp = w.post_list - 1;
  return w.srq ? per_qp * w.qps_per_thread : per_qp;
}

}  // namespace rdmabench
