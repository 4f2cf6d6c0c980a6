#include "engine/session_resources.h"

#include <algorithm>

#include "base/error.h"
#include "base/numa.h"
#include "engine/device_checks.h"
#include "engine/memory_lock.h"
#include "engine/mr_access.h"
#include "engine/qp_settings.h"
#include "engine/tcp_exchange.h"
#include "engine/work_request_ex.h"

namespace rdmabench {

SessionResources::SessionResources(const Workload& w, const LocalSettings& local, bool is_client)
    : w_(w), local_(local), is_client_(is_client) {
  w_.connect = resolve_connect(w_.connect, w_.qp, device_transport(local_.device));
  if (w_.connect == ConnectMethod::kRdmaCm) {
    cm_ = std::make_unique<CmConnection>(local_.device);
    device_ = Device::borrow(cm_->context());
  } else {
    device_ = Device::open(local_.device);
  }
  check_device_for(w_, device_, local_.port);
  const PortInfo& port = device_.port(local_.port);
  check_qp_settings(w_, device_.context(), port, w_.connect, device_.is_iwarp());
  if (cm_) cm_->set_settings(cm_settings(w_));
  ensure_memlock(w_, device_.info().name, device_.info().transport);
  gid_index_ = choose_gid_index(port, local_.gid_index, local_.gid, local_.bind_addr, w_.gid_type);
  if (int rc = ibv_query_gid(device_.context(), static_cast<uint8_t>(local_.port),
                             static_cast<int>(gid_index_), &gid_);
      rc != 0)
    throw_sys("ibv_query_gid", device_.info().name + " GID index " + std::to_string(gid_index_),
              rc);
  active_mtu_ = port.active_mtu;
  max_rd_atomic_ = w_.max_rd_atomic != 0 ? static_cast<int>(w_.max_rd_atomic)
                                         : std::max(1, std::min(device_.info().max_qp_rd_atom, 16));
  inline_cap_ = w_.effective_inline(device_.info().max_inline_data);
  numa_ = choose_numa(w_.numa, device_.info().numa_node);

  pd_ = alloc_pd(device_.context());
  credits_ = needs_recv_credits(w_, device_.is_iwarp());
  qps_ = QueuePairs(w_, device_.context(), pd_.get(), device_.info().max_cqe, inline_cap_,
                    credits_ ? 1 : 0);
  buffers_ = Buffers(w_, pd_.get(), IBV_ACCESS_LOCAL_WRITE | remote_access(), numa_.node);
  if (credits_) credit_words_ = CreditWords(pd_.get(), w_.srq ? w_.threads : w_.total_qps());
}

SessionResources::~SessionResources() = default;

int SessionResources::remote_access() const noexcept {
  return mr_remote_access(w_, is_client_, device_.is_iwarp());
}

nlohmann::json SessionResources::describe() const {
  nlohmann::json j = device_.info();
  const PortInfo& p = device_.port(local_.port);
  j["port_used"] = local_.port;
  j["link_layer"] = p.link_layer;
  j["active_mtu"] = p.active_mtu;
  j["speed_gbps"] = p.speed_gbps;
  j["width"] = p.width;
  j["gid_index"] = gid_index_;
  for (const auto& g : p.gids)
    if (g.index == gid_index_) {
      j["gid"] = g.gid;
      j["gid_type"] = g.type;
      j["netdev"] = g.netdev;
      j["ipv4"] = g.ipv4;
    }
  j.erase("ports");  // the full table is in `rdmabench devices`
  return j;
}

void SessionResources::create_qps() {
  create_exchange_qps(qps_, local_.port, w_.pkey_index, remote_access());
}

SideInfo SessionResources::local_side() const {
  SideInfo s;
  s.lid = device_.port(local_.port).lid;
  s.gid = gid_hex(gid_);
  s.active_mtu = active_mtu_;
  s.max_rd_atomic = max_rd_atomic_;
  for (size_t i = 0; i < qps_.count(); ++i) {
    const ibv_qp* qp = qps_.at(i).qp;
    QpInfo q{qp != nullptr ? qp->qp_num : 0, qps_.at(i).psn,
             reinterpret_cast<uint64_t>(buffers_.rx(i)), buffers_.mr(i)->rkey,
             buffers_.layout().region_bytes};
    if (credits_) {
      const size_t group = w_.srq ? i / w_.qps_per_thread : i;
      q.credit_addr = reinterpret_cast<uint64_t>(credit_words_.granted(group));
      q.credit_rkey = credit_words_.rkey();
    }
    s.qps.push_back(q);
  }
  return s;
}

void SessionResources::set_remote(const SideInfo& remote) {
  if (remote.qps.size() != qps_.count())
    throw PeerError("peer described " + std::to_string(remote.qps.size()) + " QPs, expected " +
                    std::to_string(w_.total_qps()));
  for (size_t i = 0; i < remote.qps.size(); ++i) {
    const QpInfo& r = remote.qps[i];
    if (r.len < buffers_.layout().region_bytes && w_.op != Op::kSend && w_.op != Op::kSendImm)
      throw PeerError("the peer's buffer (" + std::to_string(r.len) +
                      " bytes) is smaller than the largest message (" +
                      std::to_string(w_.max_size()) + " bytes)");
    if (credits_ && r.credit_addr == 0)
      throw PeerError("the peer offered no receive credits for QP " + std::to_string(i) +
                      " (on iWARP, send bandwidth needs them: is it an older rdmabench?)");
    qps_.at(i).remote = r;
  }
  peer_rd_atomic_ = std::max(1, remote.max_rd_atomic);
}

void SessionResources::connect_qps(const SideInfo& remote) {
  uint32_t mtu = std::min(active_mtu_, remote.active_mtu);
  if (w_.mtu != 0) mtu = std::min(mtu, w_.mtu);
  set_remote(remote);
  PeerPath path;
  path.ah = peer_ah_attr(remote, local_.port, device_.is_ethernet(local_.port), gid_index_, w_);
  peer_ah_ = path.ah;
  set_path_timers(path, w_);
  path.mtu = mtu_enum(mtu);
  path.max_rd_atomic = max_rd_atomic_;
  path.peer_rd_atomic = peer_rd_atomic_;
  connect_exchange_qps(qps_, path);
}

void SessionResources::cm_connect(const std::string& server_addr, uint16_t cm_port, uint64_t nonce,
                                  std::chrono::milliseconds timeout) {
  cm_->connect(qps_, max_rd_atomic_, server_addr, cm_port, nonce, timeout);
}

uint16_t SessionResources::cm_listen(const std::string& bind_addr, uint16_t cm_port) {
  return cm_->listen(bind_addr, cm_port);
}

const CmRejections& SessionResources::cm_accept_all(uint64_t nonce,
                                                    std::chrono::milliseconds timeout) {
  cm_->accept_all(qps_, max_rd_atomic_, nonce, timeout);
  return cm_->rejected();
}

void SessionResources::post_initial_receives() {
  build_slots();
  const bool needed = uses_recv(w_.op) && (!is_client_ || w_.bidir || w_.mode == Mode::kLat);
  if (!needed) return;
  // One receive at a time (a list of one), whatever the post list; returns the verb's result.
  const auto post_one = [](QpSlot& s) {
    ibv_recv_wr* const next = s.rwr->next;
    s.rwr->next = nullptr;
    ibv_recv_wr* bad = nullptr;
    const int rc =
        s.srq != nullptr ? ibv_post_srq_recv(s.srq, s.rwr, &bad) : ibv_post_recv(s.qp, s.rwr, &bad);
    s.rwr->next = next;
    return rc;
  };
  for (WorkerContext& c : ctx_) {
    if (c.qps.front().srq != nullptr) {  // the worker's SRQ: rx_depth receives over its QPs
      for (uint32_t k = 0; k < w_.rx_depth; ++k)
        if (const int rc = post_one(c.qps[k % c.qps.size()]); rc != 0)
          throw SysError("ibv_post_srq_recv", rc, "SRQ of worker " + std::to_string(c.index));
      continue;
    }
    for (QpSlot& s : c.qps)
      for (uint32_t k = 0; k < w_.rx_depth; ++k)
        if (const int rc = post_one(s); rc != 0)
          throw SysError("ibv_post_recv", rc, "QP " + std::to_string(s.qp->qp_num));
  }
}

WorkRequestSpec SessionResources::work_request_spec(size_t flat) const {
  const QpEndpoint& q = qps_.at(flat);
  WorkRequestSpec s;
  s.op = w_.op;
  s.qp_type = w_.qp;
  s.size = size_;
  s.sge = w_.sge;
  s.post_list = w_.post_list;
  s.index = static_cast<uint32_t>(flat % w_.qps_per_thread);
  s.rx = buffers_.rx(flat);
  s.tx = buffers_.tx(flat);
  s.region_bytes = buffers_.layout().region_bytes;
  s.lkey = buffers_.mr(flat)->lkey;
  s.remote_addr = q.remote.addr;
  s.rkey = q.remote.rkey;
  s.ah = q.ah.get();
  s.remote_qpn = q.remote.qpn;
  return s;
}

void SessionResources::build_slots() {
  std::vector<WorkerQueues>& workers = qps_.workers();
  ctx_.resize(workers.size());
  size_t flat = 0;
  for (uint32_t wi = 0; wi < workers.size(); ++wi) {
    const WorkerQueues& wq = workers[wi];
    WorkerContext& c = ctx_[wi];
    c.index = wi;
    c.cqs.clear();
    if (w_.cq_per_qp) {
      for (const QpEndpoint& q : wq.qps) c.cqs.push_back(q.cq.get());
    } else {
      c.cqs.push_back(wq.cq.get());
    }
    c.cq = c.cqs.front();
    c.next_cq = 0;
    c.channel = wq.channel.get();
    c.tx_depth = w_.tx_depth;
    // With one spare receive posted, the next message never waits for the one just consumed.
    c.defer_recv = w_.rx_depth > w_.post_list;
    c.signal_every = w_.effective_signal_every();
    c.post_list = w_.post_list;
    c.affinity = numa_.node >= 0 ? &numa_.affinity : nullptr;
    c.qps.resize(wq.qps.size());
    for (uint32_t qi = 0; qi < wq.qps.size(); ++qi, ++flat) {
      QpSlot& s = c.qps[qi];
      s.qp = wq.qps[qi].qp;
      s.srq = wq.srq.get();
      s.cq = wq.cq_of(wq.qps[qi]);
      build_work_requests(work_request_spec(flat), s);
      s.qpx = wq.qps[qi].extended && s.wr->num_sge <= kMaxExSges ? ibv_qp_to_qp_ex(s.qp) : nullptr;
      s.posted = s.completed = 0;
      s.unsignaled = 0;
      s.recv_pending = 0;
    }
    if (credits_) {
      if (c.credit_groups.empty()) build_credit_groups(c, flat - wq.qps.size());
      for (uint32_t qi = 0; qi < c.qps.size(); ++qi)
        c.qps[qi].credits = &c.credit_groups[w_.srq ? 0 : qi];
    }
  }
}

void SessionResources::build_credit_groups(WorkerContext& c, size_t first_flat) {
  const size_t n = w_.srq ? 1 : c.qps.size();
  const uint64_t step = credit_step(w_.rx_depth, w_.post_list, credit_pending_max(w_));
  c.credit_groups.resize(n);  // never resized again: the slots point into it
  for (size_t k = 0; k < n; ++k) {
    CreditGroup& g = c.credit_groups[k];
    const size_t flat = first_flat + k;  // the group's first QP (with an SRQ, the worker's)
    const size_t word = w_.srq ? c.index : flat;
    g.granted = credit_words_.granted(word);
    g.window = w_.rx_depth;
    g.step = step;
    g.source = credit_words_.source(word);
    g.qp = c.qps[k].qp;
    g.sge = {reinterpret_cast<uint64_t>(g.source), sizeof(uint64_t), credit_words_.lkey()};
    g.wr = {};
    g.wr.wr_id = kCreditWrId | k;
    g.wr.sg_list = &g.sge;
    g.wr.num_sge = 1;
    g.wr.opcode = IBV_WR_RDMA_WRITE;
    g.wr.send_flags = IBV_SEND_SIGNALED;
    g.wr.wr.rdma.remote_addr = qps_.at(flat).remote.credit_addr;
    g.wr.wr.rdma.rkey = qps_.at(flat).remote.credit_rkey;
  }
}

void SessionResources::prepare_size(uint64_t size) {
  size_ = size;
  // Targets of the peer's reads and atomics (the peer reads our rx region; compare-and-swap
  // finds the value it compares with).
  const bool target = !is_client_ || w_.bidir;
  buffers_.fill(size, w_.op == Op::kRead && target);
  if (w_.op == Op::kCmpSwap && target) set_rx_words(kCasPattern);
  build_slots();
  for (WorkerContext& c : ctx_) {
    c.base_send_flags = base_send_flags(w_.op, size, inline_cap_);
    c.received = 0;
    c.received_bytes = 0;
    c.post_calls = 0;
    c.recv_post_calls = 0;
    c.recv_header_bytes = w_.qp == QpType::kUd ? kUdGrh : 0;
  }
}

std::string SessionResources::verify_rx(uint64_t size, bool skip_last) const {
  return buffers_.verify_rx(size, w_.qp == QpType::kUd ? kUdGrh : 0, skip_last, w_.qps_per_thread);
}

std::vector<uint64_t> SessionResources::rx_words() const { return buffers_.rx_words(); }

void SessionResources::set_rx_words(uint64_t v) { buffers_.set_rx_words(v); }

void SessionResources::bind_control(WorkerControl* control, const Clock* clock, double timeout_s) {
  for (WorkerContext& c : ctx_) {
    c.control = control;
    c.clock = clock;
    c.timeout_ticks = static_cast<uint64_t>(timeout_s * 1e9 / clock->ns_per_tick());
    c.drain_ticks = static_cast<uint64_t>(0.2e9 / clock->ns_per_tick());
    c.gap_ticks = static_cast<uint64_t>(w_.latency_gap_us * 1e3 / clock->ns_per_tick());
    c.period_ticks =
        w_.rate > 0
            ? std::max<uint64_t>(1, static_cast<uint64_t>(1e9 / w_.rate / clock->ns_per_tick()))
            : 0;
    c.late_ticks = c.period_ticks / 2;  // late: more than half an interval behind schedule
  }
}

nlohmann::json SessionResources::setup_info(double setup_seconds) const {
  const uint32_t nqp = w_.total_qps();
  nlohmann::json j;
  j["qps"] = nqp;
  j["cqs"] = qps_.cq_count();
  j["cq_entries"] = qps_.cq_entries();  // asked for each CQ (the device may round it up)
  j["post_path"] = qps_.count() > 0 && qps_.at(0).extended && w_.sge <= uint32_t(kMaxExSges)
                       ? "ibv_wr"
                       : "ibv_post_send";
  j["mrs"] = w_.mr == MrMode::kShared ? 1 : nqp;
  j["seconds"] = setup_seconds;
  j["per_qp_ms"] = nqp > 0 ? setup_seconds * 1e3 / nqp : 0.0;
  j["qp_verbs_ms"] = {{"mean", nqp > 0 ? qps_.total_qp_setup_s() * 1e3 / nqp : 0.0},
                      {"max", qps_.max_qp_setup_s() * 1e3}};
  nlohmann::json attr = nullptr;
  if (qps_.count() > 0 && qps_.at(0).qp != nullptr) {
    ibv_qp_attr a{};
    ibv_qp_init_attr init{};
    const int mask = IBV_QP_STATE | IBV_QP_CAP | IBV_QP_PATH_MTU | IBV_QP_MAX_QP_RD_ATOMIC |
                     IBV_QP_MAX_DEST_RD_ATOMIC;
    if (ibv_query_qp(qps_.at(0).qp, &a, mask, &init) == 0) {
      attr = {{"max_send_wr", init.cap.max_send_wr},
              {"max_recv_wr", init.cap.max_recv_wr},
              {"max_send_sge", init.cap.max_send_sge},
              {"max_recv_sge", init.cap.max_recv_sge},
              {"max_inline_data", init.cap.max_inline_data},
              {"max_rd_atomic", a.max_rd_atomic},
              {"max_dest_rd_atomic", a.max_dest_rd_atomic},
              {"path_mtu", w_.qp == QpType::kUd ? 0 : mtu_bytes(a.path_mtu)}};
    }
  }
  if (!attr.is_null())
    attr["fabric"] = applied_qp_settings(qps_.at(0).qp, w_, &peer_ah_, device_.is_iwarp());
  j["qp_attr"] = attr;
  j["recv_credits"] = credits_;
  j["memory"] = buffers_.describe();
  j["placement"] = {{"cpus", w_.cpus}, {"numa", numa_text(w_.numa)}};  // this side's own
  j["numa"] = {{"requested", numa_text(w_.numa)},
               {"device_node", device_.info().numa_node},
               {"node", numa_.node},
               {"cpus", numa_.cpus},
               {"buffer_node", buffers_.count() > 0 ? node_of_address(buffers_.rx(0)) : -1},
               {"note", numa_.note}};
  return j;
}

}  // namespace rdmabench
