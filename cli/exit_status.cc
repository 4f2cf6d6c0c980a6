#include "cli/exit_status.h"

#include "orchestrator/sweep.h"

static_assert(rdmabench::kExitBadLink == rdmabench::kSweepBadLink);

namespace rdmabench {

int exit_status(RunResult::Failure f) noexcept {
  switch (f) {
    case RunResult::Failure::kNone:
      return kExitOk;
    case RunResult::Failure::kBadInput:
      return kExitBadInput;
    case RunResult::Failure::kRefused:
      return kExitRefused;
    case RunResult::Failure::kTimeout:
      return kExitTimeout;
    case RunResult::Failure::kBusy:
      return kExitBusy;
    case RunResult::Failure::kFailed:
      break;
  }
  return kExitFailed;
}

std::string exit_status_help() {
  return "Exit status:\n"
         "  0    success\n"
         "  1    the run failed (a completion error, the peer failed, a lost connection; compare:"
         " a regression)\n"
         "  2    bad input: command line, config or workload, or one this host's device cannot"
         " run (refused before anything is created)\n"
         "  3    the server refused: token, or a workload its device cannot run\n"
         "  4    timeout: the peer or the completions stopped answering\n"
         "  5    the server is busy (all the sessions it may serve are running)\n"
         "  6    sweep: every point ran, but a fabric link was judged bad (its verdicts in"
         " index.jsonl)\n"
         "  130  interrupted (SIGINT)\n";
}

}  // namespace rdmabench
