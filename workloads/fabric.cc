#include "workloads/fabric.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <unistd.h>

#include <cstring>
#include <random>

#include "harness/error.h"
#include "harness/json_util.h"
#include "harness/numa.h"
#include "workloads/memory_lock.h"
#include "workloads/mr_access.h"

namespace rdmabench {
namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

std::string gid_hex(const ibv_gid& g) {
  static const char* kHex = "0123456789abcdef";
  std::string s(32, '0');
  for (int i = 0; i < 16; ++i) {
    s[2 * i] = kHex[g.raw[i] >> 4];
    s[2 * i + 1] = kHex[g.raw[i] & 15];
  }
  return s;
}

ibv_gid gid_from_hex(const std::string& s) {
  if (s.size() != 32) throw PeerError("malformed GID from peer: '" + s + "'");
  ibv_gid g{};
  for (int i = 0; i < 16; ++i) {
    auto nib = [&](char c) -> int {
      if (c >= '0' && c <= '9') return c - '0';
      if (c >= 'a' && c <= 'f') return c - 'a' + 10;
      throw PeerError("malformed GID from peer: '" + s + "'");
    };
    g.raw[i] = static_cast<uint8_t>(nib(s[2 * i]) << 4 | nib(s[2 * i + 1]));
  }
  return g;
}

uint8_t pattern_byte(uint64_t j, uint64_t size) noexcept {
  return static_cast<uint8_t>((j * 131 + size * 7 + 1) & 0xff);
}

ibv_wr_opcode opcode_of(Op op) {
  switch (op) {
    case Op::kSend:
      return IBV_WR_SEND;
    case Op::kSendImm:
      return IBV_WR_SEND_WITH_IMM;
    case Op::kWrite:
      return IBV_WR_RDMA_WRITE;
    case Op::kWriteImm:
      return IBV_WR_RDMA_WRITE_WITH_IMM;
    case Op::kRead:
      return IBV_WR_RDMA_READ;
    case Op::kFetchAdd:
      return IBV_WR_ATOMIC_FETCH_AND_ADD;
    case Op::kCmpSwap:
      return IBV_WR_ATOMIC_CMP_AND_SWP;
  }
  return IBV_WR_SEND;
}

ibv_qp_type qp_type_of(QpType t) {
  switch (t) {
    case QpType::kRc:
      return IBV_QPT_RC;
    case QpType::kUc:
      return IBV_QPT_UC;
    case QpType::kUd:
      return IBV_QPT_UD;
  }
  return IBV_QPT_RC;
}

}  // namespace

void to_json(nlohmann::json& j, const SideInfo& s) {
  nlohmann::json qps = nlohmann::json::array();
  for (const auto& q : s.qps)
    qps.push_back(
        {{"qpn", q.qpn}, {"psn", q.psn}, {"addr", q.addr}, {"rkey", q.rkey}, {"len", q.len}});
  j = {{"lid", s.lid},
       {"gid", s.gid},
       {"active_mtu", s.active_mtu},
       {"max_rd_atomic", s.max_rd_atomic},
       {"qps", qps}};
}

SideInfo side_info_from_json(const nlohmann::json& j) {
  try {
    SideInfo s;
    s.lid = static_cast<uint16_t>(json_uint(j.at("lid"), UINT16_MAX));
    s.gid = j.at("gid").get<std::string>();
    s.active_mtu = static_cast<uint32_t>(json_uint(j.at("active_mtu"), 1U << 20));
    s.max_rd_atomic = static_cast<int>(json_uint(j.at("max_rd_atomic"), 255));
    const auto& qps = j.at("qps");
    if (!qps.is_array()) throw std::domain_error("\"qps\" is not an array");
    for (const auto& q : qps) {
      QpInfo qi;
      qi.qpn = static_cast<uint32_t>(json_uint(q.at("qpn"), 0xffffff));
      qi.psn = static_cast<uint32_t>(json_uint(q.at("psn"), 0xffffff));
      qi.addr = json_uint(q.at("addr"));
      qi.rkey = static_cast<uint32_t>(json_uint(q.at("rkey"), UINT32_MAX));
      qi.len = json_uint(q.at("len"));
      s.qps.push_back(qi);
    }
    return s;
  } catch (const nlohmann::json::exception& e) {
    throw PeerError(std::string("malformed endpoint description from peer: ") + e.what());
  } catch (const std::domain_error& e) {
    throw PeerError(std::string("malformed endpoint description from peer: ") + e.what());
  }
}

