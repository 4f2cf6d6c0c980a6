#pragma once
// What one side tells the other about its endpoints during setup (the "endpoints" message): its
// port's LID and GID, active MTU, read/atomic depth, and per QP its number, PSN and receive
// region (address, rkey, length). Parsed defensively: it comes from the network.
#include <infiniband/verbs.h>

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace rdmabench {

struct QpInfo {
  uint32_t qpn = 0;
  uint32_t psn = 0;
  uint64_t addr = 0;  // rx region
  uint32_t rkey = 0;
  uint64_t len = 0;
  // Receive credits (recv_credits.h), when the session uses them: the word of this QP's credit
  // group that the peer RDMA-writes its re-posted count into. 0/0 without credits.
  uint64_t credit_addr = 0;
  uint32_t credit_rkey = 0;
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

// A GID as SideInfo carries it (32 lowercase hex digits), and back (PeerError when malformed).
std::string gid_hex(const ibv_gid& g);
ibv_gid gid_from_hex(const std::string& s);

}  // namespace rdmabench
