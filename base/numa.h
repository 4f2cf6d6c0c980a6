#pragma once
// NUMA placement from sysfs and the kernel's memory-policy calls (mbind, get_mempolicy, made
// with syscall(2): the few calls needed do not justify a libnuma dependency). Setup path only.
#include <sched.h>

#include <cstddef>
#include <string>
#include <vector>

namespace rdmabench {

// Online NUMA nodes (/sys/devices/system/node/nodeN); empty when the kernel reports none.
std::vector<int> numa_nodes(const std::string& sysfs_root = "/sys");
// CPUs of `node` (its cpulist). Throws ConfigError naming the field "numa" when there is no such
// node.
std::vector<int> numa_node_cpus(int node, const std::string& sysfs_root = "/sys");

// Binds [addr, addr+len) to `node` (MPOL_BIND, moving pages already there). Throws SysError.
void bind_memory_to_node(void* addr, size_t len, int node);
// The node the page at `addr` is on (it must have been touched); -1 when the kernel cannot tell.
int node_of_address(const void* addr);

cpu_set_t cpu_set_of(const std::vector<int>& cpus);

}  // namespace rdmabench
