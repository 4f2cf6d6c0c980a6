#include "engine/cm_connection.h"

#include <arpa/inet.h>
#include <netdb.h>

#include <cerrno>
#include <cstring>
#include <memory>

#include "base/error.h"

namespace rdmabench {

// A connect request's private data: the QP's index and the session's nonce.
struct CmPrivateData {
  uint32_t index;
  uint32_t pad = 0;
  uint64_t nonce;
};
namespace {

// The address a connect request came from ("?" when rdma_cm does not say).
std::string peer_address(rdma_cm_id* id) {
  const sockaddr* sa = rdma_get_peer_addr(id);
  char text[INET6_ADDRSTRLEN] = "?";
  if (sa != nullptr && sa->sa_family == AF_INET)
    inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in*>(sa)->sin_addr, text, sizeof text);
  else if (sa != nullptr && sa->sa_family == AF_INET6)
    inet_ntop(AF_INET6, &reinterpret_cast<const sockaddr_in6*>(sa)->sin6_addr, text, sizeof text);
  return text;
}

rdma_conn_param conn_param(int rd_atomic, const CmSettings& s) {
  rdma_conn_param cp{};
  cp.responder_resources = static_cast<uint8_t>(rd_atomic);
  cp.initiator_depth = static_cast<uint8_t>(rd_atomic);
  cp.retry_count = s.retry_count;
  cp.rnr_retry_count = s.rnr_retry;
  return cp;
}

// QP `flat` on `id`: extended where the queues ask for it and the provider has it (siw has not:
// the classic QP then), as the TCP exchange does.
void create_cm_qp(const QueuePairs& qps, size_t flat, rdma_cm_id* id, QpEndpoint& q,
                  const std::string& where) {
  if (qps.send_ops() != 0) {
    ibv_qp_init_attr_ex x = qps.init_attr_ex(flat);
    q.extended = rdma_create_qp_ex(id, &x) == 0;
    if (q.extended) return;
  }
  ibv_qp_init_attr a = qps.init_attr(flat);
  if (rdma_create_qp(id, qps.pd(), &a) != 0) throw_sys("rdma_create_qp", where);
}

}  // namespace

void CmRejections::add(const std::string& peer_and_reason) {
  ++total;
  auto it = named.find(peer_and_reason);
  if (it != named.end())
    ++it->second;
  else if (named.size() < kMaxNamed)
    named.emplace(peer_and_reason, 1);
}

std::string CmRejections::describe() const {
  std::string out;
  uint64_t listed = 0;
  for (const auto& [who, n] : named) {
    out += (out.empty() ? "" : ", ") + who + (n > 1 ? " x" + std::to_string(n) : "");
    listed += n;
  }
  if (listed < total) out += (out.empty() ? "" : ", ") + std::to_string(total - listed) + " more";
  return out;
}

void CmConnection::apply_settings(rdma_cm_id* id, const std::string& where, bool timeout) const {
  uint8_t tos = settings_.tos;
  if (rdma_set_option(id, RDMA_OPTION_ID, RDMA_OPTION_ID_TOS, &tos, sizeof tos) != 0)
    throw_sys("rdma_set_option(TOS " + std::to_string(tos) + ")", where);
  uint8_t t = settings_.ack_timeout;
  if (timeout && rdma_set_option(id, RDMA_OPTION_ID, RDMA_OPTION_ID_ACK_TIMEOUT, &t, sizeof t) != 0)
    throw_sys("rdma_set_option(ACK_TIMEOUT " + std::to_string(t) + ")", where);
}

CmConnection::CmConnection(const std::string& device)
    : dev_(cm_device_context(device)), channel_(create_cm_channel()) {}

void CmConnection::connect(QueuePairs& qps, int rd_atomic, const std::string& server_addr,
                           uint16_t cm_port, uint64_t nonce, std::chrono::milliseconds timeout) {
  addrinfo hints{};
  hints.ai_family = AF_INET;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* res = nullptr;
  if (int rc = getaddrinfo(server_addr.c_str(), std::to_string(cm_port).c_str(), &hints, &res);
      rc != 0)
    throw Error("rdma_cm: cannot resolve '" + server_addr + "': " + gai_strerror(rc));
  std::unique_ptr<addrinfo, decltype(&freeaddrinfo)> guard(res, freeaddrinfo);
  const std::string where = server_addr + ":" + std::to_string(cm_port);
  for (uint32_t flat = 0; flat < qps.count(); ++flat) {
    QpEndpoint& q = qps.at(flat);
    QpSetupTimer timer(q);
    q.cm_id = create_cm_id(channel_.get());
    if (rdma_resolve_addr(q.cm_id.get(), nullptr, res->ai_addr,
                          static_cast<int>(timeout.count())) != 0)
      throw_sys("rdma_resolve_addr", where);
    cm_expect(channel_.get(), RDMA_CM_EVENT_ADDR_RESOLVED, timeout,
              "address resolution of " + where);
    apply_settings(q.cm_id.get(), where, true);  // before the route: it carries the TOS
    if (q.cm_id->verbs != dev_.ctx)
      throw ConfigError("device", device_name(dev_.ctx),
                        "the device rdma_cm routes " + server_addr + " through (" +
                            std::string(ibv_get_device_name(q.cm_id->verbs->device)) + ")");
    if (rdma_resolve_route(q.cm_id.get(), static_cast<int>(timeout.count())) != 0)
      throw_sys("rdma_resolve_route", where);
    cm_expect(channel_.get(), RDMA_CM_EVENT_ROUTE_RESOLVED, timeout,
              "route resolution to " + where);
    create_cm_qp(qps, flat, q.cm_id.get(), q, where);
    q.qp = q.cm_id->qp;
    q.psn = q.qp->qp_num;  // informational; rdma_cm picks the PSNs
    rdma_conn_param cp = conn_param(rd_atomic, settings_);
    const CmPrivateData pd{.index = flat, .nonce = nonce};
    cp.private_data = &pd;
    cp.private_data_len = sizeof pd;
    if (rdma_connect(q.cm_id.get(), &cp) != 0) throw_sys("rdma_connect", where);
    cm_expect(channel_.get(), RDMA_CM_EVENT_ESTABLISHED, timeout,
              "connection of QP " + std::to_string(flat) + " to " + where);
  }
}

