#pragma once
// Figures of a hunt's record (model/hunt_record.h, docs/hunting.md):
//  - "hunt_scores" (one per hunt): each evaluation's worst term ratio (log scale, 1 = anomalous)
//    by step (search, repeat, reset, confirm), each anomaly marked where it was found;
//  - "anomaly_resets" (one per anomaly, "anomaly_resets_2", ...): the worst ratio where it was
//    found, with each factor set back in turn, and at its confirmation — the factors whose reset
//    falls below 1 are its trigger.
#include <iosfwd>
#include <string>
#include <vector>

#include "model/hunt_record.h"
#include "report/figures.h"

namespace rdmabench {

std::vector<Figure> hunt_figures(const std::vector<HuntRecord>& hunts, const std::string& format);

}  // namespace rdmabench
