#pragma once
// The version of rdma-core this process runs with (recorded in every result's host info).
#include <string>

namespace rdmabench {

// Read off the file name of the libibverbs we are linked with: rdma-core N.M installs
// libibverbs.so.1.<abi>.N.M (cheap, unlike asking the package manager). "unknown" when the
// name does not tell.
std::string rdma_core_version();

}  // namespace rdmabench