uint16_t CmConnection::listen(const std::string& bind_addr, uint16_t cm_port) {
  sockaddr_in sin{};
  sin.sin_family = AF_INET;
  sin.sin_port = htons(cm_port);
  if (!bind_addr.empty() && inet_pton(AF_INET, bind_addr.c_str(), &sin.sin_addr) != 1)
    throw ConfigError("bind", bind_addr, "an IPv4 address for rdma_cm");
  const std::string where =
      (bind_addr.empty() ? "0.0.0.0" : bind_addr) + ":" + std::to_string(cm_port);
  // On iWARP the listener is a real TCP socket of the device's (siw: a kernel socket), while
  // rdma_cm draws a free port (port 0) from its own port space: the port it draws may be one a
  // TCP connection of this host already uses (EADDRINUSE at listen). A fresh draw is then tried.
  constexpr int kDraws = 16;
  for (int draw = 1;; ++draw) {
    listener_ = create_cm_id(channel_.get());
    if (rdma_bind_addr(listener_.get(), reinterpret_cast<sockaddr*>(&sin)) != 0)
      throw_sys("rdma_bind_addr", where);
    apply_settings(listener_.get(), where, false);
    if (rdma_listen(listener_.get(), 64) == 0) break;
    const int e = errno;
    if (e != EADDRINUSE || cm_port != 0 || draw == kDraws)
      throw_sys("rdma_listen",
                where + (draw > 1 ? " (" + std::to_string(draw) + " ports drawn)" : ""), e);
  }
  return ntohs(rdma_get_src_port(listener_.get()));
}

void CmConnection::accept_all(QueuePairs& qps, int rd_atomic, uint64_t nonce,
                              std::chrono::milliseconds timeout) {
  const size_t total = qps.count();
  size_t established = 0;
  while (established < total) {
    CmEvent ev = cm_next(channel_.get(), timeout, "rdma_cm connections from the client");
    if (ev.type == RDMA_CM_EVENT_ESTABLISHED) {
      ++established;
      continue;
    }
    if (ev.type != RDMA_CM_EVENT_CONNECT_REQUEST) {
      throw PeerError(std::string("rdma_cm: unexpected event ") + rdma_event_str(ev.type) +
                      " while accepting connections (status " + std::to_string(ev.status) + ")");
    }
    CmIdPtr id(ev.id);
    CmPrivateData pd{.index = UINT32_MAX, .nonce = 0};
    const bool has_pd = ev.private_data.size() >= sizeof pd;
    if (has_pd) std::memcpy(&pd, ev.private_data.data(), sizeof pd);
    const uint32_t flat = pd.index;
    // (On InfiniBand and RoCE the request's private data has a fixed size, zero-padded: a
    // stranger's request without any carries a zero nonce, which no session draws.)
    const char* why = !has_pd || pd.nonce == 0 ? "no session nonce"
                      : pd.nonce != nonce      ? "wrong nonce"
                      : flat >= total          ? "QP index out of range"
                      : qps.at(flat).cm_id     ? "QP already connected"
                                               : nullptr;
    if (why != nullptr) {
      rdma_reject(id.get(), nullptr, 0);  // not this session's client: it goes on waiting
      rejected_.add(peer_address(id.get()) + " (" + why + ")");
      continue;
    }
    if (id->verbs != dev_.ctx)
      throw ConfigError("device", device_name(dev_.ctx),
                        std::string("the device the client's connection arrived on (") +
                            ibv_get_device_name(id->verbs->device) + ")");
    QpEndpoint& q = qps.at(flat);
    QpSetupTimer timer(q);
    create_cm_qp(qps, flat, id.get(), q, "accepted connection");
    q.qp = id->qp;
    q.psn = q.qp->qp_num;
    apply_settings(id.get(), "accepted connection", true);
    rdma_conn_param cp = conn_param(rd_atomic, settings_);
    q.cm_id = std::move(id);
    if (rdma_accept(q.cm_id.get(), &cp) != 0)
      throw_sys("rdma_accept", "QP " + std::to_string(flat));
  }
  listener_.reset();
}

}  // namespace rdmabench
