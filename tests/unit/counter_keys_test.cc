// The counters' one key set (model/counter_keys.h): provider names to keys, raw names kept, and
// the loss figure a verdict reads. rxe has no CNP or ECN counters: those keys are tested on an
// mlx5-like document.
#include "model/counter_keys.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>

namespace rdmabench {
namespace {

using nlohmann::json;

TEST(CounterKeys, EveryKeyHasANameAndEveryRowAKnownKey) {
  std::set<std::string_view> names;
  for (size_t i = 0; i < kCounterKeys; ++i) names.insert(to_string(static_cast<CounterKey>(i)));
  EXPECT_EQ(names.size(), kCounterKeys);
  for (const CounterName& row : counter_table()) {
    EXPECT_EQ(counter_key(row.name), row.key) << row.name;
    EXPECT_FALSE(row.providers.empty()) << row.name;
  }
  EXPECT_FALSE(counter_key("hw_counters/lifespan"));
}

TEST(CounterKeys, RxeDeltasMapToKeysAndUnknownNonzeroNamesStayRaw) {
  const json rxe = {{"hw_counters/sent_pkts", 1000},        {"hw_counters/rcvd_pkts", 990},
                    {"hw_counters/completer_retry_err", 3}, {"hw_counters/rcvd_seq_err", 2},
                    {"hw_counters/out_of_seq_request", 0},  {"hw_counters/duplicate_request", 4},
                    {"hw_counters/rdma_sends", 7},          {"hw_counters/link_downed", 0}};
  const json n = normalise_counters(rxe);
  EXPECT_EQ(n["keys"], (json{{"packets_sent", 1000},
                             {"packets_received", 990},
                             {"retransmissions", 3},
                             {"sequence_errors", 2},
                             {"out_of_sequence", 0},
                             {"duplicates", 4}}));
  // No CNP or ECN counter on rxe: absent, not 0.
  EXPECT_FALSE(n["keys"].contains("cnp_sent"));
  EXPECT_FALSE(n["keys"].contains("ecn_marked"));
  EXPECT_EQ(n["raw"], (json{{"hw_counters/rdma_sends", 7}}));
}

TEST(CounterKeys, Mlx5CongestionCountersAndTheFirstPresentRowWins) {
  const json mlx5 = {{"counters/port_xmit_packets", 5000},
                     {"counters/port_rcv_packets", 4000},
                     {"hw_counters/np_cnp_sent", 12},
                     {"hw_counters/rp_cnp_handled", 9},
                     {"hw_counters/np_ecn_marked_roce_packets", 30},
                     {"hw_counters/local_ack_timeout_err", 1},
                     {"hw_counters/packet_seq_err", 2},
                     {"hw_counters/out_of_sequence", 5},
                     {"hw_counters/out_of_buffer", 6},
                     {"counters/port_xmit_discards", 100}};
  const json k = normalise_counters(mlx5)["keys"];
  EXPECT_EQ(k["packets_sent"], 5000);
  EXPECT_EQ(k["cnp_sent"], 12);
  EXPECT_EQ(k["cnp_received"], 9);
  EXPECT_EQ(k["ecn_marked"], 30);
  EXPECT_EQ(k["ack_timeouts"], 1);
  EXPECT_EQ(k["sequence_errors"], 2);
  EXPECT_EQ(k["out_of_sequence"], 5);
  // Two rows give discards: out_of_buffer comes first in the table, so it is the one read.
  EXPECT_EQ(k["discards"], 6);
}

TEST(CounterKeys, LossPerMillionPacketsOfBothSides) {
  const json client = {{"hw_counters/sent_pkts", 600000},
                       {"hw_counters/completer_retry_err", 3},
                       {"hw_counters/rcvd_seq_err", 3}};
  const json server = {{"hw_counters/sent_pkts", 400000}, {"hw_counters/out_of_seq_request", 3}};
  // The gaps (3 sequence-error NAKs, 3 out-of-sequence arrivals) count; the retries do not.
  EXPECT_DOUBLE_EQ(*loss_per_million(client, server), 6.0);
  // A clean flow: 0, which is a figure (not "unknown").
  EXPECT_DOUBLE_EQ(*loss_per_million(json{{"hw_counters/sent_pkts", 10}}, json::object()), 0.0);
  // No packet counter on either side (siw), or nothing sent: no figure.
  EXPECT_FALSE(loss_per_million(json::object(), json::object()));
  EXPECT_FALSE(loss_per_million(json{{"hw_counters/sent_pkts", 0}}, json(nullptr)));
}

// Congestion signals (CNPs, ECN marks, pause frames) per million packets sent, both sides; no
// figure where no side has any of those counters (rxe), which is not the same as 0.
TEST(CounterKeys, CongestionPerMillionPacketsOfBothSides) {
  const json counters = {
      {"client", {{"counters/port_xmit_packets", 500000}, {"hw_counters/rp_cnp_handled", 20}}},
      {"server",
       {{"counters/port_xmit_packets", 500000},
        {"hw_counters/np_cnp_sent", 20},
        {"hw_counters/np_ecn_marked_roce_packets", 40},
        {"ethtool/rx_pause_ctrl_phy", 0}}}};
  EXPECT_DOUBLE_EQ(*congestion_per_million(counters), 80.0);
  // rxe counts packets and none of these: unknown.
  EXPECT_FALSE(congestion_per_million(
      {{"client", {{"hw_counters/sent_pkts", 1000}}}, {"server", {{"hw_counters/sent_pkts", 9}}}}));
  // A device with pause counters that stayed at 0: a figure of 0.
  EXPECT_DOUBLE_EQ(
      *congestion_per_million(
          {{"client", {{"counters/port_xmit_packets", 10}, {"ethtool/tx_pause_ctrl_phy", 0}}}}),
      0.0);
  EXPECT_FALSE(congestion_per_million(json(nullptr)));
}

// What moved, in the key set and per side; the packet counts and the zeros left out.
TEST(CounterKeys, MovedCountersNameTheKeysThatChanged) {
  const json moved = moved_counters(
      {{"client",
        {{"hw_counters/sent_pkts", 1000},
         {"hw_counters/completer_retry_err", 4},
         {"hw_counters/rcvd_seq_err", 0}}},
       {"server", {{"hw_counters/sent_pkts", 900}, {"hw_counters/out_of_seq_request", 2}}}});
  EXPECT_EQ(moved,
            json({{"client", {{"retransmissions", 4}}}, {"server", {{"out_of_sequence", 2}}}}))
      << moved.dump();
  EXPECT_EQ(describe_moved_counters(moved), "client: retransmissions 4; server: out_of_sequence 2");
  EXPECT_EQ(describe_moved_counters(json::object()), "none");
  EXPECT_EQ(moved_counters({{"client", {{"hw_counters/sent_pkts", 5}}}}), json::object());
  EXPECT_EQ(moved_counters(json(nullptr)), json::object());
}

// The port's netdev statistics (ethtool -S): only the mapped ones are recorded, and they
// normalise like the rest (rxe has none of mlx5's pause counters: tested with fixture names).
TEST(CounterKeys, EthtoolStatisticsMapToPauseAndDiscards) {
  EXPECT_TRUE(ethtool_stat_mapped("rx_pause_ctrl_phy"));
  EXPECT_TRUE(ethtool_stat_mapped("rx_queue_0_drops"));
  EXPECT_FALSE(ethtool_stat_mapped("rx_queue_3_packets"));
  EXPECT_FALSE(ethtool_stat_mapped("ethtool/rx_pause_ctrl_phy"));
  const nlohmann::json n = normalise_counters({{"ethtool/rx_pause_ctrl_phy", 12},
                                               {"ethtool/tx_pause_ctrl_phy", 3},
                                               {"ethtool/rx_discards_phy", 7},
                                               {"hw_counters/sent_pkts", 100}});
  EXPECT_EQ(n["keys"]["pause_received"], 12);
  EXPECT_EQ(n["keys"]["pause_sent"], 3);
  EXPECT_EQ(n["keys"]["discards"], 7);
  EXPECT_TRUE(n["raw"].empty()) << n.dump();
  // ice names give the same keys.
  EXPECT_EQ(normalise_counters({{"ethtool/link_xoff_rx", 5}})["keys"]["pause_received"], 5);
}

}  // namespace
}  // namespace rdmabench
