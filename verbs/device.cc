#include "verbs/device.h"

#include <arpa/inet.h>
#include <net/if.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>

#include "base/error.h"

namespace rdmabench {
namespace {

std::string port_state_str(ibv_port_state s) {
  switch (s) {
    case IBV_PORT_NOP:
      return "NOP";
    case IBV_PORT_DOWN:
      return "DOWN";
    case IBV_PORT_INIT:
      return "INIT";
    case IBV_PORT_ARMED:
      return "ARMED";
    case IBV_PORT_ACTIVE:
      return "ACTIVE";
    case IBV_PORT_ACTIVE_DEFER:
      return "ACTIVE_DEFER";
  }
  return "UNKNOWN";
}

double lane_speed_gbps(uint8_t code) {
  switch (code) {
    case 1:
      return 2.5;
    case 2:
      return 5.0;
    case 4:
      return 10.0;
    case 8:
      return 10.3125;
    case 16:
      return 14.0625;
    case 32:
      return 25.78125;
    case 64:
      return 50.0;
    case 128:
      return 100.0;
    default:
      return 0.0;
  }
}

int width_lanes(uint8_t code) {
  switch (code) {
    case 1:
      return 1;
    case 2:
      return 4;
    case 4:
      return 8;
    case 8:
      return 12;
    case 16:
      return 2;
    default:
      return 0;
  }
}

std::string gid_type_str(uint32_t t) {
  switch (t) {
    case IBV_GID_TYPE_IB:
      return "IB";
    case IBV_GID_TYPE_ROCE_V1:
      return "RoCE v1";
    case IBV_GID_TYPE_ROCE_V2:
      return "RoCE v2";
    default:
      return "unknown";
  }
}

std::string transport_str(ibv_transport_type t) {
  switch (t) {
    case IBV_TRANSPORT_IB:
      return "InfiniBand";
    case IBV_TRANSPORT_IWARP:
      return "iWARP";
    case IBV_TRANSPORT_USNIC:
      return "usNIC";
    case IBV_TRANSPORT_USNIC_UDP:
      return "usNIC UDP";
    default:
      return "unknown";
  }
}

std::string hex64(uint64_t be) {
  char buf[32];
  uint64_t v = be64toh(be);
  std::snprintf(buf, sizeof buf, "%04x:%04x:%04x:%04x", unsigned(v >> 48) & 0xffff,
                unsigned(v >> 32) & 0xffff, unsigned(v >> 16) & 0xffff, unsigned(v) & 0xffff);
  return buf;
}

// The largest max_inline_data an RC QP can be created with (verbs has no attribute for it).
uint32_t probe_max_inline(ibv_context* ctx) {
  ibv_pd* pd = ibv_alloc_pd(ctx);
  if (pd == nullptr) return 0;
  ibv_cq* cq = ibv_create_cq(ctx, 1, nullptr, nullptr, 0);
  uint32_t best = 0;
  if (cq != nullptr) {
    uint32_t lo = 0;
    uint32_t hi = 16384;
    while (lo < hi) {
      uint32_t mid = (lo + hi + 1) / 2;
      ibv_qp_init_attr a{};
      a.send_cq = cq;
      a.recv_cq = cq;
      a.qp_type = IBV_QPT_RC;
      a.cap.max_send_wr = 1;
      a.cap.max_recv_wr = 1;
      a.cap.max_send_sge = 1;
      a.cap.max_recv_sge = 1;
      a.cap.max_inline_data = mid;
      ibv_qp* qp = ibv_create_qp(pd, &a);
      if (qp != nullptr) {
        lo = std::max(mid, a.cap.max_inline_data);
        ibv_destroy_qp(qp);
      } else {
        hi = mid - 1;
      }
    }
    best = lo;
    ibv_destroy_cq(cq);
  }
  ibv_dealloc_pd(pd);
  return best;
}

// `total_len` is the sum of all ports' gid_tbl_len (the call refuses a larger buffer).
std::vector<GidEntry> query_gids(ibv_context* ctx, uint32_t port_num, size_t total_len) {
  std::vector<GidEntry> out;
  std::vector<ibv_gid_entry> entries(std::max<size_t>(total_len, 1));
  ssize_t n = ibv_query_gid_table(ctx, entries.data(), entries.size(), 0);
  if (n < 0) return out;  // e.g. provider without the table query: leave empty
  for (ssize_t i = 0; i < n; ++i) {
    const ibv_gid_entry& e = entries[static_cast<size_t>(i)];
    if (e.port_num != port_num) continue;
    GidEntry g;
    g.index = e.gid_index;
    g.type = gid_type_str(e.gid_type);
    char text[INET6_ADDRSTRLEN] = {};
    inet_ntop(AF_INET6, e.gid.raw, text, sizeof text);
    g.gid = text;
    char ifname[IF_NAMESIZE] = {};
    if (e.ndev_ifindex != 0 && if_indextoname(e.ndev_ifindex, ifname) != nullptr) g.netdev = ifname;
    static const uint8_t kMapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
    if (std::memcmp(e.gid.raw, kMapped, 12) == 0) {
      char v4[INET_ADDRSTRLEN] = {};
      inet_ntop(AF_INET, e.gid.raw + 12, v4, sizeof v4);
      g.ipv4 = v4;
    }
    out.push_back(std::move(g));
  }
  std::sort(out.begin(), out.end(), [](auto& a, auto& b) { return a.index < b.index; });
  return out;
}

}  // namespace

uint32_t mtu_bytes(ibv_mtu mtu) noexcept { return 128U << static_cast<int>(mtu); }

ibv_mtu mtu_enum(uint32_t bytes) {
  switch (bytes) {
    case 256:
      return IBV_MTU_256;
    case 512:
      return IBV_MTU_512;
    case 1024:
      return IBV_MTU_1024;
    case 2048:
      return IBV_MTU_2048;
    case 4096:
      return IBV_MTU_4096;
    default:
      throw ConfigError("mtu", std::to_string(bytes), "one of 256, 512, 1024, 2048, 4096");
  }
}

std::vector<std::string> list_device_names() {
  int n = 0;
  ibv_device** list = ibv_get_device_list(&n);
  std::vector<std::string> names;
  if (list == nullptr) return names;
  for (int i = 0; i < n; ++i) names.emplace_back(ibv_get_device_name(list[i]));
  ibv_free_device_list(list);
  return names;
}

namespace {

// The first integer in a file, or `fallback`.
int read_int_file(const std::string& path, int fallback) {
  std::ifstream in(path);
  int v = 0;
  return in >> v ? v : fallback;
}

}  // namespace

int device_numa_node(const std::string& name, const std::string& sysfs_root) {
  const std::string dev = sysfs_root + "/class/infiniband/" + name;
  int node = read_int_file(dev + "/device/numa_node", -2);
  if (node != -2) return node < 0 ? -1 : node;
  std::ifstream parent_file(dev + "/parent");
  std::string parent;
  if (!(parent_file >> parent) || parent.find('/') != std::string::npos) return -1;
  node = read_int_file(sysfs_root + "/class/net/" + parent + "/device/numa_node", -1);
  return node < 0 ? -1 : node;
}

std::string device_transport(const std::string& name) {
  int n = 0;
  ibv_device** list = ibv_get_device_list(&n);
  if (list == nullptr) return "";
  std::string out;
  for (int i = 0; i < n; ++i)
    if (name.empty() || name == ibv_get_device_name(list[i])) {
      out = transport_str(list[i]->transport_type);
      break;
    }
  ibv_free_device_list(list);
  return out;
}

DeviceInfo query_device(ibv_context* ctx) {
  DeviceInfo d;
  d.name = ibv_get_device_name(ctx->device);
  d.transport = transport_str(ctx->device->transport_type);
  ibv_device_attr a{};
  if (int rc = ibv_query_device(ctx, &a); rc != 0) throw_sys("ibv_query_device", d.name, rc);
  d.node_guid = hex64(a.node_guid);
  d.fw_ver = a.fw_ver;
  d.vendor_id = a.vendor_id;
  d.vendor_part_id = a.vendor_part_id;
  d.hw_ver = a.hw_ver;
  d.max_qp = a.max_qp;
  d.max_qp_wr = a.max_qp_wr;
  d.max_sge = a.max_sge;
  d.max_cqe = a.max_cqe;
  d.max_srq_wr = a.max_srq_wr;
  d.max_qp_rd_atom = a.max_qp_rd_atom;
  d.max_qp_init_rd_atom = a.max_qp_init_rd_atom;
  d.max_sge_rd = a.max_sge_rd;
  d.max_srq_sge = a.max_srq_sge;
  d.max_cq = a.max_cq;
  d.numa_node = device_numa_node(d.name);
  d.max_mr_size = a.max_mr_size;
  d.atomic_cap = a.atomic_cap == IBV_ATOMIC_NONE  ? "none"
                 : a.atomic_cap == IBV_ATOMIC_HCA ? "hca"
                                                  : "global";
  d.max_inline_data = probe_max_inline(ctx);
  size_t total_gids = 0;
  for (uint32_t p = 1; p <= a.phys_port_cnt; ++p) {
    ibv_port_attr pa{};
    if (ibv_query_port(ctx, static_cast<uint8_t>(p), &pa) == 0)
      total_gids += static_cast<size_t>(pa.gid_tbl_len);
  }
  for (uint32_t p = 1; p <= a.phys_port_cnt; ++p) {
    ibv_port_attr pa{};
    if (int rc = ibv_query_port(ctx, static_cast<uint8_t>(p), &pa); rc != 0)
      throw_sys("ibv_query_port", d.name + " port " + std::to_string(p), rc);
    PortInfo port;
    port.port = p;
    port.state = port_state_str(pa.state);
    port.link_layer = pa.link_layer == IBV_LINK_LAYER_ETHERNET ? "Ethernet" : "InfiniBand";
    port.active_mtu = mtu_bytes(pa.active_mtu);
    port.max_mtu = mtu_bytes(pa.max_mtu);
    int lanes = width_lanes(pa.active_width);
    port.width = lanes > 0 ? std::to_string(lanes) + "x" : "unknown";
    port.speed_gbps = lane_speed_gbps(pa.active_speed) * lanes;
    port.lid = pa.lid;
    port.gids = query_gids(ctx, p, total_gids);
    d.ports.push_back(std::move(port));
  }
  return d;
}

Device Device::open(const std::string& name) {
  int n = 0;
  ibv_device** list = ibv_get_device_list(&n);
  if (list == nullptr) throw_sys("ibv_get_device_list", "this host");
  std::unique_ptr<ibv_device*, decltype(&ibv_free_device_list)> guard(list, ibv_free_device_list);
  ibv_device* found = nullptr;
  std::string names;
  for (int i = 0; i < n; ++i) {
    std::string dn = ibv_get_device_name(list[i]);
    names += (names.empty() ? "" : ", ") + dn;
    if (found == nullptr && (name.empty() || dn == name)) found = list[i];
  }
  if (found == nullptr) {
    if (n == 0)
      throw ConfigError("device", name.empty() ? "(auto)" : name,
                        "no RDMA device on this host (is the driver loaded? see 'rdma link')");
    throw ConfigError("device", name, "one of: " + names);
  }
  Device d;
  d.owned_.reset(ibv_open_device(found));
  if (!d.owned_) throw_sys("ibv_open_device", ibv_get_device_name(found));
  d.ctx_ = d.owned_.get();
  d.info_ = query_device(d.ctx_);
  return d;
}

Device Device::borrow(ibv_context* ctx) {
  Device d;
  d.ctx_ = ctx;
  d.info_ = query_device(ctx);
  return d;
}

const PortInfo& Device::port(uint32_t port_num) const {
  for (const auto& p : info_.ports)
    if (p.port == port_num) return p;
  throw ConfigError("port", std::to_string(port_num),
                    "device " + info_.name + " has ports 1.." + std::to_string(info_.ports.size()));
}

bool Device::is_iwarp() const noexcept { return info_.transport == "iWARP"; }

bool Device::is_ethernet(uint32_t port_num) const {
  return port(port_num).link_layer == "Ethernet";
}

uint32_t auto_gid_index(const PortInfo& port, const std::string& prefer_ipv4,
                        const std::string& type) {
  if (port.link_layer == "InfiniBand") return 0;
  const GidEntry* first = nullptr;
  for (const auto& g : port.gids) {
    if (g.type != type || g.ipv4.empty()) continue;
    if (!prefer_ipv4.empty() && g.ipv4 == prefer_ipv4) return g.index;
    if (first == nullptr) first = &g;
  }
  if (first != nullptr) return first->index;
  // iWARP and others without typed GIDs: index 0 is the only meaningful one.
  if (!port.gids.empty() && port.gids.front().type != "RoCE v1" &&
      port.gids.front().type != "RoCE v2")
    return port.gids.front().index;
  std::string table;
  for (const auto& g : port.gids)
    table += "\n  " + std::to_string(g.index) + ": " + g.gid + " " + g.type +
             (g.netdev.empty() ? "" : " " + g.netdev);
  throw ConfigError("gid-index", "auto",
                    "no " + type + " GID with an IPv4 address on port " +
                        std::to_string(port.port) +
                        " (give -x/--gid-index explicitly, or add an IPv4 address to the netdev); "
                        "GID table:" +
                        (table.empty() ? std::string(" empty") : table));
}

nlohmann::json auto_gid_choice(const PortInfo& port) {
  nlohmann::json j = {{"index", -1}, {"why", ""}, {"warning", ""}};
  if (port.state != "ACTIVE")
    j["warning"] = "port " + std::to_string(port.port) + " is " + port.state;
  try {
    const uint32_t i = auto_gid_index(port);
    j["index"] = i;
    const GidEntry* g = nullptr;
    for (const auto& e : port.gids)
      if (e.index == i) g = &e;
    if (port.link_layer == "InfiniBand")
      j["why"] = "InfiniBand: GID 0, the port GID (routed by LID within the subnet)";
    else if (g != nullptr && g->type == "RoCE v2")
      j["why"] = "the first RoCE v2 GID with an IPv4 address (" + g->ipv4 +
                 (g->netdev.empty() ? "" : " on " + g->netdev) + ")";
    else
      j["why"] = "the port's only kind of GID (no RoCE types: iWARP or similar)";
  } catch (const ConfigError& e) {
    j["why"] = "none fits";
    const std::string w =
        "no RoCE v2 GID with an IPv4 address: give -x, or add an IPv4 address "
        "to the netdev";
    j["warning"] =
        j["warning"].get<std::string>().empty() ? w : j["warning"].get<std::string>() + "; " + w;
  }
  return j;
}

const GidEntry& gid_entry(const PortInfo& port, uint32_t index) {
  std::string valid;
  for (const auto& g : port.gids) {
    if (g.index == index) return g;
    valid +=
        (valid.empty() ? "" : ", ") + std::to_string(g.index) + " (" + g.gid + " " + g.type + ")";
  }
  throw ConfigError("gid-index", std::to_string(index),
                    "valid GID indexes on port " + std::to_string(port.port) + ": " +
                        (valid.empty() ? std::string("none") : valid));
}

void to_json(nlohmann::json& j, const GidEntry& g) {
  j = {
      {"index", g.index}, {"gid", g.gid}, {"type", g.type}, {"netdev", g.netdev}, {"ipv4", g.ipv4}};
}

void to_json(nlohmann::json& j, const PortInfo& p) {
  j = {{"port", p.port},
       {"state", p.state},
       {"link_layer", p.link_layer},
       {"active_mtu", p.active_mtu},
       {"max_mtu", p.max_mtu},
       {"speed_gbps", p.speed_gbps},
       {"width", p.width},
       {"lid", p.lid},
       {"gids", p.gids},
       {"auto_gid", auto_gid_choice(p)}};
}

void to_json(nlohmann::json& j, const DeviceInfo& d) {
  to_json(j, static_cast<const DeviceCaps&>(d));
  j["node_guid"] = d.node_guid;
  j["fw_ver"] = d.fw_ver;
  j["vendor_id"] = d.vendor_id;
  j["vendor_part_id"] = d.vendor_part_id;
  j["hw_ver"] = d.hw_ver;
  j["numa_node"] = d.numa_node;
  j["ports"] = d.ports;
}

}  // namespace rdmabench
