#pragma once
// rdmabench's exit statuses: one table, printed by --help (exit_status_help) and listed in the
// docs/single-pair.md ("Exit status"); the client's failure kinds map onto it.
#include <string>

#include "check/check_request.h"
#include "model/result.h"

namespace rdmabench {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailed = 1;         // the run failed (or compare found a regression)
inline constexpr int kExitBadInput = 2;       // bad command line, config or workload; refused by
                                              // this host's own device before anything started
inline constexpr int kExitRefused = 3;        // the server refused: token, workload, its device
inline constexpr int kExitTimeout = 4;        // the peer or the completions stopped answering
inline constexpr int kExitBusy = 5;           // the server serves all the sessions it may
inline constexpr int kExitBadLink = 6;        // sweep: every point ran, a fabric link is bad
inline constexpr int kExitBelowMinRate = 7;   // client --min-gbps: an interval ran below it
inline constexpr int kExitCheckFailed = 8;    // check: an expectation failed
inline constexpr int kExitInterrupted = 130;  // SIGINT (the shell's 128 + 2)

int exit_status(RunResult::Failure f) noexcept;
// A check's end: interrupted 130, a workload that could not run its own status, else 8 when
// anything failed, 0 when all held.
int check_exit_status(const CheckEnd& e) noexcept;
// client --min-gbps: "" when no interval of the run fell below `min_gbps` (the rule of
// SizeResult::bw_min_gbps), else what fell below, for the message.
std::string below_min_rate(const RunResult& r, double min_gbps);
// The table as --help shows it.
std::string exit_status_help();

}  // namespace rdmabench
