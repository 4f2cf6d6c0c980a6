#pragma once
// --resume: which points of a campaign an earlier sweep into the same folder already finished,
// from its index (model/campaign_index.h) and the result files beside it.
#include <map>
#include <set>
#include <string>
#include <vector>

#include "model/campaign_index.h"

namespace rdmabench {

// A point is done when its result file exists and its last index status is ok.
// `ids`: the campaign's point ids; `existing_results`: the ids whose DIR/<id>.json exists.
// Returns the ids to skip as done.
std::set<std::string> done_points(const std::vector<std::string>& ids,
                                  const std::map<std::string, IndexEntry>& index,
                                  const std::set<std::string>& existing_results);

}  // namespace rdmabench
