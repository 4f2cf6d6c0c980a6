#pragma once
// Locked memory (RLIMIT_MEMLOCK) a run needs: every QP's registered buffer is pinned, and the
// kernel counts pinned pages against the soft limit. Most drivers skip the check for a process
// with CAP_IPC_LOCK (root), but Soft-iWARP enforces it even for root (8 MiB by default), so a
// large run would fail in ibv_reg_mr with a bare ENOMEM. Checked up front instead: the soft limit
// is raised to the hard limit when that is enough, otherwise the run is refused with the numbers
// and the fix.
#include <cstdint>
#include <string>

#include "model/workload.h"

namespace rdmabench {

// Bytes of one QP's buffer region (rx or tx): the largest message (at least 64 B) plus room for
// a UD GRH, rounded up to 64 bytes. Each QP registers [rx | tx], two regions.
uint64_t region_bytes_for(const Workload& w) noexcept;

// Bytes one side pins for a workload: per QP its two regions, rounded up to whole pages (the
// buffers are page-aligned), times threads x QPs per thread.
uint64_t registered_bytes(const Workload& w, uint64_t page_size = 4096) noexcept;

// What to do about RLIMIT_MEMLOCK (`soft`, `hard` in bytes; UINT64_MAX = unlimited) when a run
// pins `needed` bytes and `enforced` says whether the kernel checks the limit for this process
// and device.
enum class MemlockAction : uint8_t { kFits, kRaiseSoft, kRefuse };
MemlockAction decide_memlock(uint64_t needed, uint64_t soft, uint64_t hard, bool enforced) noexcept;

// The refusal: names the bytes needed, the limits, why it applies and the fix (ulimit -l).
std::string memlock_refusal(uint64_t needed, uint64_t soft, uint64_t hard,
                            const std::string& device, const std::string& transport);

// Whether the limit applies: the device is iWARP (siw checks it even with CAP_IPC_LOCK) or the
// process lacks CAP_IPC_LOCK (read from /proc/self/status).
bool memlock_enforced(const std::string& transport);

// Applies the decision to this process: raises the soft limit, or throws ConfigError (field
// "memlock") with memlock_refusal's text.
void ensure_memlock(const Workload& w, const std::string& device, const std::string& transport);

}  // namespace rdmabench
