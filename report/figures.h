#pragma once
// The figures of `rdmabench plot`: for each, its data file and its gnuplot script (filled from
// the templates in plots/*.gp.in).
#include <cstdint>
#include <iosfwd>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "model/hunt_record.h"
#include "model/round_record.h"
#include "report/results_set.h"

namespace rdmabench {

struct Figure {
  std::string name;    // files NAME.dat, NAME.gp and the image NAME.<format>
  std::string data;    // contents of NAME.dat
  std::string script;  // contents of NAME.gp: renders NAME.<format>, the data inlined
};

struct FigureOptions {
  std::string format = "png";     // png, svg or pdf
  std::string group_by;           // a series field, "" = automatic
  std::optional<uint64_t> point;  // message size of the latency CDF and histogram; default smallest
  // A fabric's verdicts, marked in its link matrix: (matrix values text, "client -> server") ->
  // verdict (link_matrix.h; from the campaign folder's verdicts record).
  std::map<std::pair<std::string, std::string>, std::string> link_marks;
  // A fabric's {"record": "round"} lines (the campaign folder's index.jsonl): host traffic and
  // incast fairness figures (round_figures.h).
  std::vector<RoundRecord> round_records;
  // Hunts' records (model/hunt_record.h): the score over each hunt, each anomaly's resets
  // (hunt_figures.h).
  std::vector<HuntRecord> hunts;
};

// The contents of a gnuplot double-quoted string holding `s` (backslashes and quotes escaped).
std::string gnuplot_string(const std::string& s);

// gnuplot's terminal line for `format` (960x540, or 720x680 for a square figure).
std::string figure_terminal(const std::string& format, bool square = false);

// A figure NAME from the template plots/TEMPLATE.gp.in with `data` (NAME.dat's text) inlined:
// fills NAME, EXT, OUTPUT, TERMINAL, COMMON and DATA, then `values` (the template's own).
Figure template_figure(const std::string& name, std::string_view templ, std::string data,
                       const std::string& format, bool square,
                       std::map<std::string, std::string> values);

// Throws ConfigError("--format", format, ...) unless png, svg or pdf.
void check_image_format(const std::string& format);

// Bandwidth-mode documents give "bandwidth" (Gb/s; both directions added for --bidir; a dashed
// line at each distinct link rate the documents report: link_rate.h) and
// "msgrate" (Mmsg/s); latency-mode documents give "latency" (p50, p99, p99.9), "latency_cdf" and
// "latency_hist" (of the --point size); documents with intervals (--interval) "bandwidth_time"
// and "latency_time" (interval_figures.h); a fabric campaign's flows give "link_matrix" (one per
// workload combination: link_matrix.h), its round records "host_traffic" and "incast_fairness"
// (round_figures.h). Repetitions give the median with min-max error bars.
// Sizes that failed are left out with a note on `notes`. Throws ConfigError for a bad format,
// --group-by or --point.
std::vector<Figure> make_figures(const std::vector<ResultFile>& runs, const FigureOptions& opt,
                                 std::ostream& notes);

}  // namespace rdmabench
