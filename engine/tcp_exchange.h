#pragma once
// Connection by the TCP exchange: each side creates its QPs (RESET -> INIT), describes them to
// the peer over the control channel (SessionResources::local_side), and with the peer's description
// moves them to RTR and RTS (UD: creates the address handle of the peer QP instead). Setup path
// only.
#include <infiniband/verbs.h>

#include <cstdint>

#include "engine/queue_pairs.h"
#include "engine/side_info.h"
#include "model/workload.h"

namespace rdmabench {

// Creates every QP of `qps` and moves it to INIT on `port` with the P_Key of `pkey_index`
// (`remote_access`: the access flags the peer's operations need; UD QPs get the Q_Key instead).
void create_exchange_qps(QueuePairs& qps, uint32_t port, uint32_t pkey_index, int remote_access);

// How to reach the peer and what the QPs may do once connected.
struct PeerPath {
  ibv_ah_attr ah{};  // the peer's port (peer_ah_attr)
  ibv_mtu mtu = IBV_MTU_1024;
  int max_rd_atomic = 1;   // reads/atomics this side accepts (RTR max_dest_rd_atomic)
  int peer_rd_atomic = 1;  // and the peer accepts (RTS max_rd_atomic: the smaller of the two)
  // RC timers (Workload's qp_timeout, retry_count, rnr_retry, min_rnr_timer).
  uint8_t timeout = 14;
  uint8_t retry_cnt = 7;
  uint8_t rnr_retry = 7;
  uint8_t min_rnr_timer = 12;
};
// The address of the peer's port: its LID and the workload's service level, and on Ethernet
// (without a LID, or when the workload asks for a traffic class, flow label or hop limit other
// than the defaults) a GRH to its GID from our GID `gid_index` carrying them.
ibv_ah_attr peer_ah_attr(const SideInfo& remote, uint32_t port, bool ethernet, uint32_t gid_index,
                         const Workload& w);
// The RC timers of `w` into `path`.
void set_path_timers(PeerPath& path, const Workload& w);

// Moves every QP to RTR and RTS towards its peer QP (QueuePairs' `remote`, set before); UD: to
// RTS, and creates the AH of the peer.
void connect_exchange_qps(QueuePairs& qps, const PeerPath& path);

}  // namespace rdmabench
