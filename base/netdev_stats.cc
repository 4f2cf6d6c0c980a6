#include "base/netdev_stats.h"

#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <vector>

namespace rdmabench {
namespace {

// A datagram socket for the ioctl, closed on scope exit.
class IoctlSocket {
 public:
  IoctlSocket() : fd_(::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0)) {}
  ~IoctlSocket() {
    if (fd_ >= 0) ::close(fd_);
  }
  IoctlSocket(const IoctlSocket&) = delete;
  IoctlSocket& operator=(const IoctlSocket&) = delete;
  // SIOCETHTOOL on `ifname` with `data` (an ethtool command structure); false on failure.
  bool ethtool(const std::string& ifname, void* data) const {
    if (fd_ < 0 || ifname.empty() || ifname.size() >= IFNAMSIZ) return false;
    ifreq ifr{};
    std::memcpy(ifr.ifr_name, ifname.c_str(), ifname.size());
    ifr.ifr_data = static_cast<char*>(data);
    return ::ioctl(fd_, SIOCETHTOOL, &ifr) == 0;
  }

 private:
  int fd_;
};

std::string first_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  while (!line.empty() && (line.back() == '\n' || line.back() == ' ')) line.pop_back();
  return line;
}

}  // namespace

std::map<std::string, uint64_t> read_netdev_stats(const std::string& ifname) {
  std::map<std::string, uint64_t> stats;
  const IoctlSocket sock;
  // How many statistics (ETH_SS_STATS): the header, then one count per set asked for.
  std::vector<uint64_t> info_buf((sizeof(ethtool_sset_info) + sizeof(uint32_t) + 7) / 8, 0);
  auto* info = reinterpret_cast<ethtool_sset_info*>(info_buf.data());
  info->cmd = ETHTOOL_GSSET_INFO;
  info->sset_mask = 1ULL << ETH_SS_STATS;
  if (!sock.ethtool(ifname, info) || info->sset_mask == 0) return stats;
  const uint32_t n = info->data[0];
  if (n == 0 || n > 100000) return stats;
  std::vector<uint64_t> names_buf((sizeof(ethtool_gstrings) + size_t{n} * ETH_GSTRING_LEN + 7) / 8,
                                  0);
  auto* names = reinterpret_cast<ethtool_gstrings*>(names_buf.data());
  names->cmd = ETHTOOL_GSTRINGS;
  names->string_set = ETH_SS_STATS;
  names->len = n;
  std::vector<uint64_t> values_buf((sizeof(ethtool_stats) + size_t{n} * sizeof(uint64_t) + 7) / 8,
                                   0);
  auto* values = reinterpret_cast<ethtool_stats*>(values_buf.data());
  values->cmd = ETHTOOL_GSTATS;
  values->n_stats = n;
  if (!sock.ethtool(ifname, names) || !sock.ethtool(ifname, values)) return stats;
  const uint32_t count = std::min(names->len, values->n_stats);
  for (uint32_t i = 0; i < count; ++i) {
    const char* name = reinterpret_cast<const char*>(names->data) + size_t{i} * ETH_GSTRING_LEN;
    stats[std::string(name, strnlen(name, ETH_GSTRING_LEN))] = values->data[i];
  }
  return stats;
}

std::string port_netdev(const std::string& device, uint32_t port, const std::string& sysfs_root) {
  const std::string base = sysfs_root + "/" + device;
  std::string name = first_line(base + "/ports/" + std::to_string(port) + "/gid_attrs/ndevs/0");
  if (name.empty()) name = first_line(base + "/parent");
  return name;
}

}  // namespace rdmabench
