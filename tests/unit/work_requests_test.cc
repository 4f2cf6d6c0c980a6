// The prebuilt work requests (engine/work_requests.h), built from plain values without a
// device: opcodes per op, the SGE split, post-list chaining, remote address and rkey, UD fields,
// immediate data, atomics' operands, the receive scatter list and the inline flag.
#include "engine/work_requests.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>

#include <cstddef>
#include <vector>

namespace rdmabench {
namespace {

constexpr uint64_t kRegion = 4096;

struct Buffers {
  std::vector<std::byte> mem = std::vector<std::byte>(2 * kRegion);
  std::byte* rx() { return mem.data(); }
  std::byte* tx() { return mem.data() + kRegion; }
  uint64_t rx_addr() { return reinterpret_cast<uint64_t>(rx()); }
  uint64_t tx_addr() { return reinterpret_cast<uint64_t>(tx()); }
};

WorkRequestSpec spec_for(Buffers& b, Op op, uint64_t size) {
  WorkRequestSpec s;
  s.op = op;
  s.size = size;
  s.index = 3;
  s.rx = b.rx();
  s.tx = b.tx();
  s.region_bytes = kRegion;
  s.lkey = 0x1234;
  s.remote_addr = 0xabcdef000ULL;
  s.rkey = 0x5678;
  return s;
}

TEST(WorkRequests, OpcodePerOp) {
  EXPECT_EQ(opcode_of(Op::kSend), IBV_WR_SEND);
  EXPECT_EQ(opcode_of(Op::kSendImm), IBV_WR_SEND_WITH_IMM);
  EXPECT_EQ(opcode_of(Op::kWrite), IBV_WR_RDMA_WRITE);
  EXPECT_EQ(opcode_of(Op::kWriteImm), IBV_WR_RDMA_WRITE_WITH_IMM);
  EXPECT_EQ(opcode_of(Op::kRead), IBV_WR_RDMA_READ);
  EXPECT_EQ(opcode_of(Op::kFetchAdd), IBV_WR_ATOMIC_FETCH_AND_ADD);
  EXPECT_EQ(opcode_of(Op::kCmpSwap), IBV_WR_ATOMIC_CMP_AND_SWP);
}

TEST(WorkRequests, EveryWrOfTheListCarriesTheOpcode) {
  Buffers b;
  for (Op op : {Op::kSend, Op::kSendImm, Op::kWrite, Op::kWriteImm, Op::kRead, Op::kFetchAdd,
                Op::kCmpSwap}) {
    SCOPED_TRACE(std::string(to_string(op)));
    WorkRequestSpec s = spec_for(b, op, 64);
    s.post_list = 4;
    QpSlot q;
    build_work_requests(s, q);
    ASSERT_EQ(q.wrs.size(), 4u);
    for (const ibv_send_wr& wr : q.wrs) EXPECT_EQ(wr.opcode, opcode_of(op));
  }
}

TEST(WorkRequests, PostListChainsSendsAndReceives) {
  Buffers b;
  for (uint32_t n : {1u, 2u, 8u}) {
    SCOPED_TRACE(n);
    WorkRequestSpec s = spec_for(b, Op::kSend, 100);
    s.post_list = n;
    s.sge = 2;
    QpSlot q;
    build_work_requests(s, q);
    ASSERT_EQ(q.wrs.size(), n);
    ASSERT_EQ(q.rwrs.size(), n);
    EXPECT_EQ(q.wr, q.wrs.data());
    EXPECT_EQ(q.rwr, q.rwrs.data());
    for (uint32_t k = 0; k < n; ++k) {
      EXPECT_EQ(q.wrs[k].next, k + 1 < n ? &q.wrs[k + 1] : nullptr);
      EXPECT_EQ(q.rwrs[k].next, k + 1 < n ? &q.rwrs[k + 1] : nullptr);
      // Every WR of a list shares the slot's SGEs.
      EXPECT_EQ(q.wrs[k].sg_list, q.sges.data());
      EXPECT_EQ(q.wrs[k].num_sge, 2);
      EXPECT_EQ(q.rwrs[k].sg_list, q.rsges.data());
      EXPECT_EQ(q.rwrs[k].num_sge, 2);
      EXPECT_EQ(q.rwrs[k].wr_id, 3u);  // the QP's index in its worker
    }
  }
}

TEST(WorkRequests, SendSplitsTheMessageOverTheSges) {
  Buffers b;
  for (uint32_t k_sge : {1u, 3u, 4u, 7u}) {
    for (uint64_t size : {1ULL, 5ULL, 1000ULL, 4000ULL}) {
      if (size < k_sge) continue;
      SCOPED_TRACE(std::to_string(k_sge) + " SGEs, " + std::to_string(size) + " B");
      WorkRequestSpec s = spec_for(b, Op::kWrite, size);
      s.sge = k_sge;
      QpSlot q;
      build_work_requests(s, q);
      ASSERT_EQ(q.sges.size(), k_sge);
      uint64_t next = b.tx_addr();  // contiguous pieces from the start of tx
      uint64_t total = 0;
      for (uint32_t k = 0; k < k_sge; ++k) {
        EXPECT_EQ(q.sges[k].addr, b.tx_addr() + sge_piece_offset(size, k_sge, k));
        EXPECT_EQ(q.sges[k].addr, next);
        EXPECT_EQ(q.sges[k].length, sge_piece_length(size, k_sge, k));
        EXPECT_EQ(q.sges[k].lkey, 0x1234u);
        next += q.sges[k].length;
        total += q.sges[k].length;
      }
      EXPECT_EQ(total, size);
      EXPECT_EQ(q.wrs[0].num_sge, static_cast<int>(k_sge));
    }
  }
}

TEST(WorkRequests, ReadsAndAtomicsScatterIntoRx) {
  Buffers b;
  QpSlot q;
  build_work_requests(spec_for(b, Op::kRead, 300), q);
  EXPECT_EQ(q.sges[0].addr, b.rx_addr());
  EXPECT_EQ(q.sges[0].length, 300u);
  for (Op op : {Op::kFetchAdd, Op::kCmpSwap}) {
    build_work_requests(spec_for(b, op, 64), q);  // atomics move 8 bytes whatever the size
    EXPECT_EQ(q.sges[0].addr, b.rx_addr());
    EXPECT_EQ(q.sges[0].length, 8u);
  }
  build_work_requests(spec_for(b, Op::kSend, 300), q);
  EXPECT_EQ(q.sges[0].addr, b.tx_addr());
}

TEST(WorkRequests, RemoteAddressAndKey) {
  Buffers b;
  for (Op op : {Op::kWrite, Op::kWriteImm, Op::kRead}) {
    SCOPED_TRACE(std::string(to_string(op)));
    WorkRequestSpec s = spec_for(b, op, 64);
    s.post_list = 3;
    QpSlot q;
    build_work_requests(s, q);
    for (const ibv_send_wr& wr : q.wrs) {
      EXPECT_EQ(wr.wr.rdma.remote_addr, 0xabcdef000ULL);
      EXPECT_EQ(wr.wr.rdma.rkey, 0x5678u);
    }
  }
}

TEST(WorkRequests, AtomicOperands) {
  Buffers b;
  QpSlot q;
  build_work_requests(spec_for(b, Op::kFetchAdd, 8), q);
  EXPECT_EQ(q.wrs[0].wr.atomic.remote_addr, 0xabcdef000ULL);
  EXPECT_EQ(q.wrs[0].wr.atomic.rkey, 0x5678u);
  EXPECT_EQ(q.wrs[0].wr.atomic.compare_add, kFetchAddStep);
  EXPECT_EQ(q.wrs[0].wr.atomic.swap, 0u);

  build_work_requests(spec_for(b, Op::kCmpSwap, 8), q);
  EXPECT_EQ(q.wrs[0].wr.atomic.remote_addr, 0xabcdef000ULL);
  EXPECT_EQ(q.wrs[0].wr.atomic.rkey, 0x5678u);
  // The target holds kCasPattern, so every compare succeeds and swaps in the same value.
  EXPECT_EQ(q.wrs[0].wr.atomic.compare_add, kCasPattern);
  EXPECT_EQ(q.wrs[0].wr.atomic.swap, kCasPattern);
}

TEST(WorkRequests, ImmediateDataNamesTheQp) {
  Buffers b;
  for (Op op : {Op::kSendImm, Op::kWriteImm}) {
    QpSlot q;
    build_work_requests(spec_for(b, op, 64), q);
    EXPECT_EQ(ntohl(q.wrs[0].imm_data), 0x5eed0003U);
  }
  QpSlot q;
  build_work_requests(spec_for(b, Op::kSend, 64), q);
  EXPECT_EQ(q.wrs[0].imm_data, 0u);
}

TEST(WorkRequests, UdAddressOnceConnected) {
  Buffers b;
  WorkRequestSpec s = spec_for(b, Op::kSend, 64);
  s.qp_type = QpType::kUd;
  s.remote_qpn = 0x42;
  s.post_list = 2;
  QpSlot q;
  build_work_requests(s, q);  // no AH yet: no UD fields
  EXPECT_EQ(q.wrs[0].wr.ud.ah, nullptr);
  EXPECT_EQ(q.wrs[0].wr.ud.remote_qpn, 0u);

  alignas(8) unsigned char fake_ah[sizeof(ibv_ah)] = {};  // never dereferenced
  s.ah = reinterpret_cast<ibv_ah*>(fake_ah);
  build_work_requests(s, q);
  for (const ibv_send_wr& wr : q.wrs) {
    EXPECT_EQ(wr.wr.ud.ah, s.ah);
    EXPECT_EQ(wr.wr.ud.remote_qpn, 0x42u);
    EXPECT_EQ(wr.wr.ud.remote_qkey, kUdQkey);
  }
}

TEST(WorkRequests, ReceivesCoverTheRegionInTheSendersPieces) {
  Buffers b;
  for (QpType t : {QpType::kRc, QpType::kUd}) {
    for (uint32_t k_sge : {1u, 3u}) {
      SCOPED_TRACE(std::string(to_string(t)) + ", " + std::to_string(k_sge) + " SGEs");
      WorkRequestSpec s = spec_for(b, Op::kSend, 1000);
      s.qp_type = t;
      s.sge = k_sge;
      QpSlot q;
      build_work_requests(s, q);
      const uint64_t grh = t == QpType::kUd ? kUdGrh : 0;
      ASSERT_EQ(q.rsges.size(), k_sge);
      uint64_t next = b.rx_addr();
      for (uint32_t k = 0; k < k_sge; ++k) {
        EXPECT_EQ(q.rsges[k].addr, next);  // contiguous from the start of rx
        EXPECT_EQ(q.rsges[k].lkey, 0x1234u);
        // The first piece holds the GRH (UD) and the sender's first piece; the others match
        // the sender's.
        if (k == 0 && k_sge > 1) {
          EXPECT_EQ(q.rsges[k].length, grh + sge_piece_length(1000, k_sge, 0));
        }
        if (k > 0 && k + 1 < k_sge) {
          EXPECT_EQ(q.rsges[k].length, sge_piece_length(1000, k_sge, k));
        }
        next += q.rsges[k].length;
      }
      EXPECT_EQ(next, b.rx_addr() + kRegion);  // the last piece runs to the end of the region
    }
  }
}

TEST(WorkRequests, EmptyMessageHasNoSges) {
  Buffers b;
  WorkRequestSpec s = spec_for(b, Op::kWrite, 0);
  s.post_list = 2;
  QpSlot q;
  build_work_requests(s, q);
  for (const ibv_send_wr& wr : q.wrs) EXPECT_EQ(wr.num_sge, 0);
  EXPECT_EQ(q.rx_last, reinterpret_cast<volatile uint8_t*>(b.rx()));
  EXPECT_EQ(q.tx_last, reinterpret_cast<uint8_t*>(b.tx()));
}

TEST(WorkRequests, LastBytesForWriteLatency) {
  Buffers b;
  QpSlot q;
  build_work_requests(spec_for(b, Op::kWrite, 100), q);
  EXPECT_EQ(q.rx_last, reinterpret_cast<volatile uint8_t*>(b.rx() + 99));
  EXPECT_EQ(q.tx_last, reinterpret_cast<uint8_t*>(b.tx() + 99));
}

TEST(WorkRequests, RebuildingForANewSizeKeepsNoStaleState) {
  Buffers b;
  WorkRequestSpec s = spec_for(b, Op::kWrite, 4000);
  s.post_list = 4;
  s.sge = 2;
  QpSlot q;
  build_work_requests(s, q);
  q.wrs[3].next = nullptr;  // what a datapath may leave behind
  q.wrs[0].send_flags = IBV_SEND_SIGNALED;
  s.size = 10;
  s.post_list = 2;
  build_work_requests(s, q);
  ASSERT_EQ(q.wrs.size(), 2u);
  EXPECT_EQ(q.wrs[0].next, &q.wrs[1]);
  EXPECT_EQ(q.wrs[0].send_flags, 0u);
  EXPECT_EQ(q.sges[0].length + q.sges[1].length, 10u);
}

TEST(WorkRequests, InlineFlag) {
  // Non-empty messages up to the inline size are sent inline, never reads or atomics.
  EXPECT_EQ(base_send_flags(Op::kWrite, 64, 64), unsigned{IBV_SEND_INLINE});
  EXPECT_EQ(base_send_flags(Op::kSend, 1, 220), unsigned{IBV_SEND_INLINE});
  EXPECT_EQ(base_send_flags(Op::kSendImm, 64, 64), unsigned{IBV_SEND_INLINE});
  EXPECT_EQ(base_send_flags(Op::kWriteImm, 64, 64), unsigned{IBV_SEND_INLINE});
  EXPECT_EQ(base_send_flags(Op::kWrite, 65, 64), 0u);
  EXPECT_EQ(base_send_flags(Op::kWrite, 0, 64), 0u);
  EXPECT_EQ(base_send_flags(Op::kWrite, 8, 0), 0u);
  EXPECT_EQ(base_send_flags(Op::kRead, 8, 64), 0u);
  EXPECT_EQ(base_send_flags(Op::kFetchAdd, 8, 64), 0u);
  EXPECT_EQ(base_send_flags(Op::kCmpSwap, 8, 64), 0u);
}

}  // namespace
}  // namespace rdmabench
