#include "model/counter_keys.h"

#include <array>
#include <nlohmann/json.hpp>

namespace rdmabench {
namespace {

using CK = CounterKey;

// Start from what the report marked before (err, retry, seq, dup, drop, discard). Sources: the
// kernel's rxe_hw_counters.c and mlx5 counters.c names, and the IB PortCounters of sysfs
// counters/ (where the kernel reads the 64-bit extended counters when the port has them).
constexpr std::array kTable = {
    CounterName{"hw_counters/sent_pkts", "rxe", CK::kPacketsSent},
    CounterName{"counters/port_xmit_packets", "mlx4, mlx5, IB", CK::kPacketsSent},
    CounterName{"hw_counters/rcvd_pkts", "rxe", CK::kPacketsReceived},
    CounterName{"counters/port_rcv_packets", "mlx4, mlx5, IB", CK::kPacketsReceived},
    CounterName{"hw_counters/completer_retry_err", "rxe", CK::kRetransmissions},
    CounterName{"hw_counters/roce_adp_retrans", "mlx5", CK::kRetransmissions},
    CounterName{"hw_counters/local_ack_timeout_err", "mlx5", CK::kAckTimeouts},
    CounterName{"hw_counters/rcvd_seq_err", "rxe", CK::kSequenceErrors},
    CounterName{"hw_counters/packet_seq_err", "mlx5", CK::kSequenceErrors},
    CounterName{"hw_counters/out_of_seq_request", "rxe", CK::kOutOfSequence},
    CounterName{"hw_counters/out_of_sequence", "mlx5", CK::kOutOfSequence},
    CounterName{"hw_counters/duplicate_request", "rxe, mlx5", CK::kDuplicates},
    CounterName{"hw_counters/rcvd_rnr_err", "rxe", CK::kRnrNaksReceived},
    CounterName{"hw_counters/rnr_nak_retry_err", "mlx5", CK::kRnrNaksReceived},
    CounterName{"hw_counters/send_rnr_err", "rxe", CK::kRnrNaksSent},
    CounterName{"hw_counters/np_cnp_sent", "mlx5", CK::kCnpSent},
    CounterName{"hw_counters/rp_cnp_handled", "mlx5", CK::kCnpReceived},
    CounterName{"hw_counters/np_ecn_marked_roce_packets", "mlx5", CK::kEcnMarked},
    CounterName{"hw_counters/out_of_buffer", "mlx5", CK::kDiscards},
    CounterName{"counters/port_xmit_discards", "mlx4, mlx5, IB", CK::kDiscards},
    // The port's network device (ethtool -S): receive discards for want of buffers, and link
    // pause frames (mlx5 names as its driver's en_stats.c gives them, Intel ice's, Broadcom
    // bnxt_en's; veth and virtio_net for the testbed's drops).
    CounterName{"ethtool/rx_discards_phy", "mlx5", CK::kDiscards},
    CounterName{"ethtool/rx_queue_0_drops", "veth, virtio_net", CK::kDiscards},
    CounterName{"ethtool/tx_pause_ctrl_phy", "mlx5", CK::kPauseSent},
    CounterName{"ethtool/link_xoff_tx", "ice", CK::kPauseSent},
    CounterName{"ethtool/tx_pause_frames", "bnxt_en", CK::kPauseSent},
    CounterName{"ethtool/rx_pause_ctrl_phy", "mlx5", CK::kPauseReceived},
    CounterName{"ethtool/link_xoff_rx", "ice", CK::kPauseReceived},
    CounterName{"ethtool/rx_pause_frames", "bnxt_en", CK::kPauseReceived},
};

constexpr std::array<std::string_view, kCounterKeys> kNames = {
    "packets_sent",    "packets_received", "retransmissions",   "ack_timeouts",  "sequence_errors",
    "out_of_sequence", "duplicates",       "rnr_naks_received", "rnr_naks_sent", "cnp_sent",
    "cnp_received",    "ecn_marked",       "discards",          "pause_sent",    "pause_received"};

std::optional<double> key_value(const nlohmann::json& deltas, CounterKey k) {
  if (!deltas.is_object()) return std::nullopt;
  for (const CounterName& row : kTable)
    if (row.key == k)
      if (auto it = deltas.find(std::string(row.name)); it != deltas.end() && it->is_number())
        return it->get<double>();
  return std::nullopt;
}

}  // namespace

std::string_view to_string(CounterKey k) { return kNames.at(static_cast<size_t>(k)); }

std::span<const CounterName> counter_table() { return kTable; }

std::optional<CounterKey> counter_key(std::string_view name) {
  for (const CounterName& row : kTable)
    if (row.name == name) return row.key;
  return std::nullopt;
}

bool ethtool_stat_mapped(std::string_view stat) {
  for (const CounterName& row : kTable)
    if (row.name.size() == kEthtoolPrefix.size() + stat.size() &&
        row.name.substr(0, kEthtoolPrefix.size()) == kEthtoolPrefix &&
        row.name.substr(kEthtoolPrefix.size()) == stat)
      return true;
  return false;
}

nlohmann::json normalise_counters(const nlohmann::json& deltas) {
  nlohmann::json keys = nlohmann::json::object(), raw = nlohmann::json::object();
  for (size_t i = 0; i < kCounterKeys; ++i)
    if (auto v = key_value(deltas, static_cast<CounterKey>(i)))
      keys[std::string(kNames[i])] = static_cast<uint64_t>(*v);
  if (deltas.is_object())
    for (const auto& [name, v] : deltas.items())
      if (!counter_key(name) && v.is_number() && v.get<double>() != 0) raw[name] = v;
  return {{"keys", keys}, {"raw", raw}};
}

std::optional<double> loss_per_million(const nlohmann::json& client, const nlohmann::json& server) {
  double packets = 0, events = 0;
  bool counted = false;
  for (const nlohmann::json* side : {&client, &server}) {
    const auto sent = key_value(*side, CK::kPacketsSent);
    if (!sent) continue;
    counted = true;
    packets += *sent;
    for (CK k : {CK::kSequenceErrors, CK::kOutOfSequence})
      events += key_value(*side, k).value_or(0);
  }
  if (!counted || packets <= 0) return std::nullopt;
  return events * 1e6 / packets;
}

namespace {

// One side of a "counters" object (an empty object when absent).
const nlohmann::json& counters_side(const nlohmann::json& counters, const char* side) {
  static const nlohmann::json none = nlohmann::json::object();
  if (!counters.is_object()) return none;
  const auto it = counters.find(side);
  return it != counters.end() ? *it : none;
}

}  // namespace

std::optional<double> loss_per_million(const nlohmann::json& counters) {
  return loss_per_million(counters_side(counters, "client"), counters_side(counters, "server"));
}

std::optional<double> congestion_per_million(const nlohmann::json& counters) {
  double packets = 0, signals = 0;
  bool counted = false;
  for (const char* name : {"client", "server"}) {
    const nlohmann::json& side = counters_side(counters, name);
    packets += key_value(side, CK::kPacketsSent).value_or(0);
    for (CK k :
         {CK::kCnpSent, CK::kCnpReceived, CK::kEcnMarked, CK::kPauseSent, CK::kPauseReceived})
      if (const auto v = key_value(side, k)) {
        counted = true;
        signals += *v;
      }
  }
  if (!counted || packets <= 0) return std::nullopt;
  return signals * 1e6 / packets;
}

std::string describe_moved_counters(const nlohmann::json& moved) {
  std::string t;
  if (moved.is_object())
    for (const auto& [side, keys] : moved.items()) {
      t += t.empty() ? "" : "; ";
      t += side;
      t += ':';
      bool first = true;
      if (keys.is_object())
        for (const auto& [key, n] : keys.items()) {
          t += first ? " " : ", ";
          t += key;
          t += ' ';
          t += n.dump();
          first = false;
        }
    }
  return t.empty() ? "none" : t;
}

nlohmann::json moved_counters(const nlohmann::json& counters) {
  nlohmann::json out = nlohmann::json::object();
  for (const char* name : {"client", "server"}) {
    const nlohmann::json& side = counters_side(counters, name);
    nlohmann::json moved = nlohmann::json::object();
    for (size_t i = 0; i < kCounterKeys; ++i) {
      const auto k = static_cast<CK>(i);
      if (k == CK::kPacketsSent || k == CK::kPacketsReceived) continue;
      if (const auto v = key_value(side, k); v && *v != 0)
        moved[std::string(kNames[i])] = static_cast<uint64_t>(*v);
    }
    if (!moved.empty()) out[name] = std::move(moved);
  }
  return out;
}

}  // namespace rdmabench
