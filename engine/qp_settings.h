#pragma once
// The QP settings of a workload (traffic class, service level, flow label, hop limit, P_Key,
// RC timers, GID kind) against one side's device: which GID the side uses, whether the port and
// the connection method can carry the settings, what rdma_cm is given, and what the device
// applied (from ibv_query_qp). Setup path only.
#include <infiniband/verbs.h>

#include <nlohmann/json.hpp>
#include <string>

#include "engine/cm_connection.h"
#include "model/workload.h"
#include "verbs/device.h"

namespace rdmabench {

// The GID index a side uses: `gid_index` when >= 0, else the entry whose GID or IPv4 address is
// `gid_text` when not empty (-x fe80::1, -x ::ffff:10.0.0.1, -x 10.0.0.1), else the port's
// automatic choice for `type` (auto_gid_index). An explicit GID of another kind than an explicit
// --gid-type is refused, naming both.
uint32_t choose_gid_index(const PortInfo& port, int gid_index, const std::string& gid_text,
                          const std::string& prefer_ipv4, GidType type);

// Refuses settings the side cannot apply, each naming its option: a P_Key index outside the
// port's table (or an empty entry), and with rdma_cm (which takes them from the route and the CM
// exchange) a service level, flow label, hop limit, P_Key index or RNR timer other than the
// default; on iWARP (`iwarp`: TCP retransmits) also RC timers other than the default.
void check_qp_settings(const Workload& w, ibv_context* ctx, const PortInfo& port,
                       ConnectMethod connect, bool iwarp);

CmSettings cm_settings(const Workload& w);

// What the device applied to `qp`, from ibv_query_qp: the address vector's SL, traffic class,
// flow label and hop limit (from `ud_ah` for UD, whose QP has no address vector), the P_Key
// index and the RC timers; and `not_as_asked`, each setting of `w` the device holds another value
// of (e.g. {"hop_limit": {"asked": 32, "applied": 64}}: on RoCE the kernel takes the hop limit
// from the IP route; rdma_cm chooses the flow label).
// On iWARP only the TOS is the workload's (given to rdma_cm): {"transport": "iWARP", "note"}.
nlohmann::json applied_qp_settings(ibv_qp* qp, const Workload& w, const ibv_ah_attr* ud_ah,
                                   bool iwarp);

}  // namespace rdmabench
