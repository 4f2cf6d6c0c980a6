#pragma once
// The HostInfo of the machine this process runs on (hostname, kernel, rdma-core version), as the
// client and the server record it in the result.
#include "model/result.h"

namespace rdmabench {

HostInfo local_host_info();

}  // namespace rdmabench
