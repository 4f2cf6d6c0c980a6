#pragma once
// One side's verbs resources for a test session: the device, a PD, and per worker a CQ (with a
// completion channel in event mode), an optional SRQ and its QPs, each QP with its own
// zeroed, registered buffer. Built once per session (setup path); the datapath reads the
// WorkerContexts it prepares.
//
// Buffer layout per QP: [rx region | tx region], each `region_bytes` long, `stride` apart. Remote
// operations target the peer's rx region; sends come from tx; reads and atomic results land in
// rx. Buffers are one mapping and MR per QP, or one shared by all QPs (--mr shared), from huge
// pages on request, bound to a NUMA node on request, each region starting at the requested
// alignment (--align: for A below the page size, exactly A past an aligned boundary).
#include <chrono>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "harness/clock.h"
#include "harness/cm.h"
#include "harness/device.h"
#include "harness/host_memory.h"
#include "harness/verbs.h"
#include "workloads/worker_context.h"
#include "workloads/workload.h"

namespace rdmabench {

// Settings that belong to one host, never sent to the peer.
struct LocalSettings {
  std::string device;  // "" = first device
  uint32_t port = 1;
  int gid_index = -1;     // -1 = automatic
  std::string bind_addr;  // server: where to listen; also used to pick the GID
};

struct QpInfo {
  uint32_t qpn = 0;
  uint32_t psn = 0;
  uint64_t addr = 0;  // rx region
  uint32_t rkey = 0;
  uint64_t len = 0;
};

struct SideInfo {
  uint16_t lid = 0;
  std::string gid;  // 32 hex digits
  uint32_t active_mtu = 0;
  int max_rd_atomic = 0;
  std::vector<QpInfo> qps;  // worker-major order
};
void to_json(nlohmann::json& j, const SideInfo& s);
SideInfo side_info_from_json(const nlohmann::json& j);  // throws PeerError on bad input

inline constexpr uint32_t kUdQkey = 0x11111111;
inline constexpr uint32_t kUdGrh = 40;
inline constexpr uint64_t kCasPattern = 0x0123456789abcdefULL;

class Fabric {
 public:
  // `is_client`: the requester side. `cm_mode`: contexts come from librdmacm.
  Fabric(const Workload& w, const LocalSettings& local, bool is_client);
  Fabric(const Fabric&) = delete;
  Fabric& operator=(const Fabric&) = delete;
  ~Fabric();

  const Device& device() const noexcept { return device_; }
  uint32_t gid_index() const noexcept { return gid_index_; }
  nlohmann::json describe() const;  // device info + port, chosen GID, its address

  // TCP exchange: create the QPs (RESET -> INIT), describe them, connect them to the peer.
  void create_qps();
  SideInfo local_side() const;
  void connect_qps(const SideInfo& remote);

  // rdma_cm: the client connects every QP to the server's CM port; the server accepts them.
  void cm_connect(const std::string& server_addr, uint16_t cm_port,
                  std::chrono::milliseconds timeout);
  void cm_listen(const std::string& bind_addr, uint16_t cm_port);
  void cm_accept_all(std::chrono::milliseconds timeout);
  // rdma_cm: learn the peer's buffer addresses/rkeys (the QPs are already connected).
  void set_remote(const SideInfo& remote);

  void post_initial_receives();

  // Per message size (setup path, never in the loop): set lengths and flags in the prebuilt
  // work requests, zero the receive regions, fill the send regions with the size's pattern.
  void prepare_size(uint64_t size, bool fill_patterns);
  // Checks the receive regions hold the pattern of `size` (skipping the last byte for write
  // latency). Returns "" or a description of the first mismatch.
  std::string verify_rx(uint64_t size, bool skip_last) const;
  // Atomics: value of the first 8 bytes of each QP's rx region.
  std::vector<uint64_t> rx_words() const;
  void set_rx_words(uint64_t v);

  std::vector<WorkerContext>& workers() noexcept { return ctx_; }
  void bind_control(WorkerControl* control, const Clock* clock, double timeout_s);

  // What setup built and how long it took (after the QPs are connected): QP, CQ and MR counts,
  // `setup_seconds` per QP and the slowest QP's own create/connect time, the first QP's
  // attributes as ibv_query_qp reports them, memory placement and NUMA binding.
  nlohmann::json setup_info(double setup_seconds) const;

 private:
  struct QpRes {
    std::byte* buf = nullptr;  // rx region; tx region at buf + stride_
    HostMemory mem;            // per-QP buffers
    MrPtr mr_owned;            // per-QP MR
    ibv_mr* mr = nullptr;      // the MR covering buf (own or shared)
    CqPtr cq;                  // --cq-per-qp
    double setup_s = 0;        // this QP's own create + connect time
    CmIdPtr cm_id;             // rdma_cm: owns the QP
    QpPtr qp_owned;            // TCP exchange: owns the QP
    ibv_qp* qp = nullptr;
    AhPtr ah;  // UD: address of the peer QP
    uint32_t psn = 0;
    QpInfo remote;
  };
  struct WorkerRes {
    CompChannelPtr channel;
    CqPtr cq;
    SrqPtr srq;
    std::vector<QpRes> qps;
  };

  ibv_qp_init_attr qp_init_attr(const WorkerRes& wr, const QpRes& q) const;
  void allocate_buffers(int access);
  void choose_numa();
  int remote_access() const noexcept;
  void build_slots();
  void fill_wr(uint32_t worker, uint32_t qp);
  ibv_ah_attr make_ah_attr(const SideInfo& remote) const;
  QpRes& qp_at(size_t flat);

  Workload w_;
  LocalSettings local_;
  bool is_client_;
  CmDeviceContext cm_ctx_;  // rdma_cm mode only
  CmChannelPtr cm_channel_;
  CmIdPtr cm_listener_;
  Device device_;
  uint32_t gid_index_ = 0;
  ibv_gid gid_{};
  uint32_t active_mtu_ = 0;
  ibv_mtu path_mtu_ = IBV_MTU_1024;
  int max_rd_atomic_ = 1;
  int peer_rd_atomic_ = 1;
  uint32_t inline_cap_ = 0;
  uint64_t region_bytes_ = 0;
  uint64_t stride_ = 0;  // rx -> tx region distance (region_bytes_ rounded for --align)
  uint64_t lead_ = 0;    // offset of the first region in its mapping (--align < page)
  uint64_t huge_page_bytes_ = 0;
  uint64_t mapped_bytes_ = 0;
  int numa_bind_ = -1;  // node the buffers and workers are bound to, -1 = none
  std::string numa_note_;
  std::vector<int> numa_cpus_;
  cpu_set_t affinity_{};
  uint64_t size_ = 0;
  PdPtr pd_;
  HostMemory shared_mem_;  // --mr shared
  MrPtr shared_mr_;
  std::vector<WorkerRes> res_;
  std::vector<WorkerContext> ctx_;
};

DeviceLimits limits_of(const Device& d, uint32_t port);

}  // namespace rdmabench
