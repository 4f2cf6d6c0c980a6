#pragma once
// The check of this host's port and its link (docs/health-checks.md): the port's facts first (no
// traffic), then short workloads against a peer's running server (--peer) or a server of its own
// on this host (--loopback), each size's duration shrunk to fit --max-time; every figure judged
// by an expectation (model/check_expectation.h); one line each and a verdict line on `lines`,
// and --json (atomically; "-": on `doc_out`).
#include <ostream>

#include "check/check_request.h"

namespace rdmabench {

// ConfigError for bad input; a device that cannot be opened throws as the engine does.
CheckEnd run_node_check(const CheckRequest& a, std::ostream& lines, std::ostream& doc_out);

}  // namespace rdmabench
