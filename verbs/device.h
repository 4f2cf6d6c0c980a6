#pragma once
// Device, port and GID discovery. Everything here is read from libibverbs (and sysfs where
// verbs has no call for it) and serialises to JSON for `rdmabench devices` and the results.
#include <infiniband/verbs.h>

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "base/device_caps.h"
#include "verbs/verbs.h"

namespace rdmabench {

struct GidEntry {
  uint32_t index = 0;
  std::string gid;     // textual, e.g. "::ffff:198.18.0.1" or "fe80::..."
  std::string type;    // "IB", "RoCE v1", "RoCE v2"
  std::string netdev;  // name of the netdev behind it ("" if none)
  std::string ipv4;    // the IPv4 address when the GID is IPv4-mapped, else ""
};

struct PortInfo {
  uint32_t port = 1;
  std::string state;        // "ACTIVE", "DOWN", ...
  std::string link_layer;   // "InfiniBand", "Ethernet"
  uint32_t active_mtu = 0;  // bytes
  uint32_t max_mtu = 0;
  double speed_gbps = 0;  // per lane * width
  std::string width;      // "1x", "4x", ...
  uint16_t lid = 0;
  std::vector<GidEntry> gids;
};

// A device: its limits (base/device_caps.h), identity, NUMA node and ports.
struct DeviceInfo : DeviceCaps {
  std::string node_guid;
  std::string fw_ver;
  uint32_t vendor_id = 0;
  uint32_t vendor_part_id = 0;
  uint32_t hw_ver = 0;
  int numa_node = -1;  // from sysfs; -1 = unknown (no NUMA information)
  std::vector<PortInfo> ports;
};

void to_json(nlohmann::json& j, const GidEntry& g);
void to_json(nlohmann::json& j, const PortInfo& p);
void to_json(nlohmann::json& j, const DeviceInfo& d);

// Names of all RDMA devices on this host.
std::vector<std::string> list_device_names();
// Transport ("InfiniBand", "iWARP", ...) of device `name` ("" = the first), read from the device
// list without opening it; "" when there is no such device (opening it then reports the error).
std::string device_transport(const std::string& name);

// An open device with its attributes. Opened either by ibv_open_device (TCP exchange) or
// borrowed from librdmacm's list (rdma_cm: the cm_id's verbs context must be the same object).
class Device {
 public:
  // Opens `name`; "" picks the first device. Throws ConfigError listing the devices when
  // `name` does not exist.
  static Device open(const std::string& name);
  // Wraps a context owned by someone else (librdmacm); not closed by this object.
  static Device borrow(ibv_context* ctx);

  ibv_context* context() const noexcept { return ctx_; }
  const DeviceInfo& info() const noexcept { return info_; }
  const PortInfo& port(uint32_t port_num) const;  // throws ConfigError listing the ports

  bool is_iwarp() const noexcept;
  bool is_ethernet(uint32_t port_num) const;

 private:
  ContextPtr owned_;
  ibv_context* ctx_ = nullptr;
  DeviceInfo info_;
};

// The NUMA node of device `name` from sysfs: /sys/class/infiniband/DEV/device/numa_node, or for a
// software device (rxe, siw) the one of the netdev named in its `parent` file. -1 when unknown.
int device_numa_node(const std::string& name, const std::string& sysfs_root = "/sys");

// Query everything about one open context.
DeviceInfo query_device(ibv_context* ctx);

// Choose a GID index on a port: for RoCE the RoCE v2 GID of an IPv4 address (the one equal to
// `prefer_ipv4` when given); for IB index 0. Throws ConfigError listing the table when none fits.
uint32_t auto_gid_index(const PortInfo& port, const std::string& prefer_ipv4 = "",
                        const std::string& type = "RoCE v2");
// Validates an explicit index against the table; throws ConfigError listing the valid ones.
// What `auto_gid_index` (without a preferred address) picks on `port` and why, as `rdmabench
// devices` says it: {"index": N or -1 for none, "why": text, "warning": text or ""} (a port
// that is not ACTIVE, or no GID that fits).
nlohmann::json auto_gid_choice(const PortInfo& port);

const GidEntry& gid_entry(const PortInfo& port, uint32_t index);

// MTU enum <-> bytes.
uint32_t mtu_bytes(ibv_mtu mtu) noexcept;
ibv_mtu mtu_enum(uint32_t bytes);  // throws ConfigError for other values

}  // namespace rdmabench
