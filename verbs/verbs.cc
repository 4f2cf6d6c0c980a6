#include "verbs/verbs.h"

#include <cerrno>

#include "base/error.h"

namespace rdmabench {

std::string device_name(ibv_context* ctx) {
  return ctx != nullptr ? ibv_get_device_name(ctx->device) : std::string("(no device)");
}

PdPtr alloc_pd(ibv_context* ctx) {
  PdPtr pd(ibv_alloc_pd(ctx));
  if (!pd) throw_sys("ibv_alloc_pd", "device " + device_name(ctx));
  return pd;
}

MrPtr reg_mr(ibv_pd* pd, void* addr, std::size_t length, int access) {
  MrPtr mr(ibv_reg_mr(pd, addr, length, access));
  if (!mr) {
    int err = errno;
    std::string hint;
    if (err == ENOMEM || err == EPERM)
      hint = " (is RLIMIT_MEMLOCK too low? try 'ulimit -l unlimited')";
    throw_sys("ibv_reg_mr",
              "a " + std::to_string(length) + "-byte buffer on " + device_name(pd->context) + hint,
              err);
  }
  return mr;
}

CompChannelPtr create_comp_channel(ibv_context* ctx) {
  CompChannelPtr ch(ibv_create_comp_channel(ctx));
  if (!ch) throw_sys("ibv_create_comp_channel", "device " + device_name(ctx));
  return ch;
}

CqPtr create_cq(ibv_context* ctx, int cqe, ibv_comp_channel* channel) {
  CqPtr cq(ibv_create_cq(ctx, cqe, nullptr, channel, 0));
  if (!cq)
    throw_sys("ibv_create_cq",
              "a CQ of " + std::to_string(cqe) + " entries on " + device_name(ctx));
  return cq;
}

QpPtr create_qp(ibv_pd* pd, ibv_qp_init_attr* attr) {
  QpPtr qp(ibv_create_qp(pd, attr));
  if (!qp)
    throw_sys("ibv_create_qp", "a QP (send depth " + std::to_string(attr->cap.max_send_wr) +
                                   ", recv depth " + std::to_string(attr->cap.max_recv_wr) +
                                   ", inline " + std::to_string(attr->cap.max_inline_data) +
                                   ") on " + device_name(pd->context));
  return qp;
}

QpPtr try_create_qp_ex(ibv_context* ctx, ibv_qp_init_attr_ex* attr) noexcept {
  return QpPtr(ibv_create_qp_ex(ctx, attr));
}

SrqPtr create_srq(ibv_pd* pd, ibv_srq_init_attr* attr) {
  SrqPtr srq(ibv_create_srq(pd, attr));
  if (!srq)
    throw_sys("ibv_create_srq", "an SRQ of " + std::to_string(attr->attr.max_wr) + " entries on " +
                                    device_name(pd->context));
  return srq;
}

AhPtr create_ah(ibv_pd* pd, ibv_ah_attr* attr) {
  AhPtr ah(ibv_create_ah(pd, attr));
  if (!ah) throw_sys("ibv_create_ah", "an address handle on " + device_name(pd->context));
  return ah;
}

void modify_qp(ibv_qp* qp, ibv_qp_attr* attr, int mask, const char* to_state) {
  int rc = ibv_modify_qp(qp, attr, mask);
  if (rc != 0)
    throw_sys("ibv_modify_qp", std::string("QP ") + std::to_string(qp->qp_num) + " -> " + to_state,
              rc);
}

}  // namespace rdmabench
