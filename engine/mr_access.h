#pragma once
// The remote access a side's memory regions are registered with: only what the op needs, and only
// on a side the peer targets (no remote write for send tests, no remote read for write tests).
#include "model/workload.h"

namespace rdmabench {

// IBV_ACCESS_REMOTE_* flags for one side of workload `w` (local write is always added by the
// caller). `iwarp`: the device's transport is iWARP, where an RDMA read's sink needs remote write.
int mr_remote_access(const Workload& w, bool is_client, bool iwarp) noexcept;

}  // namespace rdmabench
