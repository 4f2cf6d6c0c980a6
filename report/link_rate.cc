#include "report/link_rate.h"

#include <algorithm>
#include <set>

#include "base/number_text.h"
#include "report/data_table.h"
#include "report/figures.h"

namespace rdmabench {

double port_speed_gbps(const nlohmann::json& device) {
  const auto it = device.is_object() ? device.find("speed_gbps") : device.end();
  return device.is_object() && it != device.end() && it->is_number() ? it->get<double>() : 0.0;
}

double link_capacity_gbps(const RunResult& run, bool both_directions) {
  const double speed = port_speed_gbps(run.client_device);
  return both_directions ? 2 * speed : speed;
}

std::vector<LinkLine> link_lines(const std::vector<const ResultFile*>& runs,
                                 bool added_directions) {
  std::set<LinkLine> lines;
  for (const auto* r : runs) {
    const double speed = port_speed_gbps(r->run.client_device);
    if (speed <= 0) continue;
    if (added_directions && r->run.workload.bidir)
      lines.insert({2 * speed, "link 2 x " + format_number(speed) + " Gb/s (both directions)"});
    else
      lines.insert({speed, "link " + format_number(speed) + " Gb/s"});
  }
  return {lines.begin(), lines.end()};
}

std::string link_plot_clauses(const std::vector<LinkLine>& lines, double peak_gbps) {
  std::string out;
  for (const auto& l : lines) {
    out += ", \\\n     ";
    if (peak_gbps >= kLinkLineMinShare * l.gbps)
      out += format_number(l.gbps) + " with lines ls 100 title \"" + gnuplot_string(l.label) + "\"";
    else
      out += "keyentry with lines ls 100 title \"" +
             gnuplot_string(l.label + " (off scale: the data peak at " + three_digits(peak_gbps) +
                            " Gb/s)") +
             "\"";
  }
  return out;
}

double peak_gbps(const std::vector<const ResultFile*>& runs, bool added_directions) {
  double peak = 0;
  for (const auto* r : runs)
    for (const auto& s : r->run.results) {
      peak = std::max(peak, s.gbps + (added_directions && s.reverse ? s.reverse->gbps : 0));
      // The figures over time draw each interval: their fastest one.
      if (!added_directions) peak = std::max(peak, s.bw_peak_gbps.value_or(0));
    }
  return peak;
}

}  // namespace rdmabench
