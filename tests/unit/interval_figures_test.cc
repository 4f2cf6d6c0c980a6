// The figures over time of runs with --interval (report/interval_figures.h), the line-rate
// reference of the Gb/s figures (report/link_rate.h) and the report's interval tables, on small
// hand-written documents: committed fixtures cut to a size or two, with intervals added as the
// engine writes them (results/SCHEMA.md), written out and loaded as `plot` and `report` load them.
#include "report/interval_figures.h"

#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

#include "report/figures.h"
#include "report/link_rate.h"
#include "report/plot.h"
#include "report/report_html.h"
#include "report/report_model.h"
#include "tests/unit/report_test_util.h"

namespace rdmabench {
namespace {

using namespace testutil;
using nlohmann::json;

// An interval as the engine writes it; p50/p99 only when given (latency mode).
json interval(double offset, double seconds, double gbps, double p50_ns = -1, double p99_ns = -1) {
  json j = {{"start_unix_s", 1764123456.0 + offset},
            {"offset_s", offset},
            {"seconds", seconds},
            {"ops", 1000},
            {"bytes", 65536000},
            {"gbps", gbps},
            {"mmsg_per_s", gbps / 524.288}};
  if (p50_ns >= 0) j["p50_ns"] = p50_ns;
  if (p99_ns >= 0) j["p99_ns"] = p99_ns;
  return j;
}

// The fixture `rel` cut to the sizes in `keep`, its client port at `speed_gbps` (0: unknown).
json document(const std::string& rel, const std::vector<uint64_t>& keep, double speed_gbps) {
  json d = read_json(results_fixture(rel));
  json results = json::array();
  for (const auto& r : d["results"])
    if (std::find(keep.begin(), keep.end(), r["size"].get<uint64_t>()) != keep.end())
      results.push_back(r);
  d["results"] = results;
  d["workload"]["sizes"] = keep;
  if (speed_gbps > 0)
    d["devices"]["client"]["speed_gbps"] = speed_gbps;
  else
    d["devices"]["client"].erase("speed_gbps");
  return d;
}

// Gives result `i` of `d` these intervals, `total` of them in all, and the peak and minimum.
void add_intervals(json& d, size_t i, const std::vector<json>& intervals, uint64_t total,
                   double peak, double min) {
  json& r = d["results"][i];
  r["interval_s"] = 1.0;
  r["intervals"] = intervals;
  r["intervals_total"] = total;
  r["bw_peak_gbps"] = peak;
  r["bw_min_gbps"] = min;
}

// A bandwidth run at 64 KiB with three intervals: 6.5, 7.1 and a short last one at 0.3 Gb/s.
json bw_with_intervals(double speed_gbps) {
  json d = document("bw/write.json", {4096, 65536}, speed_gbps);
  add_intervals(d, 1, {interval(0, 1, 6.5), interval(1, 1, 7.1), interval(2, 0.5, 0.3)}, 3, 7.1,
                6.5);
  return d;
}

std::vector<ResultFile> load(const TempDir& dir, const std::vector<json>& docs) {
  for (size_t i = 0; i < docs.size(); ++i)
    write_text(dir.path() / ("doc" + std::to_string(i) + ".json"), docs[i].dump(2));
  std::ostringstream notes;
  return load_results({dir.str()}, notes);
}

std::vector<Figure> figures_of(const std::vector<ResultFile>& runs, std::string* notes = nullptr) {
  std::ostringstream n;
  std::vector<Figure> out = make_figures(runs, FigureOptions{}, n);
  if (notes != nullptr) *notes = n.str();
  return out;
}

const Figure* find(const std::vector<Figure>& figs, const std::string& name) {
  for (const auto& f : figs)
    if (f.name == name) return &f;
  return nullptr;
}

// The data rows of a figure's NAME.dat block `index` (its "# index N:" line to the next).
std::vector<std::string> block_rows(const std::string& data, size_t index) {
  std::istringstream in(data);
  std::string line;
  std::vector<std::string> rows;
  bool inside = false;
  while (std::getline(in, line)) {
    if (line.rfind("# index ", 0) == 0) {
      inside = line.rfind("# index " + std::to_string(index) + ":", 0) == 0;
    } else if (inside && !line.empty() && line[0] != '#') {
      rows.push_back(line);
    }
  }
  return rows;
}

TEST(IntervalFigures, BandwidthOverTimeHasEveryIntervalAtItsMiddle) {
  TempDir dir;
  const auto runs = load(dir, {bw_with_intervals(100)});
  ASSERT_TRUE(runs[0].run.results[0].intervals.empty());  // 4 KiB had none
  ASSERT_EQ(runs[0].run.results[1].intervals.size(), 3u);
  const std::vector<Figure> figs = figures_of(runs);
  const Figure* f = find(figs, "bandwidth_time");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(find(figs, "latency_time"), nullptr);
  // x = offset_s + seconds / 2; then gbps, mmsg_per_s, offset_s, seconds, ops, bytes.
  const std::vector<std::string> rows = block_rows(f->data, 0);
  ASSERT_EQ(rows.size(), 3u) << f->data;
  EXPECT_EQ(rows[0].rfind("0.5 6.5 ", 0), 0u) << rows[0];
  EXPECT_EQ(rows[1].rfind("1.5 7.1 ", 0), 0u) << rows[1];
  EXPECT_EQ(rows[2].rfind("2.25 0.3 ", 0), 0u) << rows[2];
  EXPECT_NE(rows[2].find(" 2 0.5 1000 65536000"), std::string::npos) << rows[2];
  EXPECT_TRUE(block_rows(f->data, 1).empty()) << "one line: one series, one size";
  EXPECT_NE(f->data.find("# index 0: write 64KiB ("), std::string::npos) << f->data;
  EXPECT_NE(f->script.find("array series[1] = [\"write 64KiB\"]"), std::string::npos);
  EXPECT_NE(f->script.find("Bandwidth per 1 s interval — write, RC, rxe0"), std::string::npos);
  EXPECT_NE(f->script.find("with linespoints ls ls(i)"), std::string::npos);
}

TEST(IntervalFigures, LinkLineAtThePortSpeedInBothGbpsFigures) {
  // The 64 KiB size at 6.8 Gb/s, its intervals at up to 7.1: a 20 Gb/s link is drawn in both
  // figures (each peak is above a quarter of 20).
  json d = bw_with_intervals(20);
  d["results"][1]["gbps"] = 6.8;
  TempDir dir;
  const std::vector<Figure> figs = figures_of(load(dir, {d}));
  const std::string line = "20 with lines ls 100 title \"link 20 Gb/s\"";
  for (const char* name : {"bandwidth", "bandwidth_time"}) {
    const Figure* f = find(figs, name);
    ASSERT_NE(f, nullptr) << name;
    EXPECT_NE(f->script.find(line), std::string::npos) << name << "\n" << f->script;
    EXPECT_EQ(f->script.find("@LINKS@"), std::string::npos) << name;
    EXPECT_EQ(f->script.find("keyentry"), std::string::npos) << name;
  }
  EXPECT_EQ(find(figs, "msgrate")->script.find("ls 100 title"), std::string::npos);
}

TEST(IntervalFigures, LinkFarAboveTheDataIsNamedInTheKeyNotDrawn) {
  // The quickstart's case: a 10.3 Gb/s link over data that peaks well below a quarter of it
  // (the fixture's sizes at 0.23 Gb/s at most; the intervals at 7.1 against 100 Gb/s).
  TempDir dir;
  const std::vector<Figure> figs = figures_of(load(dir, {bw_with_intervals(100)}));
  for (const char* name : {"bandwidth", "bandwidth_time"}) {
    const std::string& s = find(figs, name)->script;
    EXPECT_EQ(s.find("100 with lines ls 100"), std::string::npos) << name << "\n" << s;
    EXPECT_NE(s.find("keyentry with lines ls 100 title \"link 100 Gb/s (off scale: the data peak "
                     "at "),
              std::string::npos)
        << name << "\n"
        << s;
  }
  EXPECT_NE(find(figs, "bandwidth_time")->script.find("the data peak at 7.1 Gb/s)"),
            std::string::npos);
  // The rule itself: drawn from a quarter of the rate up.
  const std::vector<LinkLine> link{{10.3, "link 10.3 Gb/s"}};
  EXPECT_EQ(link_plot_clauses(link, 10.3 * kLinkLineMinShare),
            ", \\\n     10.3 with lines ls 100 title \"link 10.3 Gb/s\"");
  EXPECT_EQ(
      link_plot_clauses(link, 0.35),
      ", \\\n     keyentry with lines ls 100 title \"link 10.3 Gb/s (off scale: the data peak "
      "at 0.35 Gb/s)\"");
}

TEST(IntervalFigures, OneLinkLinePerDistinctSpeedAndNoneWhenUnknown) {
  // write_rc at 25 Gb/s, write_uc at 100 (two series by QP type), both with intervals.
  json rc = document("qp/write_rc.json", {65536}, 25);
  json uc = document("qp/write_uc.json", {65536}, 100);  // its 90 Gb/s interval: both drawn
  add_intervals(rc, 0, {interval(0, 1, 20)}, 1, 20, 20);
  add_intervals(uc, 0, {interval(0, 1, 90)}, 1, 90, 90);
  rc["results"][0]["gbps"] = 20;
  uc["results"][0]["gbps"] = 90;
  TempDir dir;
  const std::vector<Figure> figs = figures_of(load(dir, {rc, uc}));
  for (const char* name : {"bandwidth", "bandwidth_time"}) {
    const std::string& s = find(figs, name)->script;
    EXPECT_NE(s.find("25 with lines ls 100 title \"link 25 Gb/s\""), std::string::npos) << name;
    EXPECT_NE(s.find("100 with lines ls 100 title \"link 100 Gb/s\""), std::string::npos) << name;
  }
  const Figure* t = find(figs, "bandwidth_time");
  ASSERT_EQ(block_rows(t->data, 0).size(), 1u);
  EXPECT_EQ(block_rows(t->data, 0)[0].rfind("0.5 20 ", 0), 0u);
  ASSERT_EQ(block_rows(t->data, 1).size(), 1u);
  EXPECT_EQ(block_rows(t->data, 1)[0].rfind("0.5 90 ", 0), 0u);
  EXPECT_NE(t->script.find("set key title \"qp, size\""), std::string::npos);
  EXPECT_NE(t->script.find("[\"rc 64KiB\", \"uc 64KiB\"]"), std::string::npos) << t->script;

  TempDir unknown;
  const std::vector<Figure> none = figures_of(load(unknown, {bw_with_intervals(0)}));
  for (const char* name : {"bandwidth", "bandwidth_time"})
    EXPECT_EQ(find(none, name)->script.find("ls 100 title"), std::string::npos) << name;
}

TEST(IntervalFigures, BidirLinkLineIsTwiceTheSpeedWhereBothDirectionsAreAdded) {
  EXPECT_EQ(link_plot_clauses({}, 1), "");
  ResultFile f;
  f.run.client_device = {{"speed_gbps", 100}};
  f.run.workload.bidir = true;
  EXPECT_EQ(link_lines({&f}, true),
            (std::vector<LinkLine>{{200, "link 2 x 100 Gb/s (both directions)"}}));
  EXPECT_EQ(link_lines({&f}, false), (std::vector<LinkLine>{{100, "link 100 Gb/s"}}));
  f.run.client_device = {{"speed_gbps", "fast"}};
  EXPECT_TRUE(link_lines({&f}, true).empty());
}

TEST(IntervalFigures, DocumentsWithoutIntervalsGiveNoFigureOverTime) {
  TempDir dir;
  const std::vector<Figure> figs =
      figures_of(load(dir, {document("bw/write.json", {4096, 65536}, 100),
                            document("lat/write.json", {64, 1024}, 100)}));
  EXPECT_NE(find(figs, "bandwidth"), nullptr);
  EXPECT_NE(find(figs, "latency"), nullptr);
  EXPECT_EQ(find(figs, "bandwidth_time"), nullptr);
  EXPECT_EQ(find(figs, "latency_time"), nullptr);
}

TEST(IntervalFigures, LatencyOverTimeHasP50AndP99InMicroseconds) {
  json d = document("lat/write.json", {64, 1024}, 100);
  add_intervals(d, 0, {interval(0, 1, 0.1, 2500, 9000), interval(1, 1, 0.1, 2600, 12000)}, 2, 0.1,
                0.1);
  json idle = interval(2, 0.25, 0);
  idle["ops"] = 0;  // an interval without operations has no percentiles
  add_intervals(d, 1, {interval(0, 1, 0.5, 3000, 15000), idle}, 2, 0.5, 0.5);
  TempDir dir;
  const std::vector<Figure> figs = figures_of(load(dir, {d}));
  EXPECT_EQ(find(figs, "bandwidth_time"), nullptr);
  const Figure* f = find(figs, "latency_time");
  ASSERT_NE(f, nullptr);
  // middle_s p50_us p99_us offset_s seconds ops, a line per size.
  EXPECT_EQ(block_rows(f->data, 0),
            (std::vector<std::string>{"0.5 2.5 9 0 1 1000", "1.5 2.6 12 1 1 1000"}));
  EXPECT_EQ(block_rows(f->data, 1),
            (std::vector<std::string>{"0.5 3 15 0 1 1000", "2.125 NaN NaN 2 0.25 0"}));
  EXPECT_NE(f->script.find("[\"write 64 B\", \"write 1KiB\"]"), std::string::npos) << f->script;
  EXPECT_NE(f->script.find("title name(i, \"p99\")"), std::string::npos);
  EXPECT_NE(f->script.find("latency (µs, half round trip)"), std::string::npos);
}

TEST(IntervalFigures, RepetitionsAreALineEachAndTooManyLinesAreNoted) {
  TempDir dir;
  std::vector<json> docs(3, bw_with_intervals(100));
  const std::vector<Figure> figs = figures_of(load(dir, docs));
  EXPECT_NE(find(figs, "bandwidth_time")
                ->script.find("[\"write 64KiB (run 1)\", \"write 64KiB (run 2)\", \"write 64KiB "
                              "(run 3)\"]"),
            std::string::npos);

  json many = document("bw/write.json", {}, 100);
  many["results"] = json::array();
  for (uint64_t size = 64; size <= 2097152; size *= 2) {  // 16 sizes
    json r = read_json(results_fixture("bw/write.json"))["results"][0];
    r["size"] = size;
    many["results"].push_back(r);
    add_intervals(many, many["results"].size() - 1, {interval(0, 1, 1)}, 1, 1, 1);
  }
  many["workload"]["sizes"].clear();
  for (const auto& r : many["results"]) many["workload"]["sizes"].push_back(r["size"]);
  TempDir two;
  std::string notes;
  const std::vector<Figure> capped = figures_of(load(two, {many, many}), &notes);
  EXPECT_EQ(block_rows(find(capped, "bandwidth_time")->data, kMaxIntervalLines - 1).size(), 1u);
  EXPECT_TRUE(block_rows(find(capped, "bandwidth_time")->data, kMaxIntervalLines).empty());
  EXPECT_NE(notes.find("bandwidth_time: drawn for the first 16 of 32"), std::string::npos) << notes;
}

TEST(IntervalFigures, ReportHasTheIntervalTableAndTheFigures) {
  TempDir dir;
  std::vector<json> docs{bw_with_intervals(100), bw_with_intervals(100)};
  docs[1]["results"][1]["intervals_total"] = 60;
  docs[1]["results"][1]["bw_peak_gbps"] = 7.5;
  ReportInput in;
  in.path = dir.str();
  in.runs = load(dir, docs);
  const ReportModel m = build_report_model({in});
  ASSERT_EQ(m.workloads.size(), 1u);
  const WorkloadTable& t = m.workloads[0];
  ASSERT_EQ(t.intervals.size(), 1u);  // 4 KiB had none
  const IntervalRow& r = t.intervals[0];
  EXPECT_EQ(r.size, 65536u);
  EXPECT_EQ(r.runs, 2u);
  EXPECT_EQ(r.interval_s, "1");
  EXPECT_EQ(r.total.min, 3);
  EXPECT_EQ(r.total.max, 60);
  EXPECT_EQ(r.kept.median, 3);
  ASSERT_TRUE(r.peak_gbps && r.min_gbps);
  EXPECT_DOUBLE_EQ(r.peak_gbps->median, 7.3);
  EXPECT_DOUBLE_EQ(r.min_gbps->median, 6.5);
  const std::string html = render_report_html(
      m, {{"bandwidth_time", figure_title("bandwidth_time"), "data:image/png;base64,AA=="}},
      "2026-01-01T00:00:00Z");
  const size_t table = html.find("<table class=\"intervals\">");
  ASSERT_NE(table, std::string::npos);
  const size_t row = html.find("<tr class=\"interval-row\" data-size=\"65536\"><td>64K</td>");
  ASSERT_NE(row, std::string::npos) << html.substr(table, 800);
  EXPECT_NE(html.find("<td class=\"num\">7.3<small>7.1&ndash;7.5</small></td>", row),
            std::string::npos)
      << html.substr(row, 600);
  EXPECT_NE(html.find("<td class=\"num\">6.5<small>6.5&ndash;6.5</small></td>", row),
            std::string::npos);
  EXPECT_EQ(html.find("interval-row\" data-size=\"4096\""), std::string::npos);
  EXPECT_NE(html.find("id=\"figure-bandwidth_time\""), std::string::npos);
  EXPECT_NE(html.find("Bandwidth (Gb/s) per interval over time"), std::string::npos);

  // Without intervals: no table.
  TempDir plain;
  ReportInput none;
  none.path = plain.str();
  none.runs = load(plain, {document("bw/write.json", {4096, 65536}, 100)});
  EXPECT_EQ(render_report_html(build_report_model({none}), {}, "x").find("class=\"intervals\""),
            std::string::npos);
}

// Intervals with the client port's counters: gaps (sequence errors + out of sequence) and
// retransmissions per second of each interval, whatever the provider calls them; no figure for
// a run whose counters saw neither, nor for intervals without counters.
json bw_with_counters(bool lossy) {
  json d = bw_with_intervals(100);
  json& iv = d["results"][1]["intervals"];
  iv[0]["counters"] = {{"hw_counters/sent_pkts", 1000}};
  iv[1]["counters"] = {{"hw_counters/sent_pkts", 1000}};
  if (lossy)  // rxe's names in the second interval, mlx5's in the short last one
    iv[1]["counters"].update({{"hw_counters/rcvd_seq_err", 3},
                              {"hw_counters/out_of_seq_request", 1},
                              {"hw_counters/completer_retry_err", 6}});
  iv[2]["counters"] = lossy ? json{{"hw_counters/roce_adp_retrans", 2}} : json::object();
  return d;
}

TEST(IntervalFigures, CountersOverTimeShowGapsAndRetransmissionsPerSecond) {
  TempDir dir;
  const std::vector<Figure> figs = figures_of(load(dir, {bw_with_counters(true)}));
  const Figure* f = find(figs, "counters_time");
  ASSERT_NE(f, nullptr);
  const std::vector<std::string> rows = block_rows(f->data, 0);
  ASSERT_EQ(rows.size(), 3u) << f->data;
  EXPECT_EQ(rows[0].rfind("0.5 0 0 ", 0), 0u) << rows[0];
  EXPECT_EQ(rows[1].rfind("1.5 4 6 ", 0), 0u) << rows[1];   // 1 s: 3 + 1 gaps, 6 retries
  EXPECT_EQ(rows[2].rfind("2.25 0 4 ", 0), 0u) << rows[2];  // 0.5 s: 2 retries
  EXPECT_NE(f->script.find("title name(i, \"gaps\")"), std::string::npos) << f->script;
  EXPECT_NE(f->script.find("Gaps and retransmissions per 1 s interval"), std::string::npos);
  EXPECT_EQ(find(figs, "counters_time_latency"), nullptr);
  // A clean run (counters, none of them gaps or retries) and one without counters: no figure.
  TempDir clean, none;
  EXPECT_EQ(find(figures_of(load(clean, {bw_with_counters(false)})), "counters_time"), nullptr);
  EXPECT_EQ(find(figures_of(load(none, {bw_with_intervals(100)})), "counters_time"), nullptr);
}

TEST(IntervalFigures, PlotRendersTheFiguresOverTimeWithGnuplot) {
  json lat = document("lat/write.json", {64}, 100);
  add_intervals(lat, 0, {interval(0, 1, 0.1, 2500, 9000), interval(1, 1, 0.1, 2600, 12000)}, 2, 0.1,
                0.1);
  TempDir in, out;
  load(in, {bw_with_counters(true), lat});
  PlotOptions opt;
  opt.inputs = {in.str()};
  opt.out_dir = out.str();
  std::ostringstream notes;
  const std::vector<std::string> images = run_plot(opt, notes);
  for (const char* name : {"bandwidth_time", "latency_time", "counters_time"}) {
    const fs::path png = out.path() / (std::string(name) + ".png");
    EXPECT_NE(std::find(images.begin(), images.end(), png.string()), images.end()) << name;
    ASSERT_TRUE(fs::exists(png)) << name;
    EXPECT_GT(fs::file_size(png), 1000u) << name;
  }
}

}  // namespace
}  // namespace rdmabench
