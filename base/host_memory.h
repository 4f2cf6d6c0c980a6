#pragma once
// Registered-buffer memory: anonymous mappings, optionally from huge pages (MAP_HUGETLB) and
// bound to a NUMA node before the first touch, zeroed, aligned as asked. Setup path only.
#include <cstddef>
#include <cstdint>
#include <string>

namespace rdmabench {

struct HugePageInfo {
  uint64_t page_bytes = 0;  // Hugepagesize (0: the kernel has no huge pages)
  uint64_t total = 0;       // HugePages_Total
  uint64_t free = 0;        // HugePages_Free
};
HugePageInfo huge_page_info(const std::string& meminfo_path = "/proc/meminfo");

// The error for a run that needs `needed` huge pages when `info` is what the host has.
std::string huge_pages_advice(uint64_t needed, const HugePageInfo& info);

class HostMemory {
 public:
  HostMemory() = default;
  // `bytes` zeroed bytes starting at an address that is a multiple of `alignment` (a power of
  // two); `huge_page_bytes` > 0 maps huge pages of that size; `numa_node` >= 0 binds the pages
  // to that node. Throws ConfigError (huge pages missing) or SysError.
  static HostMemory map(size_t bytes, size_t alignment, uint64_t huge_page_bytes, int numa_node);
  HostMemory(HostMemory&& o) noexcept;
  HostMemory& operator=(HostMemory&& o) noexcept;
  HostMemory(const HostMemory&) = delete;
  HostMemory& operator=(const HostMemory&) = delete;
  ~HostMemory();

  std::byte* data() const noexcept { return data_; }
  size_t size() const noexcept { return size_; }
  size_t mapped_bytes() const noexcept { return map_len_; }

 private:
  void release() noexcept;
  void* map_ = nullptr;
  size_t map_len_ = 0;
  std::byte* data_ = nullptr;
  size_t size_ = 0;
};

// Bytes a mapping of `bytes` with `alignment` takes (what HostMemory::map will ask for).
size_t mapping_bytes(size_t bytes, size_t alignment, uint64_t huge_page_bytes);

}  // namespace rdmabench
