#include "verbs/cm.h"

#include <poll.h>

#include <cstring>

#include "base/error.h"
#include "verbs/verbs.h"

namespace rdmabench {

void CmChannelDeleter::operator()(rdma_event_channel* ch) const noexcept {
  if (ch != nullptr) rdma_destroy_event_channel(ch);
}

void CmIdDeleter::operator()(rdma_cm_id* id) const noexcept {
  if (id == nullptr) return;
  if (id->qp != nullptr) rdma_destroy_qp(id);
  rdma_destroy_id(id);
}

void CmDevicesDeleter::operator()(ibv_context** list) const noexcept {
  if (list != nullptr) rdma_free_devices(list);
}

CmChannelPtr create_cm_channel() {
  CmChannelPtr ch(rdma_create_event_channel());
  if (!ch) throw_sys("rdma_create_event_channel", "rdma_cm (is rdma_ucm loaded?)");
  return ch;
}

CmIdPtr create_cm_id(rdma_event_channel* ch, rdma_port_space ps) {
  rdma_cm_id* id = nullptr;
  if (rdma_create_id(ch, &id, nullptr, ps) != 0) throw_sys("rdma_create_id", "rdma_cm");
  return CmIdPtr(id);
}

CmDeviceContext cm_device_context(const std::string& name) {
  int n = 0;
  CmDeviceContext out;
  out.list.reset(rdma_get_devices(&n));
  if (!out.list) throw_sys("rdma_get_devices", "rdma_cm");
  std::string names;
  for (int i = 0; i < n; ++i) {
    ibv_context* c = out.list.get()[i];
    std::string dn = ibv_get_device_name(c->device);
    names += (names.empty() ? "" : ", ") + dn;
    if (out.ctx == nullptr && (name.empty() || dn == name)) out.ctx = c;
  }
  if (out.ctx == nullptr)
    throw ConfigError("device", name, names.empty() ? "no RDMA device" : "one of: " + names);
  return out;
}

CmEvent cm_next(rdma_event_channel* ch, std::chrono::milliseconds timeout,
                const std::string& what) {
  pollfd p{ch->fd, POLLIN, 0};
  int rc = 0;
  do {
    rc = ::poll(&p, 1, static_cast<int>(timeout.count()));
  } while (rc < 0 && errno == EINTR);
  if (rc == 0) throw TimeoutError("rdma_cm: timed out waiting for " + what);
  rdma_cm_event* ev = nullptr;
  if (rdma_get_cm_event(ch, &ev) != 0) throw_sys("rdma_get_cm_event", what);
  CmEvent out;
  out.type = ev->event;
  out.status = ev->status;
  out.id = ev->id;
  if (ev->param.conn.private_data != nullptr && ev->param.conn.private_data_len > 0) {
    const auto* pd = static_cast<const uint8_t*>(ev->param.conn.private_data);
    out.private_data.assign(pd, pd + ev->param.conn.private_data_len);
  }
  rdma_ack_cm_event(ev);
  return out;
}

CmEvent cm_expect(rdma_event_channel* ch, rdma_cm_event_type expected,
                  std::chrono::milliseconds timeout, const std::string& what) {
  CmEvent ev = cm_next(ch, timeout, what);
  if (ev.type != expected) {
    std::string msg = std::string("rdma_cm: ") + what + ": expected " + rdma_event_str(expected) +
                      ", got " + rdma_event_str(ev.type);
    if (ev.status != 0)
      msg +=
          " (status " + std::to_string(ev.status) + ": " + std::strerror(std::abs(ev.status)) + ")";
    if (ev.type == RDMA_CM_EVENT_REJECTED) msg += " - the server refused the connection";
    if (ev.type == RDMA_CM_EVENT_UNREACHABLE) msg += " - no route to the server over RDMA";
    throw PeerError(msg);
  }
  return ev;
}

}  // namespace rdmabench
