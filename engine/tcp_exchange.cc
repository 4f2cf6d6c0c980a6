#include "engine/tcp_exchange.h"

#include <algorithm>

#include "engine/work_requests.h"

namespace rdmabench {

void create_exchange_qps(QueuePairs& qps, uint32_t port, uint32_t pkey_index, int remote_access) {
  for (size_t i = 0; i < qps.count(); ++i) {
    QpEndpoint& q = qps.at(i);
    QpSetupTimer timer(q);
    if (qps.send_ops() != 0) {
      ibv_qp_init_attr_ex x = qps.init_attr_ex(i);
      q.qp_owned = try_create_qp_ex(qps.pd()->context, &x);
      q.extended = q.qp_owned != nullptr;
    }
    if (!q.qp_owned) {
      ibv_qp_init_attr a = qps.init_attr(i);
      q.qp_owned = create_qp(qps.pd(), &a);
    }
    q.qp = q.qp_owned.get();
    ibv_qp_attr attr{};
    attr.qp_state = IBV_QPS_INIT;
    attr.pkey_index = static_cast<uint16_t>(pkey_index);
    attr.port_num = static_cast<uint8_t>(port);
    int mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT;
    if (qps.qp_type() == QpType::kUd) {
      attr.qkey = kUdQkey;
      mask |= IBV_QP_QKEY;
    } else {
      attr.qp_access_flags = static_cast<unsigned>(remote_access);
      mask |= IBV_QP_ACCESS_FLAGS;
    }
    modify_qp(q.qp, &attr, mask, "INIT");
  }
}

ibv_ah_attr peer_ah_attr(const SideInfo& remote, uint32_t port, bool ethernet, uint32_t gid_index,
                         const Workload& w) {
  const Workload defaults;
  const bool grh_asked = w.tos != defaults.tos || w.flow_label != defaults.flow_label ||
                         w.hop_limit != defaults.hop_limit;
  ibv_ah_attr ah{};
  ah.dlid = remote.lid;
  ah.sl = static_cast<uint8_t>(w.sl);
  ah.port_num = static_cast<uint8_t>(port);
  if (ethernet || remote.lid == 0 || grh_asked) {
    ah.is_global = 1;
    ah.grh.dgid = gid_from_hex(remote.gid);
    ah.grh.sgid_index = static_cast<uint8_t>(gid_index);
    ah.grh.hop_limit = static_cast<uint8_t>(w.hop_limit);
    ah.grh.traffic_class = static_cast<uint8_t>(w.tos);
    ah.grh.flow_label = w.flow_label;
  }
  return ah;
}

void set_path_timers(PeerPath& path, const Workload& w) {
  path.timeout = static_cast<uint8_t>(w.qp_timeout);
  path.retry_cnt = static_cast<uint8_t>(w.retry_count);
  path.rnr_retry = static_cast<uint8_t>(w.rnr_retry);
  path.min_rnr_timer = static_cast<uint8_t>(w.min_rnr_timer);
}

void connect_exchange_qps(QueuePairs& qps, const PeerPath& path) {
  const QpType type = qps.qp_type();
  for (size_t i = 0; i < qps.count(); ++i) {
    QpEndpoint& q = qps.at(i);
    const QpInfo& r = q.remote;
    QpSetupTimer timer(q);
    ibv_qp_attr a{};
    if (type == QpType::kUd) {
      a.qp_state = IBV_QPS_RTR;
      modify_qp(q.qp, &a, IBV_QP_STATE, "RTR");
      a = {};
      a.qp_state = IBV_QPS_RTS;
      a.sq_psn = q.psn;
      modify_qp(q.qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN, "RTS");
      ibv_ah_attr ah_copy = path.ah;
      q.ah = create_ah(qps.pd(), &ah_copy);
      continue;
    }
    a.qp_state = IBV_QPS_RTR;
    a.path_mtu = path.mtu;
    a.dest_qp_num = r.qpn;
    a.rq_psn = r.psn;
    a.ah_attr = path.ah;
    int mask = IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN;
    if (type == QpType::kRc) {
      a.max_dest_rd_atomic = static_cast<uint8_t>(path.max_rd_atomic);
      a.min_rnr_timer = path.min_rnr_timer;
      mask |= IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
    }
    modify_qp(q.qp, &a, mask, "RTR");
    a = {};
    a.qp_state = IBV_QPS_RTS;
    a.sq_psn = q.psn;
    mask = IBV_QP_STATE | IBV_QP_SQ_PSN;
    if (type == QpType::kRc) {
      a.timeout = path.timeout;  // default 14: 4.096 us * 2^14 = 67 ms per try
      a.retry_cnt = path.retry_cnt;
      a.rnr_retry = path.rnr_retry;  // default 7, infinite: a slow receiver is not an error
      a.max_rd_atomic = static_cast<uint8_t>(std::min(path.max_rd_atomic, path.peer_rd_atomic));
      mask |= IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC;
    }
    modify_qp(q.qp, &a, mask, "RTS");
  }
}

}  // namespace rdmabench
