#pragma once
// What `rdmabench export --junit` and `--prometheus` read (docs/health-checks.md): every workload
// point of the inputs with its status, and its result document when it has one. A sweep's folder
// (it has an index.jsonl) gives one point per point of its index, the last line counting (ok,
// failed with the reason, skipped with the reason), and its fabric verdicts; any other result
// document is a point of its own (a hunt's folder: its hunt record, whose anomalies the JUnit
// export writes instead of its evaluations), failed when its run or one of its sizes failed. A
// check's document (`rdmabench check --json`, named as a file) gives one point per expectation,
// failed when it failed, and its verdict. A comparison (`rdmabench compare --json`, named as a
// file) gives one point per compared figure, failed when it is a regression, and one skipped point
// per figure not compared.
#include <deque>
#include <iosfwd>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "model/hunt_record.h"
#include "model/verdict_record.h"
#include "report/results_set.h"

namespace rdmabench {

struct ExportPoint {
  std::string name;    // the point id, or the document's file name
  std::string suite;   // the campaign's name (or its folder's), or "results"
  std::string status;  // "ok", "failed" or "skipped"
  std::string error;   // why it failed or was skipped
  double duration_s = 0;
  std::string host_pair;                 // "" when the point has none
  const ResultFile* document = nullptr;  // its result document, when it has one
};

// A check document's verdict and expectations (results/SCHEMA.md "The check document").
struct ExportCheck {
  std::string host;
  std::string device;
  std::string port;
  bool pass = false;
  nlohmann::json expectations;  // the document's expectations[]
};

struct ExportSet {
  std::deque<ResultFile> documents;  // a deque: the points point into it as it grows
  std::vector<ExportPoint> points;
  std::vector<std::pair<std::string, VerdictsRecord>> verdicts;  // suite, its last verdicts record
  std::vector<std::pair<std::string, HuntRecord>>
      hunts;  // suite, its hunt record (a hunt's folder)
  std::vector<ExportCheck> checks;
};

// Loads DIR or FILE arguments in order. Throws ConfigError when a path does not exist, or holds
// neither a result document nor an index.
ExportSet load_export_set(const std::vector<std::string>& inputs, std::ostream& notes);

}  // namespace rdmabench
