#pragma once
// The report's "Anomalies" section: for each hunt (model/hunt_record.h, docs/hunting.md), its
// anomalies — the trigger, the terms that fired, where it was found and seen again, the
// confirmation, each factor's reset and the commands that reproduce it — then how many
// candidates were not repeated or not confirmed. Nothing when no input holds a hunt.
#include <string>
#include <vector>

#include "model/hunt_record.h"

namespace rdmabench {

void anomalies_section(std::string& html, const std::vector<HuntRecord>& hunts);

}  // namespace rdmabench
