#pragma once
// A fabric's link matrix (issue 18): a heat map of every link a fabric campaign measured, server
// by client, one figure per workload combination of its flows (result documents whose "point"
// has a "fabric" object). A cell is the link's best figure over its repetitions and rounds: Gb/s
// at the combination's largest size in bandwidth mode, p50 latency (µs) at its smallest size in
// latency mode. Links the sweep's verdicts call bad, lossy, congested or failed are marked in
// their cell; a link that was not measured is blank. Beside it, when a link of the combination
// lost packets, the same matrix of the links' loss figures ("link_loss": gaps per million
// packets from the counters, model/counter_keys.h; links whose deltas were shared are blank).
// A campaign with latency probes (orchestrator/fabric/fabric_probes.h) has, instead of matrices
// of the probes' own figures, "link_probe_ratio": each probed link's worst p99 beside the load
// over its idle p99, links the verdicts call slow under load marked SLOW.
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "model/verdict_record.h"
#include "report/figures.h"
#include "report/results_set.h"

namespace rdmabench {

// (the combination's matrix values as canonical JSON text, link "client -> server") -> the
// link's worst verdict at any size of that combination; the probes' verdicts under ("probes",
// link).
using LinkMarks = std::map<std::pair<std::string, std::string>, std::string>;

// The marks of a verdicts record (its links and probes not ok).
LinkMarks link_marks(const VerdictsRecord& verdicts_record);

// The matrices of the fabric flows among `runs` ("link_matrix", "link_matrix_2", ...); none
// without fabric documents.
std::vector<Figure> link_matrix_figures(const std::vector<ResultFile>& runs, const LinkMarks& marks,
                                        const std::string& format);

// Host names in natural order: "h2" before "h10".
bool natural_less(const std::string& a, const std::string& b);

}  // namespace rdmabench
