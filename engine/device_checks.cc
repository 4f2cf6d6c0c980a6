#include "engine/device_checks.h"

#include "base/error.h"
#include "engine/qp_settings.h"

namespace rdmabench {

DeviceLimits limits_of(const Device& d, uint32_t port) {
  DeviceLimits l;
  static_cast<DeviceCaps&>(l) = static_cast<const DeviceCaps&>(d.info());
  l.port_active_mtu = d.port(port).active_mtu;
  return l;
}

const PortInfo& active_port(const Device& d, uint32_t port) {
  const PortInfo& p = d.port(port);
  if (p.state != "ACTIVE")
    throw ConfigError("port", std::to_string(port),
                      "an ACTIVE port (" + d.info().name + " port " + std::to_string(port) +
                          " is " + p.state + ")");
  return p;
}

void check_device_for(const Workload& w, const Device& d, uint32_t port) {
  (void)active_port(d, port);
  validate_for_device(w, limits_of(d, port));
}

void check_local_device(const Workload& w, const LocalSettings& local) {
  Device d = Device::open(local.device);
  check_device_for(w, d, local.port);
  const PortInfo& port = d.port(local.port);
  check_qp_settings(w, d.context(), port, resolve_connect(w.connect, w.qp, d.info().transport),
                    d.is_iwarp());
  (void)choose_gid_index(port, local.gid_index, local.gid, local.bind_addr, w.gid_type);
}

}  // namespace rdmabench
