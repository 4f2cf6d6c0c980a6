#include "engine/memory_lock.h"

#include <sys/resource.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "base/error.h"
#include "engine/buffers.h"
#include "engine/work_requests.h"

namespace rdmabench {
namespace {

constexpr int kCapIpcLock = 14;  // linux/capability.h

uint64_t from_rlim(rlim_t v) noexcept { return v == RLIM_INFINITY ? UINT64_MAX : uint64_t(v); }

std::string bytes_text(uint64_t b) {
  if (b == UINT64_MAX) return "unlimited";
  std::string s = std::to_string(b) + " bytes";
  if (std::string f = format_size(b); f != std::to_string(b)) s += " (" + f + ")";
  return s;
}

}  // namespace

uint64_t region_bytes_for(const Workload& w) noexcept {
  return (std::max<uint64_t>(w.max_size(), 64) + kUdGrh + 63) / 64 * 64;
}

uint64_t registered_bytes(const Workload& w, uint64_t page_size) noexcept {
  // The layout of Buffers (buffer_layout): a mapping per QP of its two regions, each rounded up
  // to the alignment granule (--align), the first shifted by an --align below a page, rounded up
  // to whole pages (or to the alignment when it is larger than a page).
  const BufferLayout l = buffer_layout(w, page_size);
  const uint64_t per_qp = (l.lead + l.slab() + l.map_align - 1) / l.map_align * l.map_align;
  return per_qp * w.total_qps();
}

MemlockAction decide_memlock(uint64_t needed, uint64_t soft, uint64_t hard,
                             bool enforced) noexcept {
  if (!enforced || needed <= soft) return MemlockAction::kFits;
  if (needed <= hard) return MemlockAction::kRaiseSoft;
  return MemlockAction::kRefuse;
}

std::string memlock_refusal(uint64_t needed, uint64_t soft, uint64_t hard,
                            const std::string& device, const std::string& transport) {
  const uint64_t kib = (needed + 1023) / 1024;
  return "this run registers " + bytes_text(needed) + " of buffers on " + device +
         ", more than the locked-memory limit RLIMIT_MEMLOCK allows (soft " + bytes_text(soft) +
         ", hard " + bytes_text(hard) + ")" +
         (transport == "iWARP" ? "; iWARP (siw) counts registrations against it even for root"
                               : "") +
         ". Raise it before starting rdmabench on both hosts: 'ulimit -l unlimited' (or at least "
         "'ulimit -l " +
         std::to_string(kib) +
         "', in KiB; as a user, via limits.conf), or use "
         "smaller sizes or fewer QPs";
}

bool memlock_enforced(const std::string& transport) {
  if (transport == "iWARP") return true;
  std::ifstream f("/proc/self/status");
  std::string line;
  while (std::getline(f, line)) {
    if (line.rfind("CapEff:", 0) != 0) continue;
    uint64_t caps = 0;
    std::istringstream(line.substr(7)) >> std::hex >> caps;
    return (caps & (uint64_t{1} << kCapIpcLock)) == 0;
  }
  return true;  // unknown: assume the limit applies
}

void ensure_memlock(const Workload& w, const std::string& device, const std::string& transport) {
  rlimit rl{};
  if (getrlimit(RLIMIT_MEMLOCK, &rl) != 0) throw_sys("getrlimit", "RLIMIT_MEMLOCK");
  const uint64_t needed = registered_bytes(w);
  const uint64_t soft = from_rlim(rl.rlim_cur), hard = from_rlim(rl.rlim_max);
  switch (decide_memlock(needed, soft, hard, memlock_enforced(transport))) {
    case MemlockAction::kFits:
      return;
    case MemlockAction::kRaiseSoft:
      rl.rlim_cur = rl.rlim_max;
      if (setrlimit(RLIMIT_MEMLOCK, &rl) != 0)
        throw_sys("setrlimit", "RLIMIT_MEMLOCK (soft to hard)");
      return;
    case MemlockAction::kRefuse:
      throw ConfigError("memlock", std::to_string(soft == UINT64_MAX ? 0 : soft / 1024) + " KiB",
                        memlock_refusal(needed, soft, hard, device, transport));
  }
}

}  // namespace rdmabench
