#include "report/interval_figures.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <ostream>
#include <set>
#include <string_view>
#include <utility>

#include "model/counter_keys.h"
#include "report/link_rate.h"

namespace rdmabench {
namespace {

// One line of a figure over time: a document's intervals at one size.
struct Line {
  std::string label;  // "write 64KiB", "write 64KiB (run 2)" for the repetitions of a series
  std::string comment;
  const SizeResult* size = nullptr;  // its intervals, interval_s, ...
};

// The lines of `g`: per series, size (ascending) and document, for the sizes that succeeded
// and have intervals; at most kMaxIntervalLines (the rest are noted).
std::vector<Line> lines_of(const Grouping& g, const std::string& name, std::ostream& notes) {
  std::vector<Line> out;
  size_t all = 0;
  for (const auto& s : g.series) {
    std::map<uint64_t, std::vector<std::pair<const ResultFile*, const SizeResult*>>> by_size;
    for (const auto* r : s.runs)
      for (const auto& sr : r->run.results)
        if (sr.error.empty() && !sr.intervals.empty()) by_size[sr.size].emplace_back(r, &sr);
    for (const auto& [size, docs] : by_size)
      for (size_t k = 0; k < docs.size(); ++k) {
        if (++all > kMaxIntervalLines) continue;
        std::string label = (s.label.empty() ? "" : s.label + " ") + size_label(size);
        if (docs.size() > 1) label += " (run " + std::to_string(k + 1) + ")";
        out.push_back({label, label + " (" + docs[k].first->path + ")", docs[k].second});
      }
  }
  if (all > kMaxIntervalLines)
    notes << "rdmabench: note: " << name << ": drawn for the first " << kMaxIntervalLines << " of "
          << all << " series, sizes and documents with intervals\n";
  return out;
}

double middle(const IntervalResult& s) { return s.offset_s + s.seconds / 2; }

double us_or_nan(const std::optional<double>& ns, uint64_t ops) {
  return ns && ops > 0 ? *ns / 1000 : std::nan("");
}

// The figure's title: "WHAT per 1 s interval — write, RC, ..." when every line asked for the
// same length, "WHAT per interval — ..." otherwise.
std::string heading(const std::string& what, const std::vector<Line>& lines,
                    const FigureRuns& runs) {
  std::set<double> asked;
  for (const auto& l : lines) asked.insert(l.size->interval_s);
  const bool one = asked.size() == 1 && *asked.begin() > 0;
  return figure_heading(
      what + (one ? " per " + format_number(*asked.begin()) + " s interval" : " per interval"),
      runs);
}

FigureLabels labels(const std::string& what, const std::vector<Line>& lines, const FigureRuns& runs,
                    const Grouping& g) {
  FigureLabels l;
  l.title = heading(what, lines, runs);
  l.key_title = join_text(g.fields, ", ") + ", size";
  l.xlabel = "time since the size's measurement began (s; each interval at its middle)";
  return l;
}

// Lines with many intervals are drawn without point marks.
std::string line_style(const std::vector<Line>& lines) {
  size_t most = 0;
  for (const auto& l : lines) most = std::max(most, l.size->intervals.size());
  return most <= 60 ? "linespoints" : "lines";
}

const char* kHow =
    "one block per series, message size and document: its intervals, oldest first (the engine "
    "keeps the most recent 3600), x = offset_s + seconds / 2";

// A figure over time: a block per line, a row per interval (`row`), then the template NAME.
std::optional<Figure> time_figure(const std::string& name, std::string_view templ,
                                  const std::string& what, const std::string& ylabel,
                                  const std::string& columns,
                                  std::vector<double> (*row)(const IntervalResult&),
                                  const FigureRuns& runs, const Grouping& g,
                                  const std::string& format, std::ostream& notes,
                                  std::map<std::string, std::string> values) {
  const std::vector<Line> lines = lines_of(g, name, notes);
  if (lines.empty()) return std::nullopt;
  DataTable t;
  std::vector<std::string> series;
  for (const auto& l : lines) {
    DataBlock b{l.comment, {}};
    for (const auto& s : l.size->intervals) b.rows.push_back(row(s));
    t.blocks.push_back(std::move(b));
    series.push_back(l.label);
  }
  FigureLabels l = labels(what, lines, runs, g);
  l.ylabel = ylabel;
  t.header = data_header(name, l, kHow, columns);
  values.insert({"STYLE", line_style(lines)});
  return series_figure(name, templ, t, series, l, format, std::move(values));
}

std::vector<double> bandwidth_row(const IntervalResult& s) {
  return {middle(s),
          s.gbps,
          s.mmsg_per_s,
          s.offset_s,
          s.seconds,
          static_cast<double>(s.ops),
          static_cast<double>(s.bytes)};
}

// An interval's gaps (sequence-error NAKs received + packets received out of sequence) and
// retransmissions, each per second, from the client port's counters in the key set
// (model/counter_keys.h; a counter that did not move is absent: 0). NaN without counters.
std::pair<double, double> gaps_and_retries_per_s(const IntervalResult& s) {
  if (!s.counters || s.seconds <= 0) return {std::nan(""), std::nan("")};
  const nlohmann::json keys = normalise_counters(nlohmann::json(*s.counters))["keys"];
  const auto n = [&](CounterKey k) { return keys.value(std::string(to_string(k)), 0.0); };
  return {(n(CounterKey::kSequenceErrors) + n(CounterKey::kOutOfSequence)) / s.seconds,
          n(CounterKey::kRetransmissions) / s.seconds};
}

std::vector<double> counters_row(const IntervalResult& s) {
  const auto [gaps, retries] = gaps_and_retries_per_s(s);
  return {middle(s), gaps, retries, s.offset_s, s.seconds};
}

// Whether an interval of `g`'s runs saw a gap or a retransmission (a clean run has no figure).
bool any_gap_or_retry(const Grouping& g) {
  for (const auto& s : g.series)
    for (const auto* r : s.runs)
      for (const auto& sr : r->run.results)
        for (const auto& iv : sr.intervals) {
          const auto [gaps, retries] = gaps_and_retries_per_s(iv);
          if (gaps > 0 || retries > 0) return true;
        }
  return false;
}

std::vector<double> latency_row(const IntervalResult& s) {
  return {middle(s), us_or_nan(s.p50_ns, s.ops), us_or_nan(s.p99_ns, s.ops), s.offset_s,
          s.seconds, static_cast<double>(s.ops)};
}

}  // namespace

std::optional<Figure> bandwidth_time_figure(const FigureRuns& runs, const Grouping& g,
                                            const std::string& format, std::ostream& notes) {
  return time_figure(
      "bandwidth_time", "bandwidth_time", "Bandwidth", "bandwidth (Gb/s, the client's direction)",
      "columns: middle_s gbps mmsg_per_s offset_s seconds ops bytes", bandwidth_row, runs, g,
      format, notes,
      {{"LINKS", link_plot_clauses(link_lines(runs, false), peak_gbps(runs, false))}});
}

std::optional<Figure> latency_time_figure(const FigureRuns& runs, const Grouping& g,
                                          const std::string& format, std::ostream& notes) {
  return time_figure("latency_time", "latency_time", "Latency", latency_label(runs),
                     "columns: middle_s p50_us p99_us offset_s seconds ops (NaN: an interval "
                     "without operations or percentiles)",
                     latency_row, runs, g, format, notes, {});
}

std::optional<Figure> counters_time_figure(const std::string& name, const FigureRuns& runs,
                                           const Grouping& g, const std::string& format,
                                           std::ostream& notes) {
  if (!any_gap_or_retry(g)) return std::nullopt;
  return time_figure(name, "counters_time", "Gaps and retransmissions",
                     "per second (the client port's counters)",
                     "columns: middle_s gaps_per_s retransmissions_per_s offset_s seconds (gaps: "
                     "sequence-error NAKs received + packets received out of sequence; NaN: an "
                     "interval without counters)",
                     counters_row, runs, g, format, notes, {});
}

}  // namespace rdmabench
