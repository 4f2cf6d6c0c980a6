#pragma once
// The HTML page of `rdmabench report`: one self-contained file (inline CSS, images as data:
// URIs, no script, nothing fetched). Every string from the results is HTML-escaped.
#include <string>
#include <vector>

#include "report/report_model.h"

namespace rdmabench {

struct EmbeddedFigure {
  std::string name;   // bandwidth, msgrate, latency, latency_cdf, latency_hist
  std::string title;  // caption
  std::string uri;    // data:image/png;base64,... (or image/svg+xml)
};

// `generated_at`: ISO 8601 UTC, shown in the footer with rdmabench's version.
std::string render_report_html(const ReportModel& m, const std::vector<EmbeddedFigure>& figures,
                               const std::string& generated_at);

// Caption of a figure of `rdmabench plot` by name (the name itself for an unknown one).
std::string figure_title(const std::string& name);

}  // namespace rdmabench
