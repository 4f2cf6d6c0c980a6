#pragma once
// The workload: everything the client decides and sends to the server during the handshake, so
// both sides always agree. Parsed and validated in one place (workload.cc); invalid combinations
// are refused with a ConfigError naming the option, the value and what is allowed, before any
// verbs resource exists.
#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "base/device_caps.h"

namespace rdmabench {

enum class Op : uint8_t { kSend, kSendImm, kWrite, kWriteImm, kRead, kFetchAdd, kCmpSwap };
enum class QpType : uint8_t { kRc, kUc, kUd };
enum class Mode : uint8_t { kBw, kLat };
enum class CqMode : uint8_t { kPoll, kEvent };
// kAuto: rdma_cm on iWARP devices (they connect only through it), the TCP exchange otherwise;
// resolved by each side from its own device (resolve_connect) before any resource exists.
enum class ConnectMethod : uint8_t { kTcp, kRdmaCm, kAuto };
enum class MrMode : uint8_t { kPerQp, kShared };
// Which kind of GID the side picks when -x does not name one: RoCE v2 (UDP/IP, routable; the
// default and what `auto` picks) or RoCE v1 (Ethernet only). InfiniBand and iWARP ports have one
// kind and ignore it.
enum class GidType : uint8_t { kAuto, kRoceV1, kRoceV2 };

std::string_view to_string(Op v) noexcept;
std::string_view to_string(QpType v) noexcept;
std::string_view to_string(Mode v) noexcept;
std::string_view to_string(CqMode v) noexcept;
std::string_view to_string(ConnectMethod v) noexcept;
std::string_view to_string(MrMode v) noexcept;
std::string_view to_string(GidType v) noexcept;
// Parse from the names above; throw ConfigError(field, value, allowed names).
Op parse_op(std::string_view s);
QpType parse_qp_type(std::string_view s);
Mode parse_mode(std::string_view s);
CqMode parse_cq_mode(std::string_view s);
ConnectMethod parse_connect(std::string_view s);
MrMode parse_mr_mode(std::string_view s);
GidType parse_gid_type(std::string_view s);

// The concrete method for a device of `transport` ("InfiniBand", "iWARP", ...): kAuto becomes
// kRdmaCm for RC on iWARP and kTcp otherwise (UC/UD on iWARP are then refused for their QP
// type); an explicit choice is kept (validate_for_device refuses tcp on iWARP).
ConnectMethod resolve_connect(ConnectMethod c, QpType qp, std::string_view transport) noexcept;

constexpr bool is_atomic(Op op) noexcept { return op == Op::kFetchAdd || op == Op::kCmpSwap; }
// Ops whose messages consume a receive WR at the responder.
constexpr bool uses_recv(Op op) noexcept {
  return op == Op::kSend || op == Op::kSendImm || op == Op::kWriteImm;
}
// Ops where the requester waits for data coming back (read and atomics).
constexpr bool is_fetch(Op op) noexcept { return op == Op::kRead || is_atomic(op); }

struct Workload {
  Op op = Op::kWrite;
  QpType qp = QpType::kRc;
  Mode mode = Mode::kBw;
  bool bidir = false;
  std::vector<uint64_t> sizes{65536};
  uint64_t iterations = 0;       // per QP per size; 0 = default for the mode (5000 bw, 1000 lat)
  double duration_s = 0;         // > 0: run for this long per size instead of a count
  uint64_t warmup = UINT64_MAX;  // warm-up iterations per QP; UINT64_MAX = default (10 %, >= 1)
  double warmup_s = 1.0;         // warm-up time in duration mode
  // Watching a run (docs/single-pair.md "Watching a link"): > 0: the client reports the rate every
  // interval_s seconds and the result keeps each interval; run_infinitely: the client measures
  // its one size until SIGINT/SIGTERM (duration mode without an end).
  double interval_s = 0;
  bool run_infinitely = false;
  uint32_t tx_depth = 128;
  uint32_t rx_depth = 512;
  int32_t inline_size = -1;   // -1 = default (0 for bw; up to 220 for lat on send/write)
  uint32_t signal_every = 0;  // 0 = default (bw_signal_every() for bw, 1 for lat)
  CqMode cq = CqMode::kPoll;
  bool srq = false;
  uint32_t threads = 1;
  uint32_t qps_per_thread = 1;
  std::vector<int> cpus;  // pin worker i to cpus[i % size]; empty = no pinning
  ConnectMethod connect = ConnectMethod::kAuto;  // resolved before the handshake
  bool verify = false;
  uint32_t mtu = 0;        // 0 = the ports' active MTU
  double timeout_s = 5.0;  // longest wait for the peer or for progress
  // Engine knobs (docs/single-pair.md "Engine knobs"); the defaults are the behaviour without them.
  uint32_t post_list = 1;      // WRs chained per post call (sends, and receive re-posts)
  uint32_t sge = 1;            // scatter/gather entries per message (both sides)
  uint32_t max_rd_atomic = 0;  // outstanding reads/atomics per QP; 0 = min(device, 16)
  double latency_gap_us = 0;   // ping-pong: busy-wait between iterations
  double rate = 0;             // > 0: open-loop latency, messages/s per QP on a fixed schedule
  bool cq_per_qp = false;      // one CQ per QP instead of one per worker
  bool hugepages = false;      // buffers from huge pages (MAP_HUGETLB)
  uint64_t align = 0;          // buffer start alignment in bytes (power of two); 0 = page
  MrMode mr = MrMode::kPerQp;  // one MR per QP, or one shared MR per side
  int32_t numa = kNumaNone;    // kNumaNone, kNumaAuto (the device's node) or a node number
  // QP settings (docs/single-pair.md "Traffic classes and QP settings"): the address vector, the
  // P_Key and the RC timers of both sides' QPs; the defaults are the values before they existed.
  uint32_t sl = 0;              // service level (InfiniBand; RoCE: the priority some NICs map)
  uint32_t tos = 0;             // traffic class byte (RoCE v2: the IP TOS, DSCP << 2 | ECN)
  uint32_t flow_label = 0;      // GRH / IPv6 flow label (20 bits)
  uint32_t hop_limit = 64;      // GRH hop limit / IP TTL
  uint32_t pkey_index = 0;      // index into the port's P_Key table
  uint32_t qp_timeout = 14;     // RC local ACK timeout: 4.096 us * 2^N (0 = infinite)
  uint32_t retry_count = 7;     // RC transport retries before IBV_WC_RETRY_EXC_ERR
  uint32_t rnr_retry = 7;       // RC RNR retries (7 = infinite)
  uint32_t min_rnr_timer = 12;  // RC responder's RNR NAK timer code (12 = 0.64 ms)
  GidType gid_type = GidType::kAuto;

