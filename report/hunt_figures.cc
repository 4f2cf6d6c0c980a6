#include "report/hunt_figures.h"

#include <cstdio>

#include "model/workload_fields.h"

namespace rdmabench {
namespace {

std::string with_number(const std::string& base, size_t i) {
  return i == 0 ? base : base + "_" + std::to_string(i + 1);
}

std::string ratio_cell(double r) {
  char b[32];
  std::snprintf(b, sizeof b, "%.6g", r);
  return b;
}

Figure scores_figure(const HuntRecord& r, const std::string& name, const std::string& format) {
  std::string blocks;
  for (const char* step : {"search", "repeat", "reset", "confirm"}) {
    std::string rows;
    for (const HuntScorePoint& s : r.scores)
      if (s.step == step) rows += std::to_string(s.evaluation) + " " + ratio_cell(s.worst) + "\n";
    // gnuplot needs a row in every block it indexes: an empty step gets one off the plot.
    blocks += (rows.empty() ? std::string("-1 0.001\n") : rows) + "\n\n";
  }
  std::string found;
  for (size_t i = 0; i < r.anomalies.size(); ++i)
    found += std::to_string(r.anomalies[i].found_at) + " " +
             ratio_cell(r.anomalies[i].found.worst()) + " \"#" + std::to_string(i + 1) + "\"\n";
  blocks += found.empty() ? std::string("-1 0.001 \"\"\n") : found;
  const std::string title =
      "Hunt: the score of each evaluation (" + std::to_string(r.anomalies.size()) + " anomalies)";
  return template_figure(
      name, "hunt_scores",
      "# rdmabench plot data of " + name + ".gp: " + title +
          "\n# blocks: search, repeat, reset, confirm (evaluation worst_ratio), "
          "then the anomalies (evaluation worst_ratio label)\n" +
          blocks,
      format, false,
      {{"TITLE", gnuplot_string(title)}, {"XMAX", std::to_string(r.evaluations + 1)}});
}

Figure resets_figure(const HuntAnomaly& a, size_t n, const std::string& name,
                     const std::string& format) {
  std::string rows = "\"found\" " + ratio_cell(a.found.worst()) + "\n";
  for (const HuntReset& r : a.resets) {
    if (!r.score) continue;  // refused: nothing measured
    rows += "\"" + gnuplot_string(r.factor + " back") + "\"" + " " + ratio_cell(r.score->worst()) +
            "\n";
  }
  if (a.confirm) rows += "\"confirm\" " + ratio_cell(a.confirm->worst()) + "\n";
  const std::string title =
      "Anomaly " + std::to_string(n) + ": trigger " + describe_values(a.trigger);
  return template_figure(name, "anomaly_resets",
                         "# rdmabench plot data of " + name + ".gp: " + title +
                             "\n# step worst_ratio (each factor set back in turn, on top of "
                             "those left at their baseline)\n" +
                             rows,
                         format, false, {{"TITLE", gnuplot_string(title)}});
}

}  // namespace

std::vector<Figure> hunt_figures(const std::vector<HuntRecord>& hunts, const std::string& format) {
  std::vector<Figure> out;
  size_t anomalies = 0;
  for (size_t h = 0; h < hunts.size(); ++h) {
    out.push_back(scores_figure(hunts[h], with_number("hunt_scores", h), format));
    for (size_t i = 0; i < hunts[h].anomalies.size(); ++i, ++anomalies)
      out.push_back(resets_figure(hunts[h].anomalies[i], i + 1,
                                  with_number("anomaly_resets", anomalies), format));
  }
  return out;
}

}  // namespace rdmabench
