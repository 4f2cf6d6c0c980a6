#pragma once
// The rule of `rdmabench check --fabric` (docs/health-checks.md) that turns
// per-link results into a host's verdict. Every host of the ring is an end of two links (the one
// it sends on and the one it serves); a failed link implicates both of its ends, so one failed
// link alone blames neither. A host FAILs when one of its own expectations (port, GID, firmware)
// failed, or when every link it is an end of failed: one bad host fails both its links, while
// its neighbours keep a link that passes. With two hosts both ends share both links, so one bad
// host fails them both (two hosts cannot tell which is to blame).
#include <cstddef>
#include <string>
#include <vector>

namespace rdmabench {

struct CheckedLink {
  size_t client = 0, server = 0;  // host indices
  std::string name;               // "A -> B"
  bool failed = false;
};

struct HostVerdict {
  bool pass = true;
  std::string why;  // "" when it passes with every link
};

// One verdict per host (`own_failed[h]`: one of host h's own expectations failed).
std::vector<HostVerdict> host_verdicts(const std::vector<bool>& own_failed,
                                       const std::vector<CheckedLink>& links);

}  // namespace rdmabench
