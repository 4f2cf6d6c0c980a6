#pragma once
// The statistics a network device's driver gives `ethtool -S` (the SIOCETHTOOL ioctl:
// ETHTOOL_GSSET_INFO, ETHTOOL_GSTRINGS and ETHTOOL_GSTATS, read directly: Debian packages no
// library for it, only the ethtool program), and the network device under an RDMA port (RoCE
// and iWARP devices have one; InfiniBand ports do not). Written by hand over the kernel's UAPI
// (linux/ethtool.h); read at a measurement's edges, never in the datapath.
#include <cstdint>
#include <map>
#include <string>

namespace rdmabench {

// Every statistic of `ifname` by its driver's name ("rx_pause_ctrl_phy", "rx_queue_0_drops");
// empty when there is no such device, it has no statistics or the ioctl is refused.
std::map<std::string, uint64_t> read_netdev_stats(const std::string& ifname);

// The network device of an RDMA port: its first GID's (ports/P/gid_attrs/ndevs/0), else the
// device's parent (rxe, siw: DEV/parent); "" for none (InfiniBand).
std::string port_netdev(const std::string& device, uint32_t port,
                        const std::string& sysfs_root = "/sys/class/infiniband");

}  // namespace rdmabench