DeviceLimits limits_of(const Device& d, uint32_t port) {
  const DeviceInfo& i = d.info();
  DeviceLimits l;
  l.name = i.name;
  l.transport = i.transport;
  l.atomic_cap = i.atomic_cap;
  l.port_active_mtu = d.port(port).active_mtu;
  l.max_inline_data = i.max_inline_data;
  l.max_qp_wr = i.max_qp_wr;
  l.max_qp = i.max_qp;
  l.max_cqe = i.max_cqe;
  l.max_srq_wr = i.max_srq_wr;
  l.max_sge = i.max_sge;
  l.max_mr_size = i.max_mr_size;
  l.max_sge_rd = i.max_sge_rd;
  l.max_srq_sge = i.max_srq_sge;
  l.max_qp_rd_atom = i.max_qp_rd_atom;
  l.max_qp_init_rd_atom = i.max_qp_init_rd_atom;
  l.max_cq = i.max_cq;
  return l;
}

Fabric::Fabric(const Workload& w, const LocalSettings& local, bool is_client)
    : w_(w), local_(local), is_client_(is_client) {
  w_.connect = resolve_connect(w_.connect, w_.qp, device_transport(local_.device));
  if (w_.connect == ConnectMethod::kRdmaCm) {
    cm_ctx_ = cm_device_context(local_.device);
    device_ = Device::borrow(cm_ctx_.ctx);
    cm_channel_ = create_cm_channel();
  } else {
    device_ = Device::open(local_.device);
  }
  const PortInfo& port = device_.port(local_.port);
  if (port.state != "ACTIVE")
    throw ConfigError("port", std::to_string(local_.port),
                      "an ACTIVE port (" + device_.info().name + " port " +
                          std::to_string(local_.port) + " is " + port.state + ")");
  validate_for_device(w_, limits_of(device_, local_.port));
  ensure_memlock(w_, device_.info().name, device_.info().transport);
  gid_index_ = local_.gid_index >= 0
                   ? gid_entry(port, static_cast<uint32_t>(local_.gid_index)).index
                   : auto_gid_index(port, local_.bind_addr);
  if (int rc = ibv_query_gid(device_.context(), static_cast<uint8_t>(local_.port),
                             static_cast<int>(gid_index_), &gid_);
      rc != 0)
    throw_sys("ibv_query_gid", device_.info().name + " GID index " + std::to_string(gid_index_),
              rc);
  active_mtu_ = port.active_mtu;
  max_rd_atomic_ = w_.max_rd_atomic != 0 ? static_cast<int>(w_.max_rd_atomic)
                                         : std::max(1, std::min(device_.info().max_qp_rd_atom, 16));
  inline_cap_ = w_.effective_inline(device_.info().max_inline_data);
  choose_numa();

  pd_ = alloc_pd(device_.context());
  region_bytes_ = region_bytes_for(w_);
  const int access = IBV_ACCESS_LOCAL_WRITE | remote_access();
  const uint32_t qps = w_.qps_per_thread;
  const int max_cqe = device_.info().max_cqe;
  const uint64_t per_qp_cqe = uint64_t(w_.tx_depth) + w_.rx_depth + 16;
  const uint64_t cqe64 =
      w_.cq_per_qp ? per_qp_cqe : uint64_t(qps) * (w_.tx_depth + w_.rx_depth) + 16;
  const int cqe = static_cast<int>(std::min<uint64_t>(cqe64, uint64_t(max_cqe)));
  res_.resize(w_.threads);
  for (auto& wr : res_) {
    if (w_.cq == CqMode::kEvent) wr.channel = create_comp_channel(device_.context());
    wr.qps.resize(qps);
    if (w_.cq_per_qp) {
      for (auto& q : wr.qps) q.cq = create_cq(device_.context(), cqe, nullptr);
    } else {
      wr.cq = create_cq(device_.context(), cqe, wr.channel.get());
    }
    if (w_.srq) {
      ibv_srq_init_attr sa{};
      sa.attr.max_wr = w_.rx_depth;
      sa.attr.max_sge = w_.sge;
      wr.srq = create_srq(pd_.get(), &sa);
    }
  }
  allocate_buffers(access);
  std::mt19937 rng(std::random_device{}());
  for (auto& wr : res_)
    for (auto& q : wr.qps) q.psn = rng() & 0xffffff;
}

