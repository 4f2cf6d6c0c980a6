// Port counters (base/counters.h): reading a sysfs-like tree and computing deltas.
#include "base/counters.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "base/netdev_stats.h"
#include "base/temp_dir.h"

namespace rdmabench {
namespace {

namespace fs = std::filesystem;

// A fake /sys/class/infiniband in a temporary directory, removed at the end of the test.
class FakeSysfs {
 public:
  // Writes DEV/ports/PORT/GROUP/NAME with `content` (sysfs files end with a newline).
  void put(const std::string& dev, uint32_t port, const std::string& group, const std::string& name,
           const std::string& content) {
    dir_.put(dev + "/ports/" + std::to_string(port) + "/" + group + "/" + name, content);
  }
  std::string root() const { return dir_.str(); }
  const fs::path& path() const { return dir_.path(); }

 private:
  TempDir dir_{"rdmabench_sysfs"};
};

TEST(CountersTest, ReadsBothCounterGroups) {
  FakeSysfs sys;
  sys.put("mlx5_0", 1, "counters", "port_xmit_data", "123456789\n");
  sys.put("mlx5_0", 1, "counters", "port_rcv_data", "42\n");
  sys.put("mlx5_0", 1, "hw_counters", "rcvd_pkts", "1000\n");
  sys.put("mlx5_0", 1, "hw_counters", "out_of_sequence", "0\n");
  CounterSnapshot s = read_port_counters("mlx5_0", 1, sys.root());
  CounterSnapshot want = {{"counters/port_xmit_data", 123456789},
                          {"counters/port_rcv_data", 42},
                          {"hw_counters/rcvd_pkts", 1000},
                          {"hw_counters/out_of_sequence", 0}};
  EXPECT_EQ(s, want);
}

TEST(CountersTest, LargeValuesAreKept) {
  FakeSysfs sys;
  sys.put("mlx5_0", 1, "counters", "port_xmit_data", "18446744073709551615\n");
  sys.put("mlx5_0", 1, "counters", "port_rcv_data", "4294967296\n");
  CounterSnapshot s = read_port_counters("mlx5_0", 1, sys.root());
  EXPECT_EQ(s.at("counters/port_xmit_data"), UINT64_MAX);
  EXPECT_EQ(s.at("counters/port_rcv_data"), 4294967296ULL);
}

TEST(CountersTest, SelectsTheRequestedDeviceAndPort) {
  FakeSysfs sys;
  sys.put("mlx5_0", 1, "counters", "port_xmit_data", "1\n");
  sys.put("mlx5_0", 2, "counters", "port_xmit_data", "2\n");
  sys.put("mlx5_1", 1, "counters", "port_xmit_data", "3\n");
  EXPECT_EQ(read_port_counters("mlx5_0", 1, sys.root()).at("counters/port_xmit_data"), 1u);
  EXPECT_EQ(read_port_counters("mlx5_0", 2, sys.root()).at("counters/port_xmit_data"), 2u);
  EXPECT_EQ(read_port_counters("mlx5_1", 1, sys.root()).at("counters/port_xmit_data"), 3u);
}

TEST(CountersTest, MissingDeviceOrGroupIsNotAnError) {
  FakeSysfs sys;
  EXPECT_TRUE(read_port_counters("mlx5_0", 1, sys.root()).empty());
  EXPECT_TRUE(read_port_counters("mlx5_0", 1, (sys.path() / "does-not-exist").string()).empty());
  // Only hw_counters present (e.g. a RoCE function without the standard counters).
  sys.put("rxe0", 1, "hw_counters", "sent_pkts", "7\n");
  CounterSnapshot s = read_port_counters("rxe0", 1, sys.root());
  EXPECT_EQ(s, (CounterSnapshot{{"hw_counters/sent_pkts", 7}}));
  EXPECT_TRUE(read_port_counters("rxe0", 2, sys.root()).empty());
}

TEST(CountersTest, UnreadableEntriesAreSkipped) {
  FakeSysfs sys;
  sys.put("mlx5_0", 1, "counters", "port_xmit_data", "10\n");
  sys.put("mlx5_0", 1, "counters", "garbage", "not a number\n");
  sys.put("mlx5_0", 1, "counters", "empty", "");
  fs::create_directories(sys.path() / "mlx5_0" / "ports" / "1" / "counters" / "subdir");
  CounterSnapshot s = read_port_counters("mlx5_0", 1, sys.root());
  EXPECT_EQ(s, (CounterSnapshot{{"counters/port_xmit_data", 10}}));
}

TEST(CounterDeltasTest, DifferenceOfCountersPresentInBoth) {
  CounterSnapshot start = {{"counters/port_xmit_data", 1000},
                           {"counters/port_rcv_data", 500},
                           {"hw_counters/rcvd_pkts", 7},
                           {"hw_counters/only_in_start", 3}};
  CounterSnapshot end = {{"counters/port_xmit_data", 251000},
                         {"counters/port_rcv_data", 500},
                         {"hw_counters/rcvd_pkts", 5},      // went backwards (reset): 0
                         {"hw_counters/only_in_end", 99}};  // missing in start: left out
  nlohmann::json d = counter_deltas(start, end);
  ASSERT_TRUE(d.is_object());
  EXPECT_EQ(d.size(), 3u);
  EXPECT_EQ(d.at("counters/port_xmit_data").get<uint64_t>(), 250000u);
  EXPECT_EQ(d.at("counters/port_rcv_data").get<uint64_t>(), 0u);
  EXPECT_EQ(d.at("hw_counters/rcvd_pkts").get<uint64_t>(), 0u);
  EXPECT_FALSE(d.contains("hw_counters/only_in_end"));
  EXPECT_FALSE(d.contains("hw_counters/only_in_start"));
}

TEST(CounterDeltasTest, EmptySnapshotsGiveAnEmptyObject) {
  nlohmann::json d = counter_deltas({}, {});
  EXPECT_TRUE(d.is_object());
  EXPECT_TRUE(d.empty());
  EXPECT_TRUE(counter_deltas({}, {{"counters/x", 5}}).empty());
  EXPECT_EQ(counter_deltas({{"counters/x", 0}}, {{"counters/x", UINT64_MAX}})
                .at("counters/x")
                .get<uint64_t>(),
            UINT64_MAX);
}

TEST(CounterDeltasTest, SnapshotsReadFromTheTree) {
  FakeSysfs sys;
  sys.put("mlx5_0", 1, "counters", "port_xmit_packets", "100\n");
  sys.put("mlx5_0", 1, "hw_counters", "rcvd_pkts", "50\n");
  CounterSnapshot before = read_port_counters("mlx5_0", 1, sys.root());
  sys.put("mlx5_0", 1, "counters", "port_xmit_packets", "1100\n");
  sys.put("mlx5_0", 1, "hw_counters", "rcvd_pkts", "550\n");
  sys.put("mlx5_0", 1, "hw_counters", "new_counter", "9\n");
  nlohmann::json d = counter_deltas(before, read_port_counters("mlx5_0", 1, sys.root()));
  EXPECT_EQ(d,
            (nlohmann::json{{"counters/port_xmit_packets", 1000}, {"hw_counters/rcvd_pkts", 500}}));
}

// The network device under a port: its first GID's, else the device's parent (rxe, siw).
TEST(NetdevStats, ThePortsNetdevFromItsGidElseTheParent) {
  FakeSysfs sys;
  sys.put("mlx5_0", 1, "gid_attrs/ndevs", "0", "ens1f0\n");
  EXPECT_EQ(port_netdev("mlx5_0", 1, sys.root()), "ens1f0");
  fs::create_directories(sys.path() / "rxe0");
  std::ofstream(sys.path() / "rxe0" / "parent") << "eth1\n";
  EXPECT_EQ(port_netdev("rxe0", 1, sys.root()), "eth1");
  EXPECT_EQ(port_netdev("ib0", 1, sys.root()), "");  // InfiniBand: none
}

// A device without statistics or none at all gives none, without an error.
TEST(NetdevStats, NoneForAnUnknownDeviceOrOneWithout) {
  EXPECT_TRUE(read_netdev_stats("rb-no-such-dev").empty());
  EXPECT_TRUE(read_netdev_stats("").empty());
  EXPECT_TRUE(read_netdev_stats(std::string(64, 'x')).empty());
  EXPECT_TRUE(read_netdev_stats("lo").empty());  // the loopback device has no driver statistics
}

}  // namespace
}  // namespace rdmabench
