#pragma once
// Every QP's registered buffer, and the message patterns in it. Setup path only.
//
// Layout per QP: [rx region | tx region], each `region_bytes` long, `stride` apart. Remote
// operations target the peer's rx region; sends come from tx; reads and atomic results land in
// rx. Buffers are one mapping and MR per QP, or one shared by all QPs (--mr shared), from huge
// pages on request, bound to a NUMA node on request, each region starting at the requested
// alignment (--align: for A below the page size, exactly A past an aligned boundary).
#include <infiniband/verbs.h>

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "base/host_memory.h"
#include "model/workload.h"
#include "verbs/verbs.h"

namespace rdmabench {

struct BufferLayout {
  uint64_t region_bytes = 0;  // region_bytes_for(w)
  uint64_t stride = 0;        // rx -> tx distance: region_bytes rounded up to the align granule
  uint64_t lead = 0;          // offset of the first region in its mapping (--align < page)
  uint64_t map_align = 0;     // alignment of each mapping (the page, or --align if larger)
  uint64_t slab() const noexcept { return 2 * stride; }  // one QP's [rx | tx]
};
BufferLayout buffer_layout(const Workload& w, uint64_t page_size) noexcept;

class Buffers {
 public:
  Buffers() = default;
  // Maps, zeroes and registers (with `access`) the buffers of w.total_qps() QPs on `pd`, bound to
  // `numa_node` when >= 0. Throws ConfigError when huge pages are asked for and too few are free.
  Buffers(const Workload& w, ibv_pd* pd, int access, int numa_node);

  size_t count() const noexcept { return qps_.size(); }
  const BufferLayout& layout() const noexcept { return layout_; }
  // QP `i` (worker-major order): its regions and the MR covering them (its own or the shared).
  std::byte* rx(size_t i) const noexcept { return qps_[i].buf; }
  std::byte* tx(size_t i) const noexcept { return qps_[i].buf + layout_.stride; }
  const ibv_mr* mr(size_t i) const noexcept { return qps_[i].mr; }

  // Per message size: zeroes the rx regions and fills the tx regions with the size's pattern;
  // `rx_pattern`: the rx regions hold it too (the peer reads them).
  void fill(uint64_t size, bool rx_pattern);
  // Checks every rx region holds the pattern of `size` from byte `offset` on (UD: past the GRH),
  // skipping the message's last byte when `skip_last`. Returns "" or the first mismatch, naming
  // the worker and QP (`qps_per_worker` QPs each).
  std::string verify_rx(uint64_t size, uint64_t offset, bool skip_last,
                        uint32_t qps_per_worker) const;
  // Atomics: the first 8 bytes of each rx region.
  std::vector<uint64_t> rx_words() const;
  void set_rx_words(uint64_t v);

  // The "memory" entry of the setup report: MR mode, huge pages, alignment, stride, mapped bytes.
  nlohmann::json describe() const;

 private:
  struct QpBuffer {
    std::byte* buf = nullptr;  // rx region; tx region at buf + stride
    HostMemory mem;            // per-QP mapping
    MrPtr mr_owned;            // per-QP MR
    ibv_mr* mr = nullptr;      // the MR covering buf (own or shared)
  };

  BufferLayout layout_;
  MrMode mr_mode_ = MrMode::kPerQp;
  bool hugepages_ = false;
  uint64_t align_ = 0;
  uint64_t huge_page_bytes_ = 0;
  uint64_t mapped_bytes_ = 0;
  HostMemory shared_mem_;  // --mr shared
  MrPtr shared_mr_;
  std::vector<QpBuffer> qps_;
};

}  // namespace rdmabench
