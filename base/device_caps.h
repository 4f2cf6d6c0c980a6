#pragma once
// A device's own limits, as ibv_query_device reports them (the inline size probed): held once, in
// the engine's device description (verbs/device.h DeviceInfo) and in what the model checks a
// workload against (model/workload.h DeviceLimits). No verbs here.
#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>

namespace rdmabench {

struct DeviceCaps {
  std::string name;
  std::string transport;         // "InfiniBand", "iWARP", ...
  std::string atomic_cap;        // "none", "hca", "global"
  uint32_t max_inline_data = 0;  // probed: the largest inline size a QP can be created with
  int max_qp = 0;
  int max_qp_wr = 0;
  int max_sge = 0;
  int max_cqe = 0;
  int max_srq_wr = 0;
  uint64_t max_mr_size = 0;
  // Limits of the engine knobs (0 = not reported; then not checked).
  int max_sge_rd = 0;
  int max_srq_sge = 0;
  int max_qp_rd_atom = 0;
  int max_qp_init_rd_atom = 0;
  int max_cq = 0;
};

// Its fields under their own names (a device description in a result, `devices --json`).
void to_json(nlohmann::json& j, const DeviceCaps& c);

}  // namespace rdmabench
