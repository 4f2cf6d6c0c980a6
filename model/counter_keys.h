#pragma once
// Port counters in one key set, whatever the provider calls them: one table from provider names
// (rxe and mlx5 hw_counters, the IB port counters of counters/, the netdev's `ethtool -S`
// statistics) to rdmabench's keys, and the
// figures a verdict reads from a flow's deltas (results/SCHEMA.md "counters"). Names the table
// does not know stay as they are (raw). siw has no port counters: its flows have no loss figure.
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace rdmabench {

enum class CounterKey {
  kPacketsSent,
  kPacketsReceived,
  kRetransmissions,  // packets sent again (a requester's retry after a NAK or a timeout)
  kAckTimeouts,      // a requester's ACK timeouts (each retransmits)
  kSequenceErrors,   // NAKs for a sequence error a requester received
  kOutOfSequence,    // packets a responder received out of sequence (each NAKed once)
  kDuplicates,       // duplicate requests a responder received (what a retransmission repeats)
  kRnrNaksReceived,  // receiver-not-ready NAKs a requester received
  kRnrNaksSent,      // receiver-not-ready NAKs a responder sent
  kCnpSent,          // congestion notification packets sent (the notification point)
  kCnpReceived,      // CNPs handled by the reaction point
  kEcnMarked,        // ECN-marked RoCE packets received
  kDiscards,         // packets dropped for want of a receive buffer or at the port
  kPauseSent,        // pause (flow control) frames the port sent (ethtool -S of its netdev)
  kPauseReceived,    // pause frames the port received: the fabric told it to stop sending
};
inline constexpr size_t kCounterKeys = 15;

// The key's name in documents ("retransmissions", "out_of_sequence", ...).
std::string_view to_string(CounterKey k);

// One row of the table: a counter as named in a result document ("hw_counters/rcvd_seq_err"),
// the providers that name it so, and its key. When two rows give one key (an mlx5 device has
// both counters/port_xmit_packets and no hw_counters packet count; rxe the reverse), the first
// present wins: each key is read from one counter only.
struct CounterName {
  std::string_view name;
  std::string_view providers;
  CounterKey key;
};
std::span<const CounterName> counter_table();
std::optional<CounterKey> counter_key(std::string_view name);

// Rows for a port's network device are named "ethtool/STAT" (STAT as `ethtool -S` prints it): the
// engine records only the statistics this table maps (a NIC has hundreds, most per queue).
inline constexpr std::string_view kEthtoolPrefix = "ethtool/";
bool ethtool_stat_mapped(std::string_view stat);

// One side's deltas in the key set: {"keys": {key: n}, "raw": {name: n}} (raw: the names the
// table does not know, and nonzero only). Keys the provider has no counter for are absent
// (never 0: rxe has no CNP or ECN counters, which is not the same as none sent).
nlohmann::json normalise_counters(const nlohmann::json& deltas);

// The loss figure of a flow from its two sides' deltas (each as in a result's "counters"): the
// gaps its ends saw (sequence-error NAKs a requester received + packets a responder received out
// of sequence, both sides) per million packets the two sides sent. Retransmissions and ACK
// timeouts are not counted: a peer that answers late (a loaded or emulated host) makes them
// without losing a packet (the testbed's clean links show a few retries and no gap). nullopt
// when no side counts packets or none was sent (siw; a failed run).
std::optional<double> loss_per_million(const nlohmann::json& client, const nlohmann::json& server);
// The same from a "counters" object ({"client": deltas, "server": deltas}; either side may be
// absent): a result's, or one of its sizes'.
std::optional<double> loss_per_million(const nlohmann::json& counters);

// The congestion figure of a flow from a "counters" object: the congestion signals its ends
// counted (CNPs sent and handled, ECN-marked packets received, pause frames sent and received,
// both sides) per million packets the two sides sent. nullopt when no side has a counter for
// any of them (rxe and siw have none: not the same as none sent) or counts no packets.
std::optional<double> congestion_per_million(const nlohmann::json& counters);

// The counters that moved in a "counters" object, in the key set: {"client": {key: n},
// "server": {key: n}} with the nonzero keys other than the packet counts, the sides that have
// one (an empty object when nothing moved).
nlohmann::json moved_counters(const nlohmann::json& counters);
// That object as one line: "client: retransmissions 12, duplicates 3; server: out_of_sequence 3"
// ("none" when empty).
std::string describe_moved_counters(const nlohmann::json& moved);

}  // namespace rdmabench
