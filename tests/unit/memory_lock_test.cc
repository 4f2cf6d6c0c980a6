// What a run pins (registers) and the RLIMIT_MEMLOCK decision: pure functions, no device.
#include "engine/memory_lock.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

namespace rdmabench {
namespace {

Workload with(uint64_t size, uint32_t threads = 1, uint32_t qps = 1) {
  Workload w;
  w.sizes = {size};
  w.threads = threads;
  w.qps_per_thread = qps;
  return w;
}

TEST(MemoryLockTest, RegionHoldsTheLargestMessagePlusAGrhRoundedTo64) {
  EXPECT_EQ(region_bytes_for(with(8)), 128u);  // at least 64, + 40 GRH, to 64
  EXPECT_EQ(region_bytes_for(with(4096)), 4160u);
  EXPECT_EQ(region_bytes_for(with(1 << 20)), (1u << 20) + 64);
  Workload w = with(64);
  w.sizes = {64, 1 << 20, 8};  // the largest counts
  EXPECT_EQ(region_bytes_for(w), (1u << 20) + 64);
}

TEST(MemoryLockTest, RegisteredBytesArePagesOfBothRegionsPerQp) {
  EXPECT_EQ(registered_bytes(with(8)), 4096u);      // 256 B -> one page
  EXPECT_EQ(registered_bytes(with(4096)), 12288u);  // 8320 B -> 3 pages
  EXPECT_EQ(registered_bytes(with(1 << 20)), (2u << 20) + 4096);
  EXPECT_EQ(registered_bytes(with(1 << 20, 2, 4)), 8 * ((2u << 20) + 4096));
  EXPECT_EQ(registered_bytes(with(1 << 20), 65536), (2u << 20) + 65536);  // larger pages
}

TEST(MemoryLockTest, RegisteredBytesFollowTheAlignment) {
  Workload w = with(4096);
  w.align = 65536;  // larger than a page: each 4160 B region takes a 64 KiB granule
  EXPECT_EQ(registered_bytes(w), 131072u);
  w.align = 512;  // below a page: 1 KiB granules (5120 B each) after a 512 B lead, to pages
  EXPECT_EQ(registered_bytes(w), 12288u);
}

TEST(MemoryLockTest, Decision) {
  const uint64_t kInf = UINT64_MAX, k8M = 8u << 20;
  EXPECT_EQ(decide_memlock(k8M, k8M, k8M, true), MemlockAction::kFits);  // exactly at the limit
  EXPECT_EQ(decide_memlock(k8M + 1, k8M, k8M, true), MemlockAction::kRefuse);
  EXPECT_EQ(decide_memlock(k8M + 1, k8M, kInf, true), MemlockAction::kRaiseSoft);
  EXPECT_EQ(decide_memlock(k8M + 1, k8M, 2 * k8M, true), MemlockAction::kRaiseSoft);
  EXPECT_EQ(decide_memlock(3 * k8M, k8M, 2 * k8M, true), MemlockAction::kRefuse);
  EXPECT_EQ(decide_memlock(3 * k8M, kInf, kInf, true), MemlockAction::kFits);
  EXPECT_EQ(decide_memlock(3 * k8M, k8M, k8M, false), MemlockAction::kFits);  // not enforced
}

TEST(MemoryLockTest, RefusalNamesTheNumbersAndTheFix) {
  const std::string m = memlock_refusal(33558528, 1048576, 1048576, "siw0", "iWARP");
  EXPECT_NE(m.find("33558528 bytes"), std::string::npos) << m;
  EXPECT_NE(m.find("soft 1048576 bytes"), std::string::npos) << m;
  EXPECT_NE(m.find("hard 1048576 bytes"), std::string::npos) << m;
  EXPECT_NE(m.find("siw0"), std::string::npos) << m;
  EXPECT_NE(m.find("ulimit -l unlimited"), std::string::npos) << m;
  EXPECT_NE(m.find("ulimit -l 32772"), std::string::npos) << m;  // KiB, rounded up
  EXPECT_NE(m.find("even for root"), std::string::npos) << m;
  EXPECT_EQ(memlock_refusal(1 << 30, 0, 0, "rxe0", "InfiniBand").find("even for root"),
            std::string::npos);
  EXPECT_NE(memlock_refusal(1 << 30, 0, UINT64_MAX, "x", "iWARP").find("hard unlimited"),
            std::string::npos);
}

TEST(MemoryLockTest, IwarpIsAlwaysEnforced) { EXPECT_TRUE(memlock_enforced("iWARP")); }

}  // namespace
}  // namespace rdmabench
