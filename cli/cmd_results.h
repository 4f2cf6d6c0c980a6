#pragma once
// The subcommands that read result documents: plot, export, report and compare (report/).
#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "report/compare.h"
#include "report/plot.h"
#include "report/report.h"

namespace rdmabench {

struct ExportArgs {
  bool csv = false;
  bool junit = false;
  bool prometheus = false;
  std::vector<std::string> inputs;
  std::string file;  // "" = stdout
};

CLI::App* add_plot_command(CLI::App& app, PlotOptions& o);
CLI::App* add_export_command(CLI::App& app, ExportArgs& a);
CLI::App* add_report_command(CLI::App& app, ReportOptions& o);
CLI::App* add_compare_command(CLI::App& app, CompareOptions& o);

// Each runs its subcommand and returns its exit status; ConfigError for bad input.
int run_plot_command(const PlotOptions& o);
int run_export_command(const ExportArgs& a);
int run_report_command(const ReportOptions& o);
int run_compare_command(const CompareOptions& o);

}  // namespace rdmabench