  static constexpr uint64_t kMaxIterations = uint64_t{1} << 40;  // also the largest warm-up
  static constexpr int32_t kNumaNone = -1;
  static constexpr int32_t kNumaAuto = -2;

  uint64_t max_size() const noexcept;
  uint64_t effective_iterations() const noexcept;
  uint64_t effective_warmup() const noexcept;
  uint32_t effective_inline(uint32_t device_max_inline) const noexcept;
  uint32_t effective_signal_every() const noexcept;
  // The signalling interval of one bandwidth phase of `phase_ops` sends per QP of `size` bytes
  // (UINT64_MAX: duration mode). The workload's signal_every when set; otherwise
  // effective_signal_every() lowered so that the phase has at least kMinSignals signalled
  // completions and one comes at least every kSignalBytes (docs/single-pair.md "How it
  // measures"), in whole post lists. A slow link then shows progress long before the phase's end.
  uint32_t bw_signal_every(uint64_t size, uint64_t phase_ops) const noexcept;
  static constexpr uint64_t kMinSignals = 4;
  static constexpr uint64_t kSignalBytes = uint64_t{1} << 20;
  bool open_loop() const noexcept { return rate > 0; }
  // Measured for a time (duration mode) rather than a count of iterations.
  bool timed() const noexcept { return duration_s > 0 || run_infinitely; }
  uint32_t total_qps() const noexcept { return threads * qps_per_thread; }
  // Responder-side receive WRs needed per QP.
  bool responder_posts_recv() const noexcept { return uses_recv(op); }
};

// Structural validation (no device needed): refuses invalid combinations of op, QP type and mode
// and out-of-range values.
void validate(const Workload& w);

// Limits of a device that a workload must respect: the device's own, and its port's MTU.
struct DeviceLimits : DeviceCaps {
  uint32_t port_active_mtu = 0;  // bytes
};
void validate_for_device(const Workload& w, const DeviceLimits& d);

void to_json(nlohmann::json& j, const Workload& w);
// Reads a workload; every error names the JSON path of the bad field (e.g. "/workload/op").
Workload workload_from_json(const nlohmann::json& j, const std::string& path = "");

// "4096", "4K", "1M", "2G" (binary multiples) -> bytes. ConfigError naming `field` otherwise.
uint64_t parse_size(std::string_view s, const std::string& field);
// "4K", "2,64,1K", "2-8M" (powers of two from..to), "all" (2 B .. 8 MiB) -> list of sizes.
std::vector<uint64_t> parse_size_list(std::string_view s, const std::string& field);
std::string format_size(uint64_t bytes);

// Scatter/gather split: piece `i` of `size` bytes over `k` SGEs (contiguous; lengths differ by at
// most one byte, the longer ones first) and the offset where it starts.
constexpr uint64_t sge_piece_length(uint64_t size, uint32_t k, uint32_t i) noexcept {
  return size / k + (i < size % k ? 1 : 0);
}
constexpr uint64_t sge_piece_offset(uint64_t size, uint32_t k, uint32_t i) noexcept {
  return uint64_t(i) * (size / k) + (i < size % k ? i : size % k);
}
// "none", "auto" or a node number -> Workload::numa; ConfigError naming `field` otherwise.
int32_t parse_numa(std::string_view s, const std::string& field);
std::string numa_text(int32_t numa);

}  // namespace rdmabench
