#pragma once
// The expectations of a check: -e's, then --expect-file's (one a line, blank lines and #
// comments skipped), then --baseline's (an earlier check's --json document, or result documents:
// each figure within --tolerance), and the defaults, the port ACTIVE and a usable GID, unless
// given. The text of each is model/check_expectation.h's.
#include <vector>

#include "check/check_request.h"
#include "model/check_expectation.h"

namespace rdmabench {

// ConfigError naming the option for bad text, an unreadable file or baseline.
std::vector<CheckExpectation> check_expectations(const CheckRequest& a);

}  // namespace rdmabench
