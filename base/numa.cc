#include "base/numa.h"

#include <linux/mempolicy.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "base/cpu_list.h"
#include "base/error.h"

namespace rdmabench {

std::vector<int> numa_nodes(const std::string& sysfs_root) {
  namespace fs = std::filesystem;
  std::vector<int> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(fs::path(sysfs_root) / "devices/system/node", ec)) {
    const std::string name = e.path().filename().string();
    if (name.rfind("node", 0) != 0 || name.size() == 4) continue;
    if (name.find_first_not_of("0123456789", 4) != std::string::npos) continue;
    out.push_back(std::stoi(name.substr(4)));
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<int> numa_node_cpus(int node, const std::string& sysfs_root) {
  const std::vector<int> nodes = numa_nodes(sysfs_root);
  if (std::find(nodes.begin(), nodes.end(), node) == nodes.end()) {
    std::string list;
    for (int n : nodes) list += (list.empty() ? "" : ", ") + std::to_string(n);
    throw ConfigError("numa", std::to_string(node),
                      "none, auto or a NUMA node of this host (" +
                          (list.empty() ? std::string("it reports none") : list) + ")");
  }
  std::ifstream in(sysfs_root + "/devices/system/node/node" + std::to_string(node) + "/cpulist");
  std::string text;
  std::getline(in, text);
  try {
    return parse_cpu_list(text);
  } catch (const std::exception&) {
    return {};
  }
}

void bind_memory_to_node(void* addr, size_t len, int node) {
  constexpr size_t kBits = 8 * sizeof(unsigned long);
  unsigned long mask[1024 / kBits] = {};
  if (node < 0 || node >= 1024)
    throw ConfigError("numa", std::to_string(node), "a node from 0 to 1023");
  mask[size_t(node) / kBits] |= 1UL << (size_t(node) % kBits);
  if (syscall(SYS_mbind, addr, len, MPOL_BIND, mask, 1024UL, MPOL_MF_MOVE | MPOL_MF_STRICT) != 0)
    throw_sys("mbind",
              std::to_string(len) + " bytes of buffers to NUMA node " + std::to_string(node));
}

int node_of_address(const void* addr) {
  int node = -1;
  if (syscall(SYS_get_mempolicy, &node, nullptr, 0UL, addr, MPOL_F_NODE | MPOL_F_ADDR) != 0)
    return -1;
  return node;
}

cpu_set_t cpu_set_of(const std::vector<int>& cpus) {
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int c : cpus)
    if (c >= 0 && c < CPU_SETSIZE) CPU_SET(c, &set);
  return set;
}

}  // namespace rdmabench
