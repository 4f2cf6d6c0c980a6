#pragma once
// The pieces every figure of series (report/grouping.h) shares: its title, its axis and legend
// texts, the data file's header and block comments, and filling a template with the series
// names (figures.cc: the figures vs message size; interval_figures.cc: the figures over time).
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "report/data_table.h"
#include "report/figures.h"
#include "report/grouping.h"

namespace rdmabench {

using FigureRuns = std::vector<const ResultFile*>;

// The texts of a figure besides its data.
struct FigureLabels {
  std::string title;
  std::string key_title;
  std::string xlabel;
  std::string ylabel;
  std::string xtics;   // gnuplot tic list for message sizes
  std::string xrange;  // "lo:hi"
  bool errorbars = false;
};

std::string join_text(const std::vector<std::string>& parts, const std::string& sep);

// A message size for titles and legends: "64 B", "4KiB".
std::string size_label(uint64_t size);

// "WHAT — CONTEXT", CONTEXT being what all `runs` share among op, QP type, device and transport
// ("write, RC, rxe0 (RoCE v2)"); WHAT alone when they share none of them.
std::string figure_heading(const std::string& what, const FigureRuns& runs);

// The latency axis label: half round trip, round trip, or both kinds among the runs.
std::string latency_label(const FigureRuns& runs);

// A data block's comment: "LABEL (N documents)".
std::string block_comment(const Series& s);

// The comment lines heading NAME.dat: what the figure is, its series key, `how` and `columns`.
std::vector<std::string> data_header(const std::string& name, const FigureLabels& l,
                                     const std::string& how, const std::string& columns);

// The figure NAME from the template plots/TEMPLATE.gp.in, one legend entry per `series` (in
// the order of the table's blocks): fills NSERIES, SERIES, ERRORBARS, TITLE, KEYTITLE, XLABEL,
// YLABEL, XTICS and XRANGE from `l`, then `values` (the template's own).
Figure series_figure(const std::string& name, std::string_view templ, const DataTable& table,
                     const std::vector<std::string>& series, const FigureLabels& l,
                     const std::string& format, std::map<std::string, std::string> values = {});

}  // namespace rdmabench
