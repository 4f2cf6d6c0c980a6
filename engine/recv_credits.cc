#include "engine/recv_credits.h"

#include <algorithm>
#include <cstdlib>
#include <new>
#include <string>

#include "base/error.h"

namespace rdmabench {

void CreditWords::FreeAligned::operator()(uint64_t* p) const noexcept { std::free(p); }

CreditWords::CreditWords(ibv_pd* pd, size_t groups) : groups_(groups) {
  const size_t bytes = std::max<size_t>(1, 2 * groups) * kStride * sizeof(uint64_t);
  void* p = std::aligned_alloc(64, bytes);
  if (p == nullptr) throw std::bad_alloc();
  mem_.reset(static_cast<uint64_t*>(p));
  std::fill_n(mem_.get(), bytes / sizeof(uint64_t), uint64_t{0});
  mr_ = reg_mr(pd, p, bytes, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
}

void throw_credit_post_error(const CreditGroup& g, int rc, const char* phase) {
  throw SysError("ibv_post_send", rc,
                 "receive-credit write on QP " +
                     std::to_string(g.qp != nullptr ? g.qp->qp_num : 0) + " in " + phase);
}

}  // namespace rdmabench
