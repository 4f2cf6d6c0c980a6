// A workload against a device's limits (DeviceLimits, model/workload.h): what the device and its
// port report (queue depths, QPs, CQs, SGEs, inline data, MR size, MTU, atomics) and what its
// transport allows (iWARP: RC only, no immediate data, rdma_cm, receive credits). Each refusal
// names the option, the value and the device's limit.
#include <cstdint>
#include <string>

#include "base/error.h"
#include "model/recv_credit_rules.h"
#include "model/workload.h"

namespace rdmabench {

namespace {

void validate_knobs_for_device(const Workload& w, const DeviceLimits& d) {
  const std::string on = " on device " + d.name;
  auto at_most = [&](const char* field, uint64_t v, int limit, const char* limit_name) {
    if (limit > 0 && v > static_cast<uint64_t>(limit))
      throw ConfigError(field, std::to_string(v),
                        std::string("at most ") + limit_name + " = " + std::to_string(limit) + on);
  };
  at_most("sge", w.sge, d.max_sge, "max_sge");
  if (w.op == Op::kRead) at_most("sge", w.sge, d.max_sge_rd, "max_sge_rd (reads)");
  if (w.srq) at_most("sge", w.sge, d.max_srq_sge, "max_srq_sge (shared receive queue)");
  at_most("max-rd-atomic", w.max_rd_atomic, d.max_qp_rd_atom, "max_qp_rd_atom");
  at_most("max-rd-atomic", w.max_rd_atomic, d.max_qp_init_rd_atom, "max_qp_init_rd_atom");
  if (w.cq_per_qp && d.max_cq > 0 && w.total_qps() > static_cast<uint64_t>(d.max_cq))
    throw ConfigError("qps", std::to_string(w.qps_per_thread),
                      "threads x qps = " + std::to_string(w.total_qps()) +
                          " CQs with --cq-per-qp exceeds max_cq = " + std::to_string(d.max_cq) +
                          on);
}

}  // namespace

void validate_for_device(const Workload& w, const DeviceLimits& d) {
  const std::string on = " on device " + d.name;
  if (w.tx_depth > static_cast<uint32_t>(d.max_qp_wr))
    throw ConfigError("tx-depth", std::to_string(w.tx_depth),
                      "at most max_qp_wr = " + std::to_string(d.max_qp_wr) + on);
  int rx_limit = w.srq ? d.max_srq_wr : d.max_qp_wr;
  if (w.rx_depth > static_cast<uint32_t>(rx_limit))
    throw ConfigError("rx-depth", std::to_string(w.rx_depth),
                      std::string("at most ") + (w.srq ? "max_srq_wr" : "max_qp_wr") + " = " +
                          std::to_string(rx_limit) + on);
  if (w.inline_size > 0 && static_cast<uint32_t>(w.inline_size) > d.max_inline_data)
    throw ConfigError("inline", std::to_string(w.inline_size),
                      "at most max_inline_data = " + std::to_string(d.max_inline_data) + on);
  const uint64_t qps = w.total_qps();
  if (d.max_qp > 0 && qps > static_cast<uint64_t>(d.max_qp))
    throw ConfigError("qps", std::to_string(w.qps_per_thread),
                      "threads x qps = " + std::to_string(qps) +
                          " exceeds max_qp = " + std::to_string(d.max_qp) + on);
  uint64_t cqe = uint64_t(w.cq_per_qp ? 1 : w.qps_per_thread) * (w.tx_depth + w.rx_depth);
  if (d.max_cqe > 0 && cqe > static_cast<uint64_t>(d.max_cqe))
    throw ConfigError(
        "qps", std::to_string(w.qps_per_thread),
        (w.cq_per_qp ? "tx-depth + rx-depth = " + std::to_string(cqe) + " completion entries per QP"
                     : "qps x (tx-depth + rx-depth) = " + std::to_string(cqe) +
                           " completion entries per thread") +
            " exceeds max_cqe = " + std::to_string(d.max_cqe) + on +
            (w.cq_per_qp ? "" : " (or use --cq-per-qp)"));
  validate_knobs_for_device(w, d);
  if (d.max_mr_size > 0 && w.max_size() > d.max_mr_size)
    throw ConfigError("size", std::to_string(w.max_size()),
                      "at most max_mr_size = " + std::to_string(d.max_mr_size) + on);
  uint32_t mtu = w.mtu != 0 ? w.mtu : d.port_active_mtu;
  if (w.mtu != 0 && d.port_active_mtu != 0 && w.mtu > d.port_active_mtu)
    throw ConfigError("mtu", std::to_string(w.mtu),
                      "at most the port's active MTU " + std::to_string(d.port_active_mtu) + on);
  if (w.qp == QpType::kUd)
    for (uint64_t s : w.sizes)
      if (s > mtu)
        throw ConfigError("size", std::to_string(s),
                          "UD messages must fit the MTU (" + std::to_string(mtu) + " bytes)" + on);
  if (is_atomic(w.op) && d.atomic_cap == "none")
    throw ConfigError("op", std::string(to_string(w.op)),
                      "a device with atomic capability (" + d.name + " reports atomic_cap none)");
  if (d.transport == "iWARP") {
    if (w.qp != QpType::kRc)
      throw ConfigError("qp", std::string(to_string(w.qp)),
                        "rc: iWARP has only reliable connected QPs" + on);
    if (w.op == Op::kSendImm || w.op == Op::kWriteImm)
      throw ConfigError("op", std::string(to_string(w.op)),
                        "send, write or read: iWARP (RDMAP) carries no immediate data" + on);
    if (resolve_connect(w.connect, w.qp, d.transport) != ConnectMethod::kRdmaCm)
      throw ConfigError("connect", std::string(to_string(w.connect)),
                        "rdma_cm (-R, or --connect auto, the default): iWARP QPs connect only "
                        "through rdma_cm" +
                            on);
    // No RNR retry: a SEND must find a receive posted, so senders keep within receive credits
    // (recv_credits.h), which need a window that a post list cannot exhaust.
    const uint64_t pending = credit_pending_max(w);
    if (needs_recv_credits(w, true) && credit_step(w.rx_depth, w.post_list, pending) == 0)
      throw ConfigError(
          "rx-depth", std::to_string(w.rx_depth),
          "at least " + std::to_string(w.post_list + pending) + " with --post-list " +
              std::to_string(w.post_list) +
              (w.srq ? " and " + std::to_string(w.qps_per_thread) + " QPs per thread sharing an SRQ"
                     : "") +
              ": on iWARP a sender keeps within the receives its peer has posted "
              "(receive credits)" +
              on);
    if (w.rate > 0 && uses_recv(w.op))
      throw ConfigError("rate", std::to_string(w.rate),
                        "0 (closed loop) for send: an open loop can run ahead of the peer's "
                        "receives, and iWARP has no RNR retry to hold it back" +
                            on);
  }
}

}  // namespace rdmabench
