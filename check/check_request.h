#pragma once
// What `rdmabench check` is asked to do (docs/health-checks.md), as the command line gave it:
// cli/cmd_check.cc fills it from its options and prints nothing of its own; this library
// (node_check.h, fabric_check.h) checks, prints the lines and writes --json. Numbers stay the
// text typed, so that an error names the option and the value as given.
#include <optional>
#include <string>
#include <vector>

#include "engine/session_resources.h"
#include "model/result.h"

namespace rdmabench {

struct CheckRequest {
  LocalSettings local;               // -d, -i, -x (applied)
  bool local_options_given = false;  // -d, -i or -x was given (refused with --fabric)
  std::vector<std::string> expect;   // -e, in order
  std::string expect_file;
  std::string baseline;
  std::optional<std::string> tolerance;  // percent
  std::string peer;
  bool loopback = false;
  std::optional<std::string> port;
  std::string token;
  std::optional<std::string> duration;  // seconds
  std::optional<std::string> max_time;  // seconds
  std::string json_file;                // "" none, "-" standard output
  std::string fabric;                   // --fabric CAMPAIGN (fabric_check.h)
  std::string out_dir;                  // --out: where its sweeps write (default out/check-NAME)
};

// How a check ended; cli/exit_status.h makes it the exit status (0, 8, a run's own, 130).
struct CheckEnd {
  size_t failed = 0;  // expectations (or, over a fabric, hosts and links) that failed
  // The first workload that could not run at all (not reached, refused): its failure.
  std::optional<RunResult::Failure> not_run;
  bool interrupted = false;
};

}  // namespace rdmabench
