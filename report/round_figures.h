#pragma once
// Figures of a fabric campaign's round records (issue 18; orchestrator/fabric/round_summary.h): how
// the load spread over the hosts when several flows shared one.
//  - "host_traffic" (one per incast or all-to-all round, "host_traffic_2", ...): each host's
//    in and out Gb/s in that round, side by side, at the round's largest size;
//  - "incast_fairness" (one per workload combination): Jain's fairness index of an incast
//    round's flows against its degree (clients per target), a series per target;
//  - "incast_probe_p99" (one per load combination with latency probes, fabric_probes.h): the
//    worst probe p99 into each target against the degree, the probes' idle p99 at degree 0;
//  - "probe_p99_load" (one per load combination with probes, any pattern): each probe's p99
//    against its round's load (the round's total Gb/s at its largest size), idle ones at 0.
// Rounds split by the per-host cap ("... part 1/2") are left out: their flows did not all run
// at once. Latency-mode rounds carry no per-host rates and give no figure. The records are
// model/round_record.h's, checked where the folder is read (a malformed one is left out there,
// with a note).
#include <nlohmann/json.hpp>
#include <vector>

#include "model/round_record.h"
#include "report/figures.h"

namespace rdmabench {

// At most this many host_traffic figures (the first rounds); the rest are noted, not drawn.
inline constexpr size_t kMaxHostTrafficFigures = 12;

std::vector<Figure> round_figures(const std::vector<RoundRecord>& round_records,
                                  const std::string& format, std::ostream& notes);

}  // namespace rdmabench
