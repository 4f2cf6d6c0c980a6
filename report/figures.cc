#include "report/figures.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <ostream>
#include <set>

#include "base/error.h"
#include "report/data_table.h"
#include "report/grouping.h"
#include "report/hunt_figures.h"
#include "report/interval_figures.h"
#include "report/link_matrix.h"
#include "report/link_rate.h"
#include "report/round_figures.h"
#include "report/series_figure.h"
#include "report/spread.h"
#include "report/templates.h"

namespace rdmabench {
namespace {

// The successful results of a series at each size (several with repetitions).
using Points = std::map<uint64_t, std::vector<const SizeResult*>>;

// Tics at powers of two from lo to hi labelled 64, 1K, 1M; at most about a dozen.
void set_size_axis(FigureLabels& l, uint64_t lo, uint64_t hi) {
  uint64_t first = 1, last = 1;
  while (first * 2 <= lo) first *= 2;
  while (last < hi) last *= 2;
  int octaves = 0;
  for (uint64_t v = first; v < last; v *= 2) ++octaves;
  int step = 1;
  while (octaves / step > 11) step *= 2;
  std::vector<std::string> tics;
  for (uint64_t v = first; v <= last; v <<= step)
    tics.push_back("\"" + format_size(v) + "\" " + std::to_string(v));
  l.xtics = join_text(tics, ", ");
  l.xrange = format_number(static_cast<double>(lo) * 0.8) + ":" +
             format_number(static_cast<double>(hi) * 1.25);
}

Points points_of(const Series& s, bool need_latency) {
  Points p;
  for (const auto* r : s.runs)
    for (const auto& sr : r->run.results)
      if (sr.error.empty() && (!need_latency || sr.latency)) p[sr.size].push_back(&sr);
  return p;
}

double total_gbps(const SizeResult& r) { return r.gbps + (r.reverse ? r.reverse->gbps : 0); }
double total_mmsg(const SizeResult& r) {
  return r.mmsg_per_s + (r.reverse ? r.reverse->mmsg_per_s : 0);
}

// Bandwidth or message rate vs size: columns size, median, min, max, runs. `values`: the
// template's own (the bandwidth figure's link lines).
std::optional<Figure> rate_figure(const std::string& name, const std::string& what,
                                  const std::string& column, double (*metric)(const SizeResult&),
                                  const FigureRuns& runs, const Grouping& g,
                                  const std::string& format,
                                  std::map<std::string, std::string> values) {
  DataTable t;
  std::vector<std::string> series;
  FigureLabels l;
  uint64_t lo = UINT64_MAX, hi = 0;
  for (const auto& s : g.series) {
    Points p = points_of(s, false);
    if (p.empty()) continue;
    DataBlock b{block_comment(s), {}};
    for (const auto& [size, results] : p) {
      std::vector<double> v;
      for (const auto* r : results) v.push_back(metric(*r));
      Spread sp = spread_of(v);
      l.errorbars = l.errorbars || sp.n > 1;
      b.rows.push_back(
          {static_cast<double>(size), sp.median, sp.min, sp.max, static_cast<double>(sp.n)});
      lo = std::min(lo, size);
      hi = std::max(hi, size);
    }
    t.blocks.push_back(std::move(b));
    series.push_back(s.label);
  }
  if (t.blocks.empty()) return std::nullopt;
  l.title = figure_heading(what, runs);
  l.key_title = join_text(g.fields, ", ");
  set_size_axis(l, lo, hi);
  t.header = data_header(name, l, "repeated runs of a workload: median, min and max over the runs",
                         "columns: size_bytes " + column + "_median " + column + "_min " + column +
                             "_max runs (" + column + ": both directions added for --bidir)");
  return series_figure(name, name, t, series, l, format, std::move(values));
}

// p50, p99, p99.9 vs size (µs): columns size, then median/min/max of each, runs.
std::optional<Figure> latency_figure(const FigureRuns& runs, const Grouping& g,
                                     const std::string& format) {
  DataTable t;
  std::vector<std::string> series;
  FigureLabels l;
  uint64_t lo = UINT64_MAX, hi = 0;
  for (const auto& s : g.series) {
    Points p = points_of(s, true);
    if (p.empty()) continue;
    DataBlock b{block_comment(s), {}};
    for (const auto& [size, results] : p) {
      std::vector<double> row{static_cast<double>(size)};
      for (auto pick : {+[](const LatencySummary& x) { return x.p50; },
                        +[](const LatencySummary& x) { return x.p99; },
                        +[](const LatencySummary& x) { return x.p999; }}) {
        std::vector<double> v;
        for (const auto* r : results) v.push_back(pick(r->latency->summary) / 1000);
        Spread sp = spread_of(v);
        l.errorbars = l.errorbars || sp.n > 1;
        row.insert(row.end(), {sp.median, sp.min, sp.max});
      }
      row.push_back(static_cast<double>(results.size()));
      b.rows.push_back(std::move(row));
      lo = std::min(lo, size);
      hi = std::max(hi, size);
    }
    t.blocks.push_back(std::move(b));
    series.push_back(s.label);
  }
  if (t.blocks.empty()) return std::nullopt;
  l.title = figure_heading("Latency", runs);
  l.key_title = join_text(g.fields, ", ");
  l.ylabel = latency_label(runs);
  set_size_axis(l, lo, hi);
  t.header =
      data_header("latency", l, "repeated runs of a workload: median, min and max over the runs",
                  "columns: size_bytes p50_us p50_min p50_max p99_us p99_min p99_max p99_9_us "
                  "p99_9_min p99_9_max runs");
  return series_figure("latency", "latency", t, series, l, format);
}

// The histogram buckets of a series at one size, repetitions pooled: [low, high] ns -> count.
struct Pooled {
  std::map<std::pair<double, double>, double> buckets;
  double total = 0;  // operations measured, overflow included
};

Pooled pooled_at(const Series& s, uint64_t size) {
  Pooled p;
  for (const auto* r : s.runs)
    for (const auto& sr : r->run.results) {
      if (sr.size != size || !sr.error.empty() || !sr.latency) continue;
      double in_buckets = 0;
      for (const auto& [low, high, count] : sr.latency->buckets) {
        p.buckets[{low, high}] += count;
        in_buckets += count;
      }
      p.total += std::max(in_buckets, static_cast<double>(sr.latency->summary.count));
    }
  return p;
}

// Latency CDF ("latency_cdf": upper bucket edge µs, fraction at or below) or histogram
// ("latency_hist": bucket [low, high] µs, fraction) at one message size.
std::optional<Figure> distribution_figure(bool cdf, uint64_t size, const FigureRuns& runs,
                                          const Grouping& g, const std::string& format) {
  DataTable t;
  std::vector<std::string> series;
  for (const auto& s : g.series) {
    Pooled p = pooled_at(s, size);
    if (p.buckets.empty() || p.total <= 0) continue;
    DataBlock b{block_comment(s), {}};
    double cumulative = 0;
    if (cdf) b.rows.push_back({p.buckets.begin()->first.first / 1000, 0});
    for (const auto& [edges, count] : p.buckets) {
      cumulative += count;
      if (cdf)
        b.rows.push_back({edges.second / 1000, cumulative / p.total});
      else
        b.rows.push_back({edges.first / 1000, edges.second / 1000, count / p.total});
    }
    t.blocks.push_back(std::move(b));
    series.push_back(s.label);
  }
  if (t.blocks.empty()) return std::nullopt;
  FigureLabels l;
  l.title = figure_heading(
      std::string(cdf ? "Latency CDF" : "Latency histogram") + " at " + size_label(size), runs);
  l.key_title = join_text(g.fields, ", ");
  l.xlabel = latency_label(runs);
  t.header = data_header(cdf ? "latency_cdf" : "latency_hist", l,
                         "from the stored histogram buckets of size " + std::to_string(size) +
                             "; repeated runs of a workload: their buckets pooled",
                         cdf ? "columns: latency_us (upper bucket edge) fraction_at_or_below"
                             : "columns: low_us high_us fraction (of the bucket [low, high])");
  const char* name = cdf ? "latency_cdf" : "latency_hist";
  return series_figure(name, name, t, series, l, format);
}

// The size of the CDF and histogram: --point (which must have been measured) or the smallest.
uint64_t latency_point(const FigureRuns& lat, const std::optional<uint64_t>& wanted) {
  std::set<uint64_t> sizes;
  for (const auto* r : lat)
    for (const auto& s : r->run.results)
      if (s.error.empty() && s.latency) sizes.insert(s.size);
  if (sizes.empty()) return 0;
  if (!wanted) return *sizes.begin();
  if (sizes.count(*wanted) == 0) {
    std::vector<std::string> names;
    for (auto s : sizes) names.push_back(format_size(s));
    throw ConfigError("--point", format_size(*wanted),
                      "a measured latency size: " + join_text(names, ", "));
  }
  return *wanted;
}

void note_failures(const std::vector<ResultFile>& runs, std::ostream& notes) {
  for (const auto& r : runs) {
    if (!r.run.error.empty())
      notes << "rdmabench: note: " << r.path << ": the run failed (" << r.run.error
            << "); plotting its successful sizes\n";
    for (const auto& s : r.run.results)
      if (!s.error.empty())
        notes << "rdmabench: note: " << r.path << ": size " << s.size << " failed (" << s.error
              << "); left out\n";
  }
}

}  // namespace

std::string gnuplot_string(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '\\' || c == '"') out += '\\';
    out += c;
  }
  return out;
}

