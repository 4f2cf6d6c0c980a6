#pragma once
// One side's verbs resources for a test session, composed of its parts: the device and port, a
// PD, the buffers (buffers.h), the queues (queue_pairs.h), connected by the TCP exchange
// (tcp_exchange.h) or rdma_cm (cm_connection.h), and per worker the WorkerContext the datapath
// runs on, whose prebuilt work requests come from work_requests.h. Built once per session
// (setup path); the datapath reads the WorkerContexts it prepares.
#include <sched.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "base/clock.h"
#include "engine/buffers.h"
#include "engine/cm_connection.h"
#include "engine/numa_placement.h"
#include "engine/queue_pairs.h"
#include "engine/recv_credits.h"
#include "engine/side_info.h"
#include "engine/work_requests.h"
#include "engine/worker_context.h"
#include "model/workload.h"
#include "verbs/device.h"
#include "verbs/verbs.h"

namespace rdmabench {

// Settings that belong to one host, never sent to the peer.
struct LocalSettings {
  std::string device;  // "" = first device
  uint32_t port = 1;
  int gid_index = -1;     // -1 = automatic
  std::string bind_addr;  // server: where to listen; also used to pick the GID
  std::string gid = {};   // -x given as a GID or an IPv4 address instead of an index
};

class SessionResources {
 public:
  // `is_client`: the requester side. The connection method is `w.connect`, resolved for the
  // local device (rdma_cm: the device context comes from librdmacm).
  SessionResources(const Workload& w, const LocalSettings& local, bool is_client);
  SessionResources(const SessionResources&) = delete;
  SessionResources& operator=(const SessionResources&) = delete;
  ~SessionResources();

  const Device& device() const noexcept { return device_; }
  uint32_t gid_index() const noexcept { return gid_index_; }
  nlohmann::json describe() const;  // device info + port, chosen GID, its address

  // TCP exchange: create the QPs (RESET -> INIT), describe them, connect them to the peer.
  void create_qps();
  SideInfo local_side() const;
  void connect_qps(const SideInfo& remote);

  // rdma_cm: the client connects every QP to the server's CM port; the server accepts them.
  // The session's nonce (from the accept message) goes with every connect request; the server
  // rejects requests without it. cm_listen returns the port (0 = any free one); cm_accept_all
  // the foreign requests it rejected (how many, from where, why).
  void cm_connect(const std::string& server_addr, uint16_t cm_port, uint64_t nonce,
                  std::chrono::milliseconds timeout);
  uint16_t cm_listen(const std::string& bind_addr, uint16_t cm_port);
  const CmRejections& cm_accept_all(uint64_t nonce, std::chrono::milliseconds timeout);
  // rdma_cm: learn the peer's buffer addresses/rkeys (the QPs are already connected).
  void set_remote(const SideInfo& remote);

  void post_initial_receives();

  // Per message size (setup path, never in the loop): build the work requests for `size`, zero
  // the receive regions, fill the send regions (and read/atomic targets) with the size's pattern.
  void prepare_size(uint64_t size);
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
  int remote_access() const noexcept;
  WorkRequestSpec work_request_spec(size_t flat) const;
  void build_slots();
  // Receive credits: the worker's groups (one per receive queue), built once per session.
  void build_credit_groups(WorkerContext& c, size_t first_flat);

  Workload w_;
  LocalSettings local_;
  bool is_client_;
  std::unique_ptr<CmConnection> cm_;  // rdma_cm mode only; owns the device context
  Device device_;
  uint32_t gid_index_ = 0;
  ibv_ah_attr peer_ah_{};  // the address vector towards the peer (UD: its AH's)
  ibv_gid gid_{};
  uint32_t active_mtu_ = 0;
  int max_rd_atomic_ = 1;
  int peer_rd_atomic_ = 1;
  uint32_t inline_cap_ = 0;
  NumaPlacement numa_;
  PdPtr pd_;
  Buffers buffers_;
  bool credits_ = false;      // receive credits (recv_credits.h): iWARP send bandwidth
  CreditWords credit_words_;  // their registered words
  QueuePairs qps_;            // destroyed before the MRs and the PD
  std::vector<WorkerContext> ctx_;
  uint64_t size_ = 0;
};

}  // namespace rdmabench
