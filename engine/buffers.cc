#include "engine/buffers.h"

#include <unistd.h>

#include <algorithm>
#include <cstring>

#include "base/error.h"
#include "engine/memory_lock.h"

namespace rdmabench {
namespace {

uint8_t pattern_byte(uint64_t j, uint64_t size) noexcept {
  return static_cast<uint8_t>((j * 131 + size * 7 + 1) & 0xff);
}

void fill_pattern(std::byte* p, uint64_t size) noexcept {
  for (uint64_t j = 0; j < size; ++j) p[j] = std::byte{pattern_byte(j, size)};
}

}  // namespace

BufferLayout buffer_layout(const Workload& w, uint64_t page_size) noexcept {
  const uint64_t a = w.align;  // 0 = page-aligned
  const uint64_t gran = a == 0 ? 64 : std::max<uint64_t>(64, a < page_size ? 2 * a : a);
  BufferLayout l;
  l.region_bytes = region_bytes_for(w);
  l.stride = (l.region_bytes + gran - 1) / gran * gran;
  l.lead = a != 0 && a < page_size ? a : 0;
  l.map_align = std::max<uint64_t>(a, page_size);
  return l;
}

Buffers::Buffers(const Workload& w, ibv_pd* pd, int access, int numa_node)
    : layout_(buffer_layout(w, static_cast<uint64_t>(sysconf(_SC_PAGESIZE)))),
      mr_mode_(w.mr),
      hugepages_(w.hugepages),
      align_(w.align) {
  const uint64_t slab = layout_.slab();
  const uint64_t nqp = w.total_qps();
  if (w.hugepages) {
    const HugePageInfo hp = huge_page_info();
    huge_page_bytes_ = hp.page_bytes;
    uint64_t needed = 0;
    if (hp.page_bytes > 0)
      needed = w.mr == MrMode::kShared
                   ? mapping_bytes(layout_.lead + nqp * slab, layout_.map_align, hp.page_bytes) /
                         hp.page_bytes
                   : nqp * (mapping_bytes(layout_.lead + slab, layout_.map_align, hp.page_bytes) /
                            hp.page_bytes);
    if (hp.page_bytes == 0 || needed > hp.free)
      throw ConfigError("hugepages", "true", huge_pages_advice(needed, hp));
  }
  qps_.resize(nqp);
  if (w.mr == MrMode::kShared) {
    const uint64_t bytes = nqp * slab;
    shared_mem_ =
        HostMemory::map(layout_.lead + bytes, layout_.map_align, huge_page_bytes_, numa_node);
    mapped_bytes_ = shared_mem_.mapped_bytes();
    std::byte* base = shared_mem_.data() + layout_.lead;
    shared_mr_ = reg_mr(pd, base, bytes, access);
    for (uint64_t i = 0; i < nqp; ++i) {
      qps_[i].buf = base + i * slab;
      qps_[i].mr = shared_mr_.get();
    }
    return;
  }
  for (QpBuffer& q : qps_) {
    q.mem = HostMemory::map(layout_.lead + slab, layout_.map_align, huge_page_bytes_, numa_node);
    mapped_bytes_ += q.mem.mapped_bytes();
    q.buf = q.mem.data() + layout_.lead;
    q.mr_owned = reg_mr(pd, q.buf, slab, access);
    q.mr = q.mr_owned.get();
  }
}

void Buffers::fill(uint64_t size, bool rx_pattern) {
  for (size_t i = 0; i < qps_.size(); ++i) {
    std::memset(rx(i), 0, layout_.region_bytes);
    fill_pattern(tx(i), size);
    if (rx_pattern) fill_pattern(rx(i), size);
  }
}

std::string Buffers::verify_rx(uint64_t size, uint64_t offset, bool skip_last,
                               uint32_t qps_per_worker) const {
  const uint64_t n = skip_last && size > 0 ? size - 1 : size;
  for (size_t i = 0; i < qps_.size(); ++i) {
    const std::byte* p = rx(i) + offset;
    for (uint64_t j = 0; j < n; ++j)
      if (p[j] != std::byte{pattern_byte(j, size)})
        return "byte " + std::to_string(j) + " of the " + std::to_string(size) +
               "-byte message on worker " + std::to_string(i / qps_per_worker) + " QP " +
               std::to_string(i % qps_per_worker) + " is " +
               std::to_string(static_cast<unsigned>(p[j])) + ", expected " +
               std::to_string(pattern_byte(j, size));
  }
  return "";
}

std::vector<uint64_t> Buffers::rx_words() const {
  std::vector<uint64_t> out;
  out.reserve(qps_.size());
  for (const QpBuffer& q : qps_) {
    uint64_t v = 0;
    std::memcpy(&v, q.buf, 8);
    out.push_back(v);
  }
  return out;
}

void Buffers::set_rx_words(uint64_t v) {
  for (QpBuffer& q : qps_) std::memcpy(q.buf, &v, 8);
}

nlohmann::json Buffers::describe() const {
  uint64_t addr_align = 0;
  if (!qps_.empty()) {
    const uint64_t v = reinterpret_cast<uint64_t>(qps_[0].buf);
    addr_align = std::min<uint64_t>(v & (~v + 1), 1ULL << 30);
  }
  return {{"mr", to_string(mr_mode_)},
          {"hugepages", hugepages_},
          {"huge_page_bytes", huge_page_bytes_},
          {"align", align_},
          {"buffer_address_alignment", addr_align},
          {"region_stride", layout_.stride},
          {"mapped_bytes", mapped_bytes_}};
}

}  // namespace rdmabench
