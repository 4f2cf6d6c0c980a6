#pragma once
// RAII ownership of libibverbs objects: each is a unique_ptr whose deleter is the matching
// destroy verb, so an error halfway through setup releases everything created so far, in
// reverse order of creation (members are destroyed in reverse declaration order).
#include <infiniband/verbs.h>

#include <cstddef>
#include <memory>
#include <string>

namespace rdmabench {

namespace detail {
template <auto Fn>
struct Deleter {
  template <typename T>
  void operator()(T* p) const noexcept {
    if (p != nullptr) (void)Fn(p);
  }
};
}  // namespace detail

using ContextPtr = std::unique_ptr<ibv_context, detail::Deleter<ibv_close_device>>;
using PdPtr = std::unique_ptr<ibv_pd, detail::Deleter<ibv_dealloc_pd>>;
using MrPtr = std::unique_ptr<ibv_mr, detail::Deleter<ibv_dereg_mr>>;
using CqPtr = std::unique_ptr<ibv_cq, detail::Deleter<ibv_destroy_cq>>;
using CompChannelPtr = std::unique_ptr<ibv_comp_channel, detail::Deleter<ibv_destroy_comp_channel>>;
using QpPtr = std::unique_ptr<ibv_qp, detail::Deleter<ibv_destroy_qp>>;
using SrqPtr = std::unique_ptr<ibv_srq, detail::Deleter<ibv_destroy_srq>>;
using AhPtr = std::unique_ptr<ibv_ah, detail::Deleter<ibv_destroy_ah>>;

// Each factory throws SysError naming the verb, errno text and the object on failure.
PdPtr alloc_pd(ibv_context* ctx);
MrPtr reg_mr(ibv_pd* pd, void* addr, std::size_t length, int access);
CompChannelPtr create_comp_channel(ibv_context* ctx);
CqPtr create_cq(ibv_context* ctx, int cqe, ibv_comp_channel* channel);
QpPtr create_qp(ibv_pd* pd, ibv_qp_init_attr* attr);
// An extended QP (ibv_create_qp_ex: `attr` names its PD and send ops), or null with errno set when
// the provider has none (siw): the caller falls back to create_qp and ibv_post_send.
QpPtr try_create_qp_ex(ibv_context* ctx, ibv_qp_init_attr_ex* attr) noexcept;
SrqPtr create_srq(ibv_pd* pd, ibv_srq_init_attr* attr);
AhPtr create_ah(ibv_pd* pd, ibv_ah_attr* attr);
void modify_qp(ibv_qp* qp, ibv_qp_attr* attr, int mask, const char* to_state);

std::string device_name(ibv_context* ctx);

}  // namespace rdmabench