Figure template_figure(const std::string& name, std::string_view templ, std::string data,
                       const std::string& format, bool square,
                       std::map<std::string, std::string> values) {
  Figure f{name, std::move(data), ""};
  std::string inlined = f.data;
  if (!inlined.empty() && inlined.back() == '\n') inlined.pop_back();
  values.insert({{"NAME", name},
                 {"EXT", format},
                 {"OUTPUT", name + "." + format},
                 {"TERMINAL", figure_terminal(format, square)},
                 {"COMMON", std::string(plot_template("common"))},
                 {"DATA", inlined}});
  f.script = fill_template(plot_template(templ), values);
  return f;
}

std::string figure_terminal(const std::string& format, bool square) {
  const std::string px = square ? "720,680" : "960,540";
  if (format == "png") return "pngcairo noenhanced size " + px + R"( font "Sans,10")";
  if (format == "svg")
    return "svg noenhanced size " + px + R"( dynamic font "Sans,10" background rgb "white")";
  return std::string("pdfcairo noenhanced size ") + (square ? "12cm,11cm" : "16cm,9cm") +
         R"( font "Sans,8")";
}

void check_image_format(const std::string& format) {
  if (format != "png" && format != "svg" && format != "pdf")
    throw ConfigError("--format", format, "png, svg or pdf");
}

