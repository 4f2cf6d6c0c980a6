#include "base/device_caps.h"

#include <nlohmann/json.hpp>

namespace rdmabench {

void to_json(nlohmann::json& j, const DeviceCaps& c) {
  j = {{"name", c.name},
       {"transport", c.transport},
       {"atomic_cap", c.atomic_cap},
       {"max_inline_data", c.max_inline_data},
       {"max_qp", c.max_qp},
       {"max_qp_wr", c.max_qp_wr},
       {"max_sge", c.max_sge},
       {"max_cqe", c.max_cqe},
       {"max_srq_wr", c.max_srq_wr},
       {"max_mr_size", c.max_mr_size},
       {"max_sge_rd", c.max_sge_rd},
       {"max_srq_sge", c.max_srq_sge},
       {"max_qp_rd_atom", c.max_qp_rd_atom},
       {"max_qp_init_rd_atom", c.max_qp_init_rd_atom},
       {"max_cq", c.max_cq}};
}

}  // namespace rdmabench