void Fabric::choose_numa() {
  const int dev_node = device_.info().numa_node;
  if (w_.numa == Workload::kNumaAuto) {
    if (dev_node >= 0) {
      numa_bind_ = dev_node;
    } else {
      numa_note_ = "the device reports no NUMA node (numa_node -1 or absent in sysfs): not bound";
    }
  } else if (w_.numa >= 0) {
    numa_bind_ = w_.numa;
  }
  if (numa_bind_ < 0) return;
  numa_cpus_ = numa_node_cpus(numa_bind_);  // ConfigError when the node does not exist
  if (numa_cpus_.empty())
    throw ConfigError("numa", numa_text(w_.numa),
                      "a NUMA node with CPUs (node " + std::to_string(numa_bind_) + " has none)");
  affinity_ = cpu_set_of(numa_cpus_);
}

void Fabric::allocate_buffers(int access) {
  const uint64_t page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  const uint64_t a = w_.align;  // 0 = page-aligned
  lead_ = a != 0 && a < page ? a : 0;
  const uint64_t gran = a == 0 ? 64 : std::max<uint64_t>(64, a < page ? 2 * a : a);
  stride_ = (region_bytes_ + gran - 1) / gran * gran;
  const uint64_t slab = 2 * stride_;
  const uint64_t map_align = std::max<uint64_t>(a, page);
  if (w_.hugepages) {
    const HugePageInfo hp = huge_page_info();
    huge_page_bytes_ = hp.page_bytes;
    const uint64_t nqp = w_.total_qps();
    uint64_t needed = 0;
    if (hp.page_bytes > 0)
      needed = w_.mr == MrMode::kShared
                   ? mapping_bytes(lead_ + nqp * slab, map_align, hp.page_bytes) / hp.page_bytes
                   : nqp * (mapping_bytes(lead_ + slab, map_align, hp.page_bytes) / hp.page_bytes);
    if (hp.page_bytes == 0 || needed > hp.free)
      throw ConfigError("hugepages", "true", huge_pages_advice(needed, hp));
  }
  if (w_.mr == MrMode::kShared) {
    const uint64_t bytes = uint64_t(w_.total_qps()) * slab;
    shared_mem_ = HostMemory::map(lead_ + bytes, map_align, huge_page_bytes_, numa_bind_);
    mapped_bytes_ = shared_mem_.mapped_bytes();
    std::byte* base = shared_mem_.data() + lead_;
    shared_mr_ = reg_mr(pd_.get(), base, bytes, access);
    uint64_t i = 0;
    for (auto& wr : res_)
      for (auto& q : wr.qps) {
        q.buf = base + (i++) * slab;
        q.mr = shared_mr_.get();
      }
    return;
  }
  for (auto& wr : res_)
    for (auto& q : wr.qps) {
      q.mem = HostMemory::map(lead_ + slab, map_align, huge_page_bytes_, numa_bind_);
      mapped_bytes_ += q.mem.mapped_bytes();
      q.buf = q.mem.data() + lead_;
      q.mr_owned = reg_mr(pd_.get(), q.buf, slab, access);
      q.mr = q.mr_owned.get();
    }
}

Fabric::~Fabric() = default;

int Fabric::remote_access() const noexcept {
  return mr_remote_access(w_, is_client_, device_.is_iwarp());
}

