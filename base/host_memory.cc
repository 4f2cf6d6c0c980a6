#include "base/host_memory.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "base/error.h"
#include "base/numa.h"

namespace rdmabench {

HugePageInfo huge_page_info(const std::string& meminfo_path) {
  HugePageInfo h;
  std::ifstream in(meminfo_path);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream ss(line);
    std::string key;
    uint64_t v = 0;
    if (!(ss >> key >> v)) continue;
    if (key == "Hugepagesize:")
      h.page_bytes = v * 1024;  // "kB"
    else if (key == "HugePages_Total:")
      h.total = v;
    else if (key == "HugePages_Free:")
      h.free = v;
  }
  return h;
}

std::string huge_pages_advice(uint64_t needed, const HugePageInfo& info) {
  if (info.page_bytes == 0) return "a kernel with huge pages (/proc/meminfo shows no Hugepagesize)";
  return std::to_string(needed) + " free huge pages of " + std::to_string(info.page_bytes / 1024) +
         " kB for the buffers (" + std::to_string(info.free) + " free of " +
         std::to_string(info.total) + " reserved); reserve them with: echo " +
         std::to_string(info.total - info.free + needed) + " > /proc/sys/vm/nr_hugepages";
}

size_t mapping_bytes(size_t bytes, size_t alignment, uint64_t huge_page_bytes) {
  const size_t page = huge_page_bytes > 0 ? huge_page_bytes : size_t(sysconf(_SC_PAGESIZE));
  size_t extra = alignment > page ? alignment : 0;
  size_t len = bytes + extra;
  return (len + page - 1) / page * page;
}

HostMemory HostMemory::map(size_t bytes, size_t alignment, uint64_t huge_page_bytes,
                           int numa_node) {
  if (bytes == 0) bytes = 1;
  if (alignment == 0 || (alignment & (alignment - 1)) != 0) alignment = 1;
  HostMemory m;
  m.map_len_ = mapping_bytes(bytes, alignment, huge_page_bytes);
  int flags = MAP_PRIVATE | MAP_ANONYMOUS;
  if (huge_page_bytes > 0) flags |= MAP_HUGETLB;
  void* p = ::mmap(nullptr, m.map_len_, PROT_READ | PROT_WRITE, flags, -1, 0);
  if (p == MAP_FAILED) {
    const int err = errno;
    m.map_len_ = 0;
    if (huge_page_bytes > 0)
      throw ConfigError(
          "hugepages", "true",
          huge_pages_advice(mapping_bytes(bytes, alignment, huge_page_bytes) / huge_page_bytes,
                            huge_page_info()) +
              " (mmap MAP_HUGETLB: " + std::strerror(err) + ")");
    throw_sys("mmap", std::to_string(m.map_len_) + " bytes of buffers", err);
  }
  m.map_ = p;
  if (numa_node >= 0) bind_memory_to_node(m.map_, m.map_len_, numa_node);
  const uintptr_t base = reinterpret_cast<uintptr_t>(p);
  const uintptr_t aligned = (base + alignment - 1) & ~(uintptr_t(alignment) - 1);
  m.data_ = reinterpret_cast<std::byte*>(aligned);
  m.size_ = bytes;
  std::memset(m.map_, 0, m.map_len_);  // first touch: after the NUMA binding
  return m;
}

HostMemory::HostMemory(HostMemory&& o) noexcept { *this = std::move(o); }

HostMemory& HostMemory::operator=(HostMemory&& o) noexcept {
  if (this != &o) {
    release();
    map_ = o.map_;
    map_len_ = o.map_len_;
    data_ = o.data_;
    size_ = o.size_;
    o.map_ = nullptr;
    o.map_len_ = 0;
    o.data_ = nullptr;
    o.size_ = 0;
  }
  return *this;
}

HostMemory::~HostMemory() { release(); }

void HostMemory::release() noexcept {
  if (map_ != nullptr) ::munmap(map_, map_len_);
  map_ = nullptr;
}

}  // namespace rdmabench
