#include "report/report_html.h"

#include <cmath>
#include <cstdio>

#include "base/version.h"
#include "model/workload.h"
#include "report/anomalies_section.h"
#include "report/html.h"

namespace rdmabench {
namespace {

constexpr const char* kStyle = R"css(
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; margin: 2em auto;
       max-width: 1100px; padding: 0 1em; color: #1b1b1b; line-height: 1.4; }
h1 { font-size: 1.6em; margin-bottom: .2em; }
h2 { border-bottom: 2px solid #0072B2; padding-bottom: .2em; margin-top: 2em; }
h3 { margin-bottom: .3em; }
table { border-collapse: collapse; margin: .5em 0 1em; font-size: .92em; }
th, td { border: 1px solid #ccc; padding: .25em .6em; text-align: left; vertical-align: top; }
th { background: #eef3f8; }
td.time { white-space: nowrap; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td.num small { color: #666; display: block; }
table.kv th { width: 14em; }
code { font-size: .9em; background: #f4f4f4; padding: 0 .2em; }
pre { background: #fbf3f3; border: 1px solid #e0b4b4; padding: .5em; white-space: pre-wrap;
      word-break: break-word; max-height: 20em; overflow: auto; margin: 0; font-size: .85em; }
.figures { display: grid; grid-template-columns: repeat(auto-fit, minmax(480px, 1fr)); gap: 1em; }
figure { margin: 0; } figure img { width: 100%; height: auto; border: 1px solid #ddd; }
figcaption { color: #444; font-size: .9em; }
.bad { color: #b00020; font-weight: bold; } .ok { color: #007a3d; font-weight: bold; }
.few { color: #8a5a00; font-size: .8em; }
.counters { font-size: .85em; color: #333; }
table.intervals caption { caption-side: top; text-align: left; color: #444; font-size: .88em; }
.settings, .points { color: #444; font-size: .88em; margin: .2em 0; }
footer { margin-top: 3em; color: #666; font-size: .85em; }
)css";

std::string esc(const std::string& s) { return html_escape(s); }

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, std::abs(v) >= 1000 ? "%.0f" : "%.4g", v);
  return buf;
}

// A cell: the median, with min-max below it for repetitions.
std::string cell(const std::optional<Spread>& s) {
  if (!s) return "<td class=\"num\">&mdash;</td>";
  std::string t = "<td class=\"num\">" + num(s->median);
  if (s->n > 1) t += "<small>" + num(s->min) + "&ndash;" + num(s->max) + "</small>";
  return t + "</td>";
}

std::string or_dash(const std::string& s) { return s.empty() ? "&mdash;" : esc(s); }

std::string list_text(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

void summary(std::string& h, const ReportModel& m) {
  const ReportSummary& s = m.summary;
  h += "<section id=\"summary\"><table class=\"kv\">\n";
  auto row = [&](const std::string& k, const std::string& v_html) {
    h += "<tr><th>" + k + "</th><td>" + v_html + "</td></tr>\n";
  };
  row("Campaign",
      s.campaigns.empty() ? "&mdash; (result files, not a sweep)" : esc(list_text(s.campaigns)));
  std::string inputs;
  for (const auto& i : s.inputs)
    inputs += (inputs.empty() ? "" : "<br>") + ("<code>" + esc(i) + "</code>");
  row("Inputs", inputs);
  row("Dates (UTC)",
      s.first_time.empty() ? "&mdash;" : esc(s.first_time) + " &ndash; " + esc(s.last_time));
  row("Points",
      "<span class=\"ok\" id=\"points-ok\">" + std::to_string(s.points_ok) + " ok</span>, " +
          "<span class=\"" + std::string(s.points_failed ? "bad" : "ok") +
          "\" id=\"points-failed\">" + std::to_string(s.points_failed) + " failed</span>" +
          (s.points_skipped ? ", " + std::to_string(s.points_skipped) + " skipped as invalid"
                            : "") +
          " (" + std::to_string(s.documents) + " result documents)");
  row("rdmabench version", s.versions.empty() ? "&mdash;" : esc(list_text(s.versions)));
  h += "</table></section>\n";
}

void figures_section(std::string& h, const std::vector<EmbeddedFigure>& figures,
                     const std::string& note) {
  if (figures.empty() && !note.empty())
    h += "<section id=\"figures\"><h2>Figures</h2>\n<p class=\"note\">" + esc(note) +
         "</p></section>\n";
  if (figures.empty()) return;
  h += "<section id=\"figures\"><h2>Figures</h2>\n<p class=\"settings\">Median of the repetitions, "
       "error bars from the smallest to the largest (<code>rdmabench plot</code>).</p>\n"
       "<div class=\"figures\">\n";
  for (const auto& f : figures)
    h += "<figure id=\"figure-" + esc(f.name) + "\"><img class=\"figure\" alt=\"" + esc(f.title) +
         "\" src=\"" + f.uri + "\"><figcaption>" + esc(f.title) + "</figcaption></figure>\n";
  h += "</div></section>\n";
}

// A share of the link in percent, "&mdash;" without the port's speed.
std::string pct_cell(const std::optional<Spread>& s) {
  if (!s) return "<td class=\"num\">&mdash;</td>";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f %%", s->median);
  return "<td class=\"num\">" + std::string(buf) + "</td>";
}

// The counters that moved during the workload's runs, retransmissions and errors marked.
void counters_line(std::string& h, const WorkloadTable& t) {
  if (t.counters.empty()) return;
  h += "<p class=\"counters\">Counter deltas (median of the runs):";
  std::string side;
  for (const auto& c : t.counters) {
    if (c.side != side) {
      side = c.side;
      h += " <b>" + esc(side) + "</b>";
    }
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.0f", c.median);
    h += std::string(" <span") + (c.attention ? " class=\"bad\"" : "") + ">" + esc(c.name) + " " +
         buf + "</span>";
  }
  h += "</p>\n";
}

// p99.9, marked when a run had too few samples for it to be more than its largest few.
std::string p999_cell(const SizeRow& r) {
  std::string c = cell(r.p999_us);
  if (r.p999_us && r.fewest_samples != 0 && r.fewest_samples < kSamplesForP999)
    c.insert(c.rfind("</td>"),
             "<br><span class=\"few\" title=\"from " + std::to_string(r.fewest_samples) +
                 " samples: p99.9 is then one of the largest few\">few samples (" +
                 std::to_string(r.fewest_samples) + ")</span>");
  return c;
}

// The sizes' per-interval rates (--interval): how many intervals, the highest and lowest Gb/s.
void intervals_table(std::string& h, const WorkloadTable& t) {
  if (t.intervals.empty()) return;
  h += "<table class=\"intervals\"><caption>Per interval (<code>--interval</code>): the "
       "highest and lowest Gb/s of an interval at least half the asked length (of any when none "
       "was)</caption><thead>"
       "<tr><th>size</th><th>runs</th><th>interval s</th><th>intervals</th><th>kept</th>"
       "<th>peak Gb/s</th><th>min Gb/s</th></tr></thead><tbody>\n";
  for (const IntervalRow& r : t.intervals)
    h += "<tr class=\"interval-row\" data-size=\"" + std::to_string(r.size) + "\"><td>" +
         esc(format_size(r.size)) + "</td><td class=\"num\">" + std::to_string(r.runs) +
         "</td><td class=\"num\">" + or_dash(r.interval_s) + "</td>" + cell(r.total) +
         cell(r.kept) + cell(r.peak_gbps) + cell(r.min_gbps) + "</tr>\n";
  h += "</tbody></table>\n";
}

void results_section(std::string& h, const ReportModel& m) {
  h += "<section id=\"results\"><h2>Results</h2>\n<p class=\"settings\">One table per workload; "
       "with repetitions each cell is the median with the smallest and largest value below it. "
       "Gb/s and Mmsg/s add both directions for bidirectional runs; CPU is the worker threads' "
       "user + system time over the measured interval (100 % = one core); <em>of link</em> is "
       "Gb/s against the client port's speed (both directions: twice it). A p99.9 marked "
       "<em>few samples</em> comes from a run of fewer than 1,000 round trips: it is then one of "
       "that run's few largest samples, not a tail estimate.</p>\n";
  for (size_t i = 0; i < m.workloads.size(); ++i) {
    const WorkloadTable& t = m.workloads[i];
    h += "<section class=\"workload\" id=\"workload-" + std::to_string(i + 1) + "\"><h3>" +
         esc(t.label) + "</h3>\n<p class=\"settings\">" + esc(t.settings) +
         "</p>\n<p class=\"points\">" + std::to_string(t.points.size()) +
         (t.points.size() == 1 ? " run: " : " runs: ");
    for (size_t k = 0; k < t.points.size(); ++k)
      h += std::string(k ? ", " : "") + "<code class=\"point\" data-point=\"" + esc(t.points[k]) +
           "\">" + esc(t.points[k]) + "</code>";
    std::string lat = t.latency_kind == "half_round_trip" ? " (half round trip)"
                      : t.latency_kind == "round_trip"    ? " (round trip)"
                                                          : "";
    h += "</p>\n<table class=\"results\"><thead><tr><th>size</th><th>runs</th><th>Gb/s</th>"
         "<th>of link</th><th>Mmsg/s</th><th>p50 &micro;s" +
         lat +
         "</th><th>p99 &micro;s</th><th>p99.9 &micro;s</th>"
         "<th>CPU %</th><th>errors</th></tr></thead><tbody>\n";
    for (const auto& r : t.rows) {
      h += "<tr class=\"size-row\" data-size=\"" + std::to_string(r.size) + "\"><td>" +
           esc(format_size(r.size)) + "</td><td class=\"num\">" + std::to_string(r.runs) + "</td>" +
           cell(r.gbps) + pct_cell(r.link_pct) + cell(r.mmsg) + cell(r.p50_us) + cell(r.p99_us) +
           p999_cell(r) + cell(r.cpu_pct) + "<td>";
      for (const auto& e : r.errors) h += "<span class=\"bad\">" + esc(e) + "</span><br>";
      h += "</td></tr>\n";
    }
    h += "</tbody></table>\n";
    counters_line(h, t);
    intervals_table(h, t);
    h += "</section>\n";
  }
  h += "</section>\n";
}

void failures_section(std::string& h, const ReportModel& m) {
  h +=
      "<section id=\"failures\"><h2>Failed points (" + std::to_string(m.failed.size()) + ")</h2>\n";
  if (m.failed.empty()) {
    h += "<p class=\"ok\">None.</p>\n";
  } else {
    h += "<table class=\"failures\"><thead><tr><th>point</th><th>host pair</th><th>time</th>"
         "<th>workload</th><th>error</th></tr></thead><tbody>\n";
    for (const auto& f : m.failed)
      h += "<tr class=\"failed-point\" data-point=\"" + esc(f.id) + "\"><td><code>" + esc(f.id) +
           "</code></td><td>" + or_dash(f.host_pair) + "</td><td class=\"time\">" +
           or_dash(f.time) + "</td><td>" + or_dash(f.workload) + "</td><td><pre>" + esc(f.error) +
           "</pre></td></tr>\n";
    h += "</tbody></table>\n";
  }
  if (!m.skipped.empty()) {
    h += "<details><summary>" + std::to_string(m.skipped.size()) +
         " point(s) skipped as invalid combinations</summary><table><tbody>\n";
    for (const auto& s : m.skipped)
      h += "<tr class=\"skipped-point\"><td><code>" + esc(s.id) + "</code></td><td>" +
           esc(s.reason) + "</td></tr>\n";
    h += "</tbody></table></details>\n";
  }
  h += "</section>\n";
}

void cliffs_section(std::string& h, const ReportModel& m) {
  if (!m.searched_cliffs) return;
  h += "<section id=\"cliffs\"><h2>Cliffs (" + std::to_string(m.cliffs.size()) + ")</h2>\n";
  if (m.cliffs.empty()) {
    h += "<p class=\"ok\">The search found none.</p>\n</section>\n";
    return;
  }
  h +=
      "<table class=\"cliffs\"><thead><tr><th>point</th><th>line</th><th>along</th><th>from</th>"
      "<th>to</th><th>metric</th><th>before</th><th>at</th><th>drop</th><th>shape</th></tr></thead>"
      "<tbody>\n";
  char drop[32];
  for (const auto& c : m.cliffs) {
    snprintf(drop, sizeof drop, "%.1f %%", c.drop * 100);
    h += "<tr class=\"cliff\" data-point=\"" + esc(c.point) + "\"><td><code>" + esc(c.point) +
         "</code></td><td>" + or_dash(c.line) + "</td><td>" + or_dash(c.along) + "</td><td>" +
         or_dash(c.previous_value) + "</td><td>" + or_dash(c.value) + "</td><td>" +
         or_dash(c.metric) + "</td><td class=\"num\">" + num(c.previous) +
         "</td><td class=\"num\">" + num(c.measured) + "</td><td class=\"num bad\">" + drop +
         "</td><td>" + or_dash(c.shape) + "</td></tr>\n";
  }
  h += "</tbody></table>\n</section>\n";
}

std::string opt_num(const std::optional<double>& v) {
  return "<td class=\"num\">" + (v ? num(*v) : std::string("&mdash;")) + "</td>";
}

// The latency probes' verdicts (probe_verdicts.h): the counts, then each probe not ok.
void probe_table(std::string& h, const FabricVerdicts& v) {
  h += "<h3>Latency probes</h3>\n<p class=\"probe-counts\">" + std::to_string(*v.probed) +
       " probe(s) beside the load, each against its link's idle p99 (slow under load: " +
       or_dash(v.probe_criteria) + "): <span class=\"ok\">" + std::to_string(v.probes_ok) +
       " ok</span>, " + std::to_string(v.probes.size()) + " not ok.</p>\n";
  if (v.probes.empty()) return;
  h += "<table class=\"probes\"><thead><tr><th>link (client &rarr; server)</th><th>verdict</th>"
       "<th>round</th><th>size</th><th>p99 &micro;s under load</th><th>p99 &micro;s idle</th>"
       "<th>load/idle</th><th>threshold</th><th>why</th></tr></thead><tbody>\n";
  for (const ProbeRow& r : v.probes)
    h += "<tr class=\"probe\" data-link=\"" + esc(r.link) + "\"><td><code>" + esc(r.link) +
         "</code></td><td class=\"bad\">" + or_dash(r.verdict) + "</td><td>" + or_dash(r.round) +
         "</td><td class=\"num\">" + esc(format_size(r.size)) + "</td>" + opt_num(r.p99_us) +
         opt_num(r.idle_p99_us) + opt_num(r.ratio) + opt_num(r.threshold) + "<td>" +
         or_dash(r.why) + "</td></tr>\n";
  h += "</tbody></table>\n";
}

// A fabric campaign: the verdicts (counts, then each link that is not ok) and the rounds.
void fabric_section(std::string& h, const ReportModel& m) {
  if (!m.verdicts && m.rounds.empty()) return;
  h += "<section id=\"fabric\"><h2>Fabric</h2>\n";
  if (m.verdicts) {
    const FabricVerdicts& v = *m.verdicts;
    const auto count = [&](const char* k) {
      auto it = v.counts.find(k);
      return std::to_string(it == v.counts.end() ? 0 : it->second);
    };
    h += "<h3>Verdicts</h3>\n<p class=\"verdict-counts\">" + std::to_string(v.judged) +
         " link measurement(s) judged against the best link (" + or_dash(v.criteria) +
         "): " + "<span class=\"ok\">" + count("ok") + " ok</span>, " + count("congested") +
         " congested (slow only under the round's load), <span class=\"bad\">" + count("bad") +
         " bad</span>, <span class=\"bad\">" + count("lossy") +
         " lossy</span> (by their counters), " + count("failed") + " failed.</p>\n";
    if (!v.not_ok.empty()) {
      h += "<table class=\"verdicts\"><thead><tr><th>link (client &rarr; server)</th><th>"
           "verdict</th><th>workload</th><th>size</th><th>metric</th><th>value</th><th>best "
           "link</th><th>alone</th><th>loss per million packets</th><th>rules</th><th>why</th>"
           "</tr></thead><tbody>\n";
      for (const VerdictRow& r : v.not_ok)
        h += "<tr class=\"verdict\" data-link=\"" + esc(r.link) + "\"><td><code>" + esc(r.link) +
             "</code></td><td class=\"" + (r.verdict == "congested" ? "" : "bad") + "\">" +
             or_dash(r.verdict) + "</td><td>" + or_dash(r.workload) + "</td><td class=\"num\">" +
             esc(format_size(r.size)) + "</td><td>" + or_dash(r.metric) + "</td>" +
             opt_num(r.value) + opt_num(r.best) + opt_num(r.alone) + opt_num(r.loss_ppm) + "<td>" +
             or_dash(r.rules) + "</td><td>" + or_dash(r.why) + "</td></tr>\n";
      h += "</tbody></table>\n";
    }
    if (v.probed) probe_table(h, v);
  }
  if (!m.rounds.empty()) {
    h += "<h3>Rounds (" + std::to_string(m.rounds.size()) +
         " rows: a round at a message size)</h3>\n<table class=\"rounds\"><thead><tr><th>round"
         "</th><th>workload</th><th>rep.</th><th>flows ok</th><th>size</th><th>total Gb/s</th>"
         "<th>flow Gb/s min / median / max</th><th>fairness (Jain)</th><th>p50 &micro;s "
         "(median flow)</th><th>window overlap</th></tr></thead><tbody>\n";
    for (const RoundRow& r : m.rounds)
      h += "<tr class=\"round\"><td>" + or_dash(r.round) + "</td><td>" + or_dash(r.workload) +
           "</td><td class=\"num\">" + std::to_string(r.repetition) + "</td><td class=\"num\">" +
           std::to_string(r.ok) + " / " + std::to_string(r.flows) + "</td><td class=\"num\">" +
           esc(format_size(r.size)) + "</td>" + opt_num(r.total_gbps) + "<td class=\"num\">" +
           (r.min_gbps ? num(*r.min_gbps) : "&mdash;") + " / " +
           (r.median_gbps ? num(*r.median_gbps) : "&mdash;") + " / " +
           (r.max_gbps ? num(*r.max_gbps) : "&mdash;") + "</td>" + opt_num(r.jain) +
           opt_num(r.p50_us) + "<td class=\"num" + (r.overlap_low ? " bad" : "") + "\">" +
           (r.overlap ? num(*r.overlap * 100) + " %" : "&mdash;") + "</td></tr>\n";
    h += "</tbody></table>\n";
  }
  h += "</section>\n";
}

void environment_section(std::string& h, const ReportModel& m) {
  h += "<section id=\"environment\"><h2>Hosts and devices</h2>\n";
  if (!m.host_envs.empty()) {
    h += "<h3>Captured before the campaign (<code>env/</code>)</h3>\n";
    for (const auto& e : m.host_envs) {
      h += "<table class=\"kv host-env\"><tbody>\n<tr><th>host</th><td><code>" + esc(e.host) +
           "</code></td></tr>\n<tr><th>captured at</th><td>" + or_dash(e.captured_at) +
           "</td></tr>\n<tr><th>rdmabench</th><td>" + or_dash(e.rdmabench_version) + " (" +
           or_dash(e.rdmabench) + ")</td></tr>\n<tr><th>kernel</th><td>" + or_dash(e.kernel) +
           "</td></tr>\n<tr><th>rdma-core</th><td>" + or_dash(e.rdma_core) + "</td></tr>\n";
      for (const auto& d : e.devices)
        h += "<tr><th>device " + esc(d.name) + "</th><td>transport " + or_dash(d.transport) +
             ", firmware " + or_dash(d.fw_ver) + ", vendor " + or_dash(d.vendor) + ", node GUID " +
             or_dash(d.node_guid) + "<br>" + or_dash(d.ports) + "</td></tr>\n";
      if (!e.error.empty())
        h += "<tr><th>devices</th><td class=\"bad\">" + esc(e.error) + "</td></tr>\n";
      h += "</tbody></table>\n";
    }
  }
  h += "<h3>As the runs saw them</h3>\n<table class=\"hosts\"><thead><tr><th>role</th><th>host</th>"
       "<th>kernel</th><th>rdma-core</th><th>device</th><th>transport / link layer</th><th>GID "
       "type</th>"
       "<th>firmware</th><th>hw</th><th>vendor:part</th><th>link</th><th>MTU</th></tr></"
       "thead><tbody>\n";
  for (const auto& r : m.hosts)
    h += "<tr><td>" + esc(r.role) + "</td><td>" + or_dash(r.hostname) + "</td><td>" +
         or_dash(r.kernel) + "</td><td>" + or_dash(r.rdma_core) + "</td><td>" + or_dash(r.device) +
         "</td><td>" + or_dash(r.transport) + " / " + or_dash(r.link_layer) + "</td><td>" +
         or_dash(r.gid_type) + "</td><td>" + or_dash(r.fw_ver) + "</td><td>" + or_dash(r.hw_ver) +
         "</td><td>" + or_dash(r.vendor) + "</td><td>" + or_dash(r.link) + "</td><td>" +
         or_dash(r.mtu) + "</td></tr>\n";
  h += "</tbody></table></section>\n";
}

}  // namespace

std::string figure_title(const std::string& name) {
  if (name == "bandwidth") return "Bandwidth (Gb/s) vs message size";
  if (name == "msgrate") return "Message rate (Mmsg/s) vs message size";
  if (name == "latency") return "Latency percentiles (p50, p99, p99.9) vs message size";
  if (name == "latency_cdf") return "Latency distribution (CDF) at the smallest size";
  if (name == "latency_hist") return "Latency histogram at the smallest size";
  if (name == "bandwidth_time") return "Bandwidth (Gb/s) per interval over time";
  if (name == "latency_time") return "Latency p50 and p99 per interval over time";
  if (name.rfind("hunt_scores", 0) == 0)
    return "Hunt: each evaluation's worst score term (1 = anomalous), anomalies marked";
  if (name.rfind("anomaly_resets", 0) == 0)
    return "An anomaly explained: its score with each factor set back to its baseline";
  if (name.rfind("link_matrix", 0) == 0)
    return "Link matrix: every link of the fabric, server by client (bad links marked)";
  return name;
}

std::string render_report_html(const ReportModel& m, const std::vector<EmbeddedFigure>& figures,
                               const std::string& generated_at) {
  const std::string title =
      "rdmabench report" +
      (m.summary.campaigns.empty() ? "" : ": " + list_text(m.summary.campaigns));
  std::string h;
  h += "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
       "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
       "<meta name=\"rdmabench-figures\" content=\"" +
       std::to_string(figures.size()) +
       "\">\n"
       "<title>" +
       esc(title) + "</title>\n<style>" + kStyle + "</style></head>\n<body>\n<h1>" + esc(title) +
       "</h1>\n";
  summary(h, m);
  figures_section(h, figures, m.figures_note);
  results_section(h, m);
  failures_section(h, m);
  cliffs_section(h, m);
  anomalies_section(h, m.hunts);
  fabric_section(h, m);
  environment_section(h, m);
  h += "<footer>Generated by rdmabench " + esc(kVersion) + " at " + esc(generated_at) +
       " (<code>rdmabench report</code>).</footer>\n</body></html>\n";
  return h;
}

}  // namespace rdmabench