nlohmann::json Fabric::describe() const {
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

ibv_qp_init_attr Fabric::qp_init_attr(const WorkerRes& wr, const QpRes& q) const {
  ibv_qp_init_attr a{};
  a.send_cq = q.cq ? q.cq.get() : wr.cq.get();
  a.recv_cq = a.send_cq;
  a.srq = wr.srq.get();
  a.qp_type = qp_type_of(w_.qp);
  a.cap.max_send_wr = w_.tx_depth;
  a.cap.max_recv_wr = wr.srq ? 0 : w_.rx_depth;
  a.cap.max_send_sge = w_.sge;
  a.cap.max_recv_sge = w_.sge;
  a.cap.max_inline_data = inline_cap_;
  a.sq_sig_all = 0;
  return a;
}

Fabric::QpRes& Fabric::qp_at(size_t flat) {
  return res_[flat / w_.qps_per_thread].qps[flat % w_.qps_per_thread];
}

void Fabric::create_qps() {
  for (auto& wr : res_) {
    for (auto& q : wr.qps) {
      const auto t0 = std::chrono::steady_clock::now();
      ibv_qp_init_attr a = qp_init_attr(wr, q);
      q.qp_owned = create_qp(pd_.get(), &a);
      q.qp = q.qp_owned.get();
      ibv_qp_attr attr{};
      attr.qp_state = IBV_QPS_INIT;
      attr.pkey_index = 0;
      attr.port_num = static_cast<uint8_t>(local_.port);
      int mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT;
      if (w_.qp == QpType::kUd) {
        attr.qkey = kUdQkey;
        mask |= IBV_QP_QKEY;
      } else {
        attr.qp_access_flags = static_cast<unsigned>(remote_access());
        mask |= IBV_QP_ACCESS_FLAGS;
      }
      modify_qp(q.qp, &attr, mask, "INIT");
      q.setup_s += seconds_since(t0);
    }
  }
  build_slots();
}

SideInfo Fabric::local_side() const {
  SideInfo s;
  s.lid = device_.port(local_.port).lid;
  s.gid = gid_hex(gid_);
  s.active_mtu = active_mtu_;
  s.max_rd_atomic = max_rd_atomic_;
  for (const auto& wr : res_)
    for (const auto& q : wr.qps)
      s.qps.push_back({q.qp != nullptr ? q.qp->qp_num : 0, q.psn, reinterpret_cast<uint64_t>(q.buf),
                       q.mr->rkey, region_bytes_});
  return s;
}

ibv_ah_attr Fabric::make_ah_attr(const SideInfo& remote) const {
  ibv_ah_attr ah{};
  ah.dlid = remote.lid;
  ah.sl = 0;
  ah.port_num = static_cast<uint8_t>(local_.port);
  if (device_.is_ethernet(local_.port) || remote.lid == 0) {
    ah.is_global = 1;
    ah.grh.dgid = gid_from_hex(remote.gid);
    ah.grh.sgid_index = static_cast<uint8_t>(gid_index_);
    ah.grh.hop_limit = 64;
  }
  return ah;
}

void Fabric::set_remote(const SideInfo& remote) {
  if (remote.qps.size() != size_t(w_.total_qps()))
    throw PeerError("peer described " + std::to_string(remote.qps.size()) + " QPs, expected " +
                    std::to_string(w_.total_qps()));
  for (size_t i = 0; i < remote.qps.size(); ++i) {
    const QpInfo& r = remote.qps[i];
    if (r.len < region_bytes_ && w_.op != Op::kSend && w_.op != Op::kSendImm)
      throw PeerError("the peer's buffer (" + std::to_string(r.len) +
                      " bytes) is smaller than the largest message (" +
                      std::to_string(w_.max_size()) + " bytes)");
    qp_at(i).remote = r;
  }
  peer_rd_atomic_ = std::max(1, remote.max_rd_atomic);
  build_slots();
}

void Fabric::connect_qps(const SideInfo& remote) {
  uint32_t mtu = std::min(active_mtu_, remote.active_mtu);
  if (w_.mtu != 0) mtu = std::min(mtu, w_.mtu);
  path_mtu_ = mtu_enum(mtu);
  set_remote(remote);
  const ibv_ah_attr ah = make_ah_attr(remote);
  for (size_t i = 0; i < remote.qps.size(); ++i) {
    QpRes& q = qp_at(i);
    const QpInfo& r = q.remote;
    const auto t0 = std::chrono::steady_clock::now();
    struct AddTime {  // this QP's connect time, however the iteration ends
      QpRes& q;
      std::chrono::steady_clock::time_point t0;
      ~AddTime() { q.setup_s += seconds_since(t0); }
    } add_time{q, t0};
    ibv_qp_attr a{};
    if (w_.qp == QpType::kUd) {
      a.qp_state = IBV_QPS_RTR;
      modify_qp(q.qp, &a, IBV_QP_STATE, "RTR");
      a = {};
      a.qp_state = IBV_QPS_RTS;
      a.sq_psn = q.psn;
      modify_qp(q.qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN, "RTS");
      ibv_ah_attr ah_copy = ah;
      q.ah = create_ah(pd_.get(), &ah_copy);
      continue;
    }
    a.qp_state = IBV_QPS_RTR;
    a.path_mtu = path_mtu_;
    a.dest_qp_num = r.qpn;
    a.rq_psn = r.psn;
    a.ah_attr = ah;
    int mask = IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN;
    if (w_.qp == QpType::kRc) {
      a.max_dest_rd_atomic = static_cast<uint8_t>(max_rd_atomic_);
      a.min_rnr_timer = 12;
      mask |= IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
    }
    modify_qp(q.qp, &a, mask, "RTR");
    a = {};
    a.qp_state = IBV_QPS_RTS;
    a.sq_psn = q.psn;
    mask = IBV_QP_STATE | IBV_QP_SQ_PSN;
    if (w_.qp == QpType::kRc) {
      a.timeout = 14;  // 4.096 us * 2^14 = 67 ms per try
      a.retry_cnt = 7;
      a.rnr_retry = 7;  // infinite: a slow receiver is not an error
      a.max_rd_atomic = static_cast<uint8_t>(std::min(max_rd_atomic_, peer_rd_atomic_));
      mask |= IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC;
    }
    modify_qp(q.qp, &a, mask, "RTS");
  }
  build_slots();
}

void Fabric::cm_connect(const std::string& server_addr, uint16_t cm_port,
                        std::chrono::milliseconds timeout) {
  addrinfo hints{};
  hints.ai_family = AF_INET;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* res = nullptr;
  if (int rc = getaddrinfo(server_addr.c_str(), std::to_string(cm_port).c_str(), &hints, &res);
      rc != 0)
    throw Error("rdma_cm: cannot resolve '" + server_addr + "': " + gai_strerror(rc));
  std::unique_ptr<addrinfo, decltype(&freeaddrinfo)> guard(res, freeaddrinfo);
  const std::string where = server_addr + ":" + std::to_string(cm_port);
  uint32_t flat = 0;
  for (auto& wr : res_) {
    for (auto& q : wr.qps) {
      const auto t0 = std::chrono::steady_clock::now();
      q.cm_id = create_cm_id(cm_channel_.get());
      if (rdma_resolve_addr(q.cm_id.get(), nullptr, res->ai_addr,
                            static_cast<int>(timeout.count())) != 0)
        throw_sys("rdma_resolve_addr", where);
      cm_expect(cm_channel_.get(), RDMA_CM_EVENT_ADDR_RESOLVED, timeout,
                "address resolution of " + where);
      if (q.cm_id->verbs != device_.context())
        throw ConfigError("device", device_.info().name,
                          "the device rdma_cm routes " + server_addr + " through (" +
                              std::string(ibv_get_device_name(q.cm_id->verbs->device)) + ")");
      if (rdma_resolve_route(q.cm_id.get(), static_cast<int>(timeout.count())) != 0)
        throw_sys("rdma_resolve_route", where);
      cm_expect(cm_channel_.get(), RDMA_CM_EVENT_ROUTE_RESOLVED, timeout,
                "route resolution to " + where);
      ibv_qp_init_attr a = qp_init_attr(wr, q);
      if (rdma_create_qp(q.cm_id.get(), pd_.get(), &a) != 0) throw_sys("rdma_create_qp", where);
      q.qp = q.cm_id->qp;
      q.psn = q.qp->qp_num;  // informational; rdma_cm picks the PSNs
      rdma_conn_param cp{};
      cp.private_data = &flat;
      cp.private_data_len = sizeof flat;
      cp.responder_resources = static_cast<uint8_t>(max_rd_atomic_);
      cp.initiator_depth = static_cast<uint8_t>(max_rd_atomic_);
      cp.retry_count = 7;
      cp.rnr_retry_count = 7;
      if (rdma_connect(q.cm_id.get(), &cp) != 0) throw_sys("rdma_connect", where);
      cm_expect(cm_channel_.get(), RDMA_CM_EVENT_ESTABLISHED, timeout,
                "connection of QP " + std::to_string(flat) + " to " + where);
      q.setup_s += seconds_since(t0);
      ++flat;
    }
  }
  build_slots();
}

void Fabric::cm_listen(const std::string& bind_addr, uint16_t cm_port) {
  cm_listener_ = create_cm_id(cm_channel_.get());
  sockaddr_in sin{};
  sin.sin_family = AF_INET;
  sin.sin_port = htons(cm_port);
  if (!bind_addr.empty() && inet_pton(AF_INET, bind_addr.c_str(), &sin.sin_addr) != 1)
    throw ConfigError("bind", bind_addr, "an IPv4 address for rdma_cm");
  const std::string where =
      (bind_addr.empty() ? "0.0.0.0" : bind_addr) + ":" + std::to_string(cm_port);
  if (rdma_bind_addr(cm_listener_.get(), reinterpret_cast<sockaddr*>(&sin)) != 0)
    throw_sys("rdma_bind_addr", where);
  if (rdma_listen(cm_listener_.get(), 64) != 0) throw_sys("rdma_listen", where);
}

void Fabric::cm_accept_all(std::chrono::milliseconds timeout) {
  const uint32_t total = w_.total_qps();
  uint32_t established = 0;
  while (established < total) {
    CmEvent ev = cm_next(cm_channel_.get(), timeout, "rdma_cm connections from the client");
    if (ev.type == RDMA_CM_EVENT_ESTABLISHED) {
      ++established;
      continue;
    }
    if (ev.type != RDMA_CM_EVENT_CONNECT_REQUEST) {
      throw PeerError(std::string("rdma_cm: unexpected event ") + rdma_event_str(ev.type) +
                      " while accepting connections (status " + std::to_string(ev.status) + ")");
    }
    CmIdPtr id(ev.id);
    uint32_t flat = UINT32_MAX;
    if (ev.private_data.size() >= sizeof flat)
      std::memcpy(&flat, ev.private_data.data(), sizeof flat);
    if (flat >= total || qp_at(flat).cm_id) {
      rdma_reject(id.get(), nullptr, 0);
      throw PeerError("rdma_cm: connect request with a bad QP index " + std::to_string(flat));
    }
    if (id->verbs != device_.context())
      throw ConfigError("device", device_.info().name,
                        std::string("the device the client's connection arrived on (") +
                            ibv_get_device_name(id->verbs->device) + ")");
    QpRes& q = qp_at(flat);
    const auto t0 = std::chrono::steady_clock::now();
    ibv_qp_init_attr a = qp_init_attr(res_[flat / w_.qps_per_thread], q);
    if (rdma_create_qp(id.get(), pd_.get(), &a) != 0)
      throw_sys("rdma_create_qp", "accepted connection");
    q.qp = id->qp;
    q.psn = q.qp->qp_num;
    rdma_conn_param cp{};
    cp.responder_resources = static_cast<uint8_t>(max_rd_atomic_);
    cp.initiator_depth = static_cast<uint8_t>(max_rd_atomic_);
    cp.retry_count = 7;
    cp.rnr_retry_count = 7;
    q.cm_id = std::move(id);
    if (rdma_accept(q.cm_id.get(), &cp) != 0)
      throw_sys("rdma_accept", "QP " + std::to_string(flat));
    q.setup_s += seconds_since(t0);
  }
  cm_listener_.reset();
  build_slots();
}

void Fabric::post_initial_receives() {
  bool needed = uses_recv(w_.op) && (!is_client_ || w_.bidir || w_.mode == Mode::kLat);
  if (!needed) return;
  for (size_t wi = 0; wi < res_.size(); ++wi) {
    WorkerContext& c = ctx_[wi];
    if (res_[wi].srq) {
      for (uint32_t k = 0; k < w_.rx_depth; ++k) {
        QpSlot& s = c.qps[k % c.qps.size()];
        ibv_recv_wr* const next = s.rwr->next;  // one at a time (a list of one)
        s.rwr->next = nullptr;
        ibv_recv_wr* bad = nullptr;
        int rc = ibv_post_srq_recv(s.srq, s.rwr, &bad);
        s.rwr->next = next;
        if (rc != 0) throw SysError("ibv_post_srq_recv", rc, "SRQ of worker " + std::to_string(wi));
      }
      continue;
    }
    for (QpSlot& s : c.qps)
      for (uint32_t k = 0; k < w_.rx_depth; ++k) {
        ibv_recv_wr* const next = s.rwr->next;
        s.rwr->next = nullptr;
        ibv_recv_wr* bad = nullptr;
        int rc = ibv_post_recv(s.qp, s.rwr, &bad);
        s.rwr->next = next;
        if (rc != 0) throw SysError("ibv_post_recv", rc, "QP " + std::to_string(s.qp->qp_num));
      }
  }
}

void Fabric::build_slots() {
  ctx_.resize(res_.size());
  for (uint32_t wi = 0; wi < res_.size(); ++wi) {
    WorkerContext& c = ctx_[wi];
    c.index = wi;
    c.cqs.clear();
    if (w_.cq_per_qp) {
      for (const auto& q : res_[wi].qps) c.cqs.push_back(q.cq.get());
    } else {
      c.cqs.push_back(res_[wi].cq.get());
    }
    c.cq = c.cqs.front();
    c.next_cq = 0;
    c.channel = res_[wi].channel.get();
    c.tx_depth = w_.tx_depth;
    // With one spare receive posted, the next message never waits for the one just consumed.
    c.defer_recv = w_.rx_depth > w_.post_list;
    c.signal_every = w_.effective_signal_every();
    c.post_list = w_.post_list;
    c.affinity = numa_bind_ >= 0 ? &affinity_ : nullptr;
    c.qps.resize(res_[wi].qps.size());
    for (uint32_t qi = 0; qi < res_[wi].qps.size(); ++qi) fill_wr(wi, qi);
  }
}

void Fabric::fill_wr(uint32_t wi, uint32_t qi) {
  QpRes& r = res_[wi].qps[qi];
  QpSlot& s = ctx_[wi].qps[qi];
  std::byte* rx = r.buf;
  std::byte* tx = r.buf + stride_;
  const uint32_t k_sge = w_.sge;
  s.qp = r.qp;
  s.srq = res_[wi].srq.get();
  s.cq = r.cq ? r.cq.get() : res_[wi].cq.get();
  shape_slot(s, w_.post_list, k_sge);
  // The message, split into k_sge contiguous pieces: sends gather from tx, reads scatter to rx.
  std::byte* local = is_fetch(w_.op) ? rx : tx;
  const uint64_t len = is_atomic(w_.op) ? 8 : size_;
  for (uint32_t k = 0; k < k_sge; ++k)
    s.sges[k] = {reinterpret_cast<uint64_t>(local + sge_piece_offset(len, k_sge, k)),
                 static_cast<uint32_t>(sge_piece_length(len, k_sge, k)), r.mr->lkey};
  for (ibv_send_wr& wr : s.wrs) {
    wr.opcode = opcode_of(w_.op);
    if (size_ == 0) wr.num_sge = 0;
    switch (w_.op) {
      case Op::kWrite:
      case Op::kWriteImm:
      case Op::kRead:
        wr.wr.rdma.remote_addr = r.remote.addr;
        wr.wr.rdma.rkey = r.remote.rkey;
        break;
      case Op::kFetchAdd:
        wr.wr.atomic.remote_addr = r.remote.addr;
        wr.wr.atomic.rkey = r.remote.rkey;
        wr.wr.atomic.compare_add = 1;
        break;
      case Op::kCmpSwap:
        wr.wr.atomic.remote_addr = r.remote.addr;
        wr.wr.atomic.rkey = r.remote.rkey;
        wr.wr.atomic.compare_add = kCasPattern;
        wr.wr.atomic.swap = kCasPattern;
        break;
      default:
        break;
    }
    if (w_.op == Op::kSendImm || w_.op == Op::kWriteImm) wr.imm_data = htonl(0x5eed0000U | qi);
    if (w_.qp == QpType::kUd && r.ah) {
      wr.wr.ud.ah = r.ah.get();
      wr.wr.ud.remote_qpn = r.remote.qpn;
      wr.wr.ud.remote_qkey = kUdQkey;
    }
  }
  // Receives scatter into the rx region in the sender's pieces (UD: the GRH in front of the
  // first); the last piece runs to the end of the region.
  const uint64_t grh = w_.qp == QpType::kUd ? kUdGrh : 0;
  const uint64_t rlen = std::max<uint64_t>(size_, k_sge);
  for (uint32_t k = 0; k < k_sge; ++k) {
    const uint64_t from = k == 0 ? 0 : grh + sge_piece_offset(rlen, k_sge, k);
    const uint64_t to = k + 1 < k_sge ? grh + sge_piece_offset(rlen, k_sge, k + 1) : region_bytes_;
    s.rsges[k] = {reinterpret_cast<uint64_t>(rx + from), static_cast<uint32_t>(to - from),
                  r.mr->lkey};
  }
  for (ibv_recv_wr& rwr : s.rwrs) rwr.wr_id = qi;
  uint64_t last = size_ == 0 ? 0 : size_ - 1;
  s.rx_last = reinterpret_cast<volatile uint8_t*>(rx + last);
  s.tx_last = reinterpret_cast<uint8_t*>(tx + last);
  s.posted = s.completed = 0;
  s.unsignaled = 0;
  s.recv_pending = 0;
}

void Fabric::prepare_size(uint64_t size, bool fill_patterns) {
  size_ = size;
  for (auto& wr : res_)
    for (auto& q : wr.qps) {
      std::byte* rx = q.buf;
      std::byte* tx = q.buf + stride_;
      std::memset(rx, 0, region_bytes_);
      if (fill_patterns || true) {
        for (uint64_t j = 0; j < size; ++j) tx[j] = std::byte{pattern_byte(j, size)};
      }
      // Read targets: the peer reads our rx region, so it holds the pattern too.
      if (w_.op == Op::kRead && (!is_client_ || w_.bidir))
        for (uint64_t j = 0; j < size; ++j) rx[j] = std::byte{pattern_byte(j, size)};
    }
  if (w_.op == Op::kCmpSwap && (!is_client_ || w_.bidir)) set_rx_words(kCasPattern);
  build_slots();
  for (auto& c : ctx_) {
    c.base_send_flags = (size <= inline_cap_ && size > 0 && !is_fetch(w_.op)) ? IBV_SEND_INLINE : 0;
    c.received = 0;
    c.received_bytes = 0;
    c.post_calls = 0;
    c.recv_post_calls = 0;
    c.recv_header_bytes = w_.qp == QpType::kUd ? static_cast<uint32_t>(kUdGrh) : 0;
  }
}

std::string Fabric::verify_rx(uint64_t size, bool skip_last) const {
  const uint64_t off = (w_.qp == QpType::kUd) ? kUdGrh : 0;
  uint64_t n = skip_last && size > 0 ? size - 1 : size;
  for (size_t wi = 0; wi < res_.size(); ++wi)
    for (size_t qi = 0; qi < res_[wi].qps.size(); ++qi) {
      const std::byte* rx = res_[wi].qps[qi].buf + off;
      for (uint64_t j = 0; j < n; ++j)
        if (rx[j] != std::byte{pattern_byte(j, size)})
          return "byte " + std::to_string(j) + " of the " + std::to_string(size) +
                 "-byte message on worker " + std::to_string(wi) + " QP " + std::to_string(qi) +
                 " is " + std::to_string(static_cast<unsigned>(rx[j])) + ", expected " +
                 std::to_string(pattern_byte(j, size));
    }
  return "";
}

std::vector<uint64_t> Fabric::rx_words() const {
  std::vector<uint64_t> out;
  for (const auto& wr : res_)
    for (const auto& q : wr.qps) {
      uint64_t v = 0;
      std::memcpy(&v, q.buf, 8);
      out.push_back(v);
    }
  return out;
}

void Fabric::set_rx_words(uint64_t v) {
  for (auto& wr : res_)
    for (auto& q : wr.qps) std::memcpy(q.buf, &v, 8);
}

void Fabric::bind_control(WorkerControl* control, const Clock* clock, double timeout_s) {
  for (auto& c : ctx_) {
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

nlohmann::json Fabric::setup_info(double setup_seconds) const {
  const uint32_t nqp = w_.total_qps();
  double max_qp = 0;
  double sum_qp = 0;
  size_t cqs = 0;
  for (const auto& wr : res_) {
    cqs += wr.cq ? 1 : 0;
    for (const auto& q : wr.qps) {
      max_qp = std::max(max_qp, q.setup_s);
      sum_qp += q.setup_s;
      cqs += q.cq ? 1 : 0;
    }
  }
  nlohmann::json j;
  j["qps"] = nqp;
  j["cqs"] = cqs;
  j["mrs"] = w_.mr == MrMode::kShared ? 1 : nqp;
  j["seconds"] = setup_seconds;
  j["per_qp_ms"] = nqp > 0 ? setup_seconds * 1e3 / nqp : 0.0;
  j["qp_verbs_ms"] = {{"mean", nqp > 0 ? sum_qp * 1e3 / nqp : 0.0}, {"max", max_qp * 1e3}};
  nlohmann::json attr = nullptr;
  if (!res_.empty() && !res_[0].qps.empty() && res_[0].qps[0].qp != nullptr) {
    ibv_qp_attr a{};
    ibv_qp_init_attr init{};
    const int mask = IBV_QP_STATE | IBV_QP_CAP | IBV_QP_PATH_MTU | IBV_QP_MAX_QP_RD_ATOMIC |
                     IBV_QP_MAX_DEST_RD_ATOMIC;
    if (ibv_query_qp(res_[0].qps[0].qp, &a, mask, &init) == 0) {
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
  j["qp_attr"] = attr;
  const std::byte* first = res_.empty() || res_[0].qps.empty() ? nullptr : res_[0].qps[0].buf;
  uint64_t addr_align = 0;
  if (first != nullptr) {
    const uint64_t v = reinterpret_cast<uint64_t>(first);
    addr_align = std::min<uint64_t>(v & (~v + 1), 1ULL << 30);
  }
  j["memory"] = {{"mr", to_string(w_.mr)},
                 {"hugepages", w_.hugepages},
                 {"huge_page_bytes", huge_page_bytes_},
                 {"align", w_.align},
                 {"buffer_address_alignment", addr_align},
                 {"region_stride", stride_},
                 {"mapped_bytes", mapped_bytes_}};
  j["numa"] = {{"requested", numa_text(w_.numa)},
               {"device_node", device_.info().numa_node},
               {"node", numa_bind_},
               {"cpus", numa_cpus_},
               {"buffer_node", first != nullptr ? node_of_address(first) : -1},
               {"note", numa_note_}};
  return j;
}

}  // namespace rdmabench
