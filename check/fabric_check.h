#pragma once
// `rdmabench check --fabric CAMPAIGN`: the check over a fabric, through the campaign machinery
// (docs/health-checks.md). The campaign's hosts, launcher and agents run a ring
// (each host sends to the next and serves the one before it: every host is an end of two links),
// one sweep per traffic group into --out; each host's port facts come from its agent's hello
// (its env file), each link's figures from its flow's result. A host's verdict comes from its own
// expectations and its links by model/check_host_verdict.h's rule (FAIL when its own fail or
// every link it is an end of failed).
// The check FAILs (exit 8) when a host or a link fails.
#include <atomic>
#include <iosfwd>
#include <vector>

#include "check/check_request.h"

namespace rdmabench {

// Lines on `out`, the sweeps' own output on `err`, --json "-" on `doc_out`. ConfigError for
// options that do not go with --fabric (--peer, --loopback, -d/-i/-x, PCIe expectations: a
// host's own sysfs) or a campaign without a fabric.
CheckEnd run_fabric_check(const CheckRequest& a, std::ostream& out, std::ostream& doc_out,
                          std::ostream& err, const std::atomic<bool>& stop);

}  // namespace rdmabench