std::vector<Figure> make_figures(const std::vector<ResultFile>& runs, const FigureOptions& opt,
                                 std::ostream& notes) {
  check_image_format(opt.format);
  if (!opt.group_by.empty()) check_series_field(opt.group_by);
  FigureRuns bw, lat;
  for (const auto& r : runs) (r.run.workload.mode == Mode::kLat ? lat : bw).push_back(&r);
  std::vector<Figure> out;
  auto add = [&](std::optional<Figure> f) {
    if (f) out.push_back(std::move(*f));
  };
  if (!bw.empty()) {
    Grouping g = group_runs(bw, opt.group_by);
    add(rate_figure("bandwidth", "Bandwidth", "gbps", total_gbps, bw, g, opt.format,
                    {{"LINKS", link_plot_clauses(link_lines(bw, true), peak_gbps(bw, true))}}));
    add(rate_figure("msgrate", "Message rate", "mmsg_per_s", total_mmsg, bw, g, opt.format, {}));
    add(bandwidth_time_figure(bw, g, opt.format, notes));
    add(counters_time_figure("counters_time", bw, g, opt.format, notes));
  }
  if (!lat.empty()) {
    Grouping g = group_runs(lat, opt.group_by);
    uint64_t point = latency_point(lat, opt.point);
    add(latency_figure(lat, g, opt.format));
    add(distribution_figure(true, point, lat, g, opt.format));
    add(distribution_figure(false, point, lat, g, opt.format));
    add(latency_time_figure(lat, g, opt.format, notes));
    add(counters_time_figure("counters_time_latency", lat, g, opt.format, notes));
  } else if (opt.point) {
    notes << "rdmabench: note: no latency-mode documents; --point is not used\n";
  }
  for (Figure& f : link_matrix_figures(runs, opt.link_marks, opt.format))
    out.push_back(std::move(f));
  for (Figure& f : round_figures(opt.round_records, opt.format, notes)) out.push_back(std::move(f));
  for (Figure& f : hunt_figures(opt.hunts, opt.format)) out.push_back(std::move(f));
  note_failures(runs, notes);
  if (out.empty()) throw Error("no successful measurements to plot");
  return out;
}

}  // namespace rdmabench
