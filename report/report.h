#pragma once
// `rdmabench report`: one self-contained HTML page of result folders or files (report_model.h,
// report_html.h), with the figures of `rdmabench plot` embedded.
#include <iosfwd>
#include <string>
#include <vector>

namespace rdmabench {

struct ReportOptions {
  std::vector<std::string> inputs;  // result folders (a sweep's, or any) or files
  std::string out_file;             // "" = <first input folder>/report.html
  std::string format = "png";       // of the embedded figures: png or svg
};

// Loads everything, renders the figures with gnuplot in a temporary folder (removed after),
// and writes the page atomically. Inputs, options and gnuplot are checked before anything is
// written. Returns the page's path; notes go to `notes`.
std::string run_report(const ReportOptions& opt, std::ostream& notes);

}  // namespace rdmabench
