#pragma once
// The ports' line rate as the result documents describe it (the client device's "speed_gbps"):
// the report's "of link" share of each size and the dashed reference line of the Gb/s figures.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "report/results_set.h"

namespace rdmabench {

// The port's speed a document's device reports, in Gb/s (0 when it does not).
double port_speed_gbps(const nlohmann::json& device);

// What a run's Gb/s can reach: the client port's speed, twice it when both directions are added
// (--bidir); 0 when the speed is unknown.
double link_capacity_gbps(const RunResult& run, bool both_directions);

// A horizontal reference line of a Gb/s figure at a link's rate.
struct LinkLine {
  double gbps = 0;
  std::string label;  // "link 100 Gb/s", "link 2 x 100 Gb/s (both directions)"
  auto operator<=>(const LinkLine&) const = default;
};

// One line per distinct rate among `runs` (ascending), none for runs whose speed is unknown.
// `added_directions`: the figure adds both directions of --bidir runs (their line is then at
// twice the speed); otherwise it shows the client's direction only.
std::vector<LinkLine> link_lines(const std::vector<const ResultFile*>& runs, bool added_directions);

// A link's line is drawn only where it does not squash the data: when the highest point of the
// figure is at least this share of the link's rate. Above that, the line would put the data
// into the bottom quarter of the figure (10.3 Gb/s over a testbed's 0.35 Gb/s), so the rate is
// named in the key instead.
inline constexpr double kLinkLineMinShare = 0.25;

// The gnuplot plot clauses of `lines`, to append to a plot command (line style 100:
// plots/common.gp.in), for data whose highest point is `peak_gbps`: ", <gbps> with lines ls 100
// title "<label>"" for a line drawn; ", keyentry with lines ls 100 title "<label> (off scale:
// the data peak at <peak> Gb/s)"" for a rate named in the key only; "" without lines.
std::string link_plot_clauses(const std::vector<LinkLine>& lines, double peak_gbps);

// The highest Gb/s of `runs`' sizes: both directions added for --bidir runs when
// `added_directions` (the bandwidth figure), else the client's direction and its fastest
// interval (the figure over time).
double peak_gbps(const std::vector<const ResultFile*>& runs, bool added_directions);

}  // namespace rdmabench
