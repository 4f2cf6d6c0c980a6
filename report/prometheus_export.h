#pragma once
// `rdmabench export --prometheus`: the Prometheus text exposition format (version 0.0.4), as
// node_exporter's textfile collector reads it. Every metric is a gauge with its HELP and TYPE:
//   rdmabench_throughput_bytes_per_second, rdmabench_message_rate_per_second   per point and size
//   rdmabench_latency_seconds{percentile="50"|"99"|"99.9"}                    per point and size
//   rdmabench_port_delta{side, counter}                                per point
//   rdmabench_points{status}, rdmabench_link_verdicts{verdict}                 per campaign
//   rdmabench_link_not_ok{link, verdict, ...} = 1                              per link not ok
// labelled by campaign, host, peer, device, port, op, qp, mode and size where they apply; never
// by a point id or a time, so that the label sets stay bounded: repetitions of one point share
// its labels and give their median. Label values are escaped as the format requires (\\, \",
// \n). Written by hand: Debian has no Prometheus client library for C++.
#include <string>

#include "report/export_set.h"

namespace rdmabench {

std::string prometheus_text(const ExportSet& set);

// A label value as the format writes it between its quotes.
std::string prometheus_label_value(const std::string& v);

}  // namespace rdmabench
