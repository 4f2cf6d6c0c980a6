#pragma once
// A hunt's side of a sweep (hunt_driver.h starts it, hunter.h decides, this runs): each evaluation
// the Hunter asks is a point of its own, made as the hunt goes — its id "e0007-<the point's id>"
// (the point id of its values, the step's name in its identity), its result document and index
// line like any other point's, and "hunt": {"evaluation", "step", "factor"} in the document's
// "point". --resume replays: an evaluation whose id is done is read back from its document (the
// same seed and measurements give the same steps), not run again. After the last, the "hunt"
// record goes to the index (model/hunt_record.h) and the summary lists each anomaly with the
// commands that reproduce it.
#include <memory>

#include "orchestrator/hunt/hunt_spec.h"
#include "orchestrator/run/campaign_run.h"

namespace rdmabench {

// `spec` outlives the run (the campaign's driver holds it).
std::shared_ptr<CampaignRun> hunt_run(const RunSetup& setup, const HuntSpec& spec);

}  // namespace rdmabench
