#include "cli/exit_status.h"

#include <algorithm>
#include <cstdio>

#include "orchestrator/sweep/sweep.h"

static_assert(rdmabench::kExitBadLink == rdmabench::kSweepBadLink);

namespace rdmabench {

int check_exit_status(const CheckEnd& e) noexcept {
  if (e.interrupted) return kExitInterrupted;
  if (e.not_run) return exit_status(*e.not_run);
  return e.failed == 0 ? kExitOk : kExitCheckFailed;
}

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

std::string below_min_rate(const RunResult& r, double min_gbps) {
  std::string out;
  for (const SizeResult& s : r.results) {
    if (!s.bw_min_gbps || *s.bw_min_gbps >= min_gbps) continue;
    // The intervals below among those kept (the aggregates cover all, kept or not), by the
    // same rule: those at least half the asked length, or all when none is.
    auto full = [&s](const IntervalResult& iv) { return iv.seconds >= s.interval_s / 2; };
    const bool any_full = std::any_of(s.intervals.begin(), s.intervals.end(), full);
    size_t below = 0;
    const IntervalResult* low = nullptr;
    for (const IntervalResult& iv : s.intervals)
      if (iv.gbps < min_gbps && (full(iv) || !any_full)) {
        ++below;
        if (low == nullptr || iv.gbps < low->gbps) low = &iv;
      }
    char text[256];
    if (low != nullptr)
      std::snprintf(text, sizeof text,
                    "size %llu: %zu interval(s) below --min-gbps %g, the lowest %.3f Gb/s at "
                    "+%.1f s (%.2f s long)",
                    static_cast<unsigned long long>(s.size), below, min_gbps, low->gbps,
                    low->offset_s, low->seconds);
    else
      std::snprintf(text, sizeof text,
                    "size %llu: an interval ran at %.3f Gb/s, below --min-gbps %g",
                    static_cast<unsigned long long>(s.size), *s.bw_min_gbps, min_gbps);
    out += (out.empty() ? "" : "; ") + std::string(text);
  }
  return out;
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
         "  6    sweep: every point ran, but a fabric link was judged bad, or lossy by its\n"
         "       counters (its verdicts in index.jsonl)\n"
         "  7    client --min-gbps: an interval's rate fell below it (the results are whole)\n"
         "  8    check: an expectation failed (every expectation's line says which)\n"
         "  130  interrupted (SIGINT)\n";
}

}  // namespace rdmabench
