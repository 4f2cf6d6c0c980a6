#include "engine/local_host.h"

#include <sys/utsname.h>
#include <unistd.h>

#include "verbs/rdma_core_version.h"

namespace rdmabench {

HostInfo local_host_info() {
  HostInfo h;
  char name[256] = {};
  gethostname(name, sizeof name - 1);
  h.hostname = name;
  utsname u{};
  if (uname(&u) == 0) h.kernel = std::string(u.sysname) + " " + u.release + " " + u.machine;
  h.rdma_core = rdma_core_version();
  return h;
}

}  // namespace rdmabench
