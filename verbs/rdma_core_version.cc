#include "verbs/rdma_core_version.h"

#include <dlfcn.h>
#include <infiniband/verbs.h>

#include <climits>
#include <cstdlib>

namespace rdmabench {

std::string rdma_core_version() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&ibv_get_device_list), &info) == 0 ||
      info.dli_fname == nullptr)
    return "unknown";
  char resolved[PATH_MAX];
  if (realpath(info.dli_fname, resolved) == nullptr) return "unknown";
  std::string name = resolved;
  name = name.substr(name.rfind('/') + 1);  // libibverbs.so.1.14.44.0
  const std::string prefix = "libibverbs.so.";
  if (name.rfind(prefix, 0) != 0) return "unknown";
  std::string ver = name.substr(prefix.size());  // 1.14.44.0
  size_t first = ver.find('.');
  size_t second = first == std::string::npos ? first : ver.find('.', first + 1);
  if (second == std::string::npos) return "unknown";
  return ver.substr(second + 1);
}

}  // namespace rdmabench
