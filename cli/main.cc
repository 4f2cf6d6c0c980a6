// rdmabench command line: devices, server, client, sweep, plot, export, report, compare. The
// definition and the subcommands are in cli/cli_app.h; every error is caught there and printed
// as one message; the exit status is 2 for bad input, 1 for a failed run.
#include "cli/cli_app.h"

int main(int argc, char** argv) { return rdmabench::run_cli(*rdmabench::make_cli(), argc, argv); }
