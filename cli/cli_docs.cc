#include "cli/cli_docs.h"

#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace rdmabench {
namespace {

// Text for roff: a leading '.' or '\'' escaped, backslashes and hyphens of options kept literal.
std::string roff(const std::string& s) {
  std::string out;
  bool line_start = true;
  for (char c : s) {
    if (line_start && (c == '.' || c == '\'')) out += "\\&";
    if (c == '\\') {
      out += "\\e";
    } else if (c == '-') {
      out += "\\-";
    } else {
      out += c;
    }
    line_start = c == '\n';
  }
  return out;
}

std::vector<const CLI::Option*> visible_options(const CLI::App& app) {
  return app.get_options([](const CLI::Option* o) { return !o->get_group().empty(); });
}

std::vector<const CLI::App*> subcommands(const CLI::App& app) {
  return app.get_subcommands([](const CLI::App* s) { return !s->get_group().empty(); });
}

// "-s, --size SIZE" (every spelling; the value name when the option takes one).
std::string spelling(const CLI::Option* o) {
  std::string names;
  for (const auto& s : o->get_snames()) names += (names.empty() ? "-" : ", -") + s;
  for (const auto& l : o->get_lnames()) names += (names.empty() ? "--" : ", --") + l;
  if (o->get_expected_max() != 0 && !o->get_type_name().empty()) names += " " + o->get_type_name();
  return names;
}

void write_options(std::ostream& os, const CLI::App& app) {
  for (const CLI::Option* o : visible_options(app)) {
    if (!o->nonpositional()) continue;
    os << ".TP\n.B " << roff(spelling(o)) << "\n" << roff(o->get_description()) << "\n";
  }
}

// The app's description without a leading "rdmabench - ".
std::string description(const CLI::App& app) {
  std::string d = app.get_description();
  const std::string prefix = "rdmabench - ";
  return d.rfind(prefix, 0) == 0 ? d.substr(prefix.size()) : d;
}

}  // namespace

void write_man_page(std::ostream& os, const CLI::App& app, const std::string& version) {
  os << ".TH RDMABENCH 1 \"\" \"" << roff(version) << "\" \"User Commands\"\n"
     << ".SH NAME\nrdmabench \\- " << roff(description(app)) << "\n"
     << ".SH SYNOPSIS\n.B rdmabench\n.I SUBCOMMAND\n[\\fIOPTIONS\\fR]\n"
     << ".SH DESCRIPTION\nOne tool for RDMA bandwidth and latency: a server, a client whose "
        "options follow perftest's, campaigns over many hosts, figures and reports. "
        "Run \\fBrdmabench help\\fR \\fISUBCOMMAND\\fR for one subcommand's options.\n"
     << ".SH OPTIONS\n";
  write_options(os, app);
  for (const CLI::App* sub : subcommands(app)) {
    os << ".SH \"" << roff("rdmabench " + sub->get_name()) << "\"\n"
       << roff(sub->get_description()) << "\n";
    for (const CLI::Option* o : visible_options(*sub)) {
      if (o->nonpositional()) continue;
      os << ".TP\n.I " << roff(o->get_name()) << "\n" << roff(o->get_description()) << "\n";
    }
    write_options(os, *sub);
    // Its own footer (examples) without the exit statuses, which the page lists once.
    std::string footer = sub->get_footer();
    if (const auto at = footer.find(app.get_footer());
        !app.get_footer().empty() && at != std::string::npos)
      footer.erase(at);
    if (!footer.empty()) os << ".PP\n.nf\n" << roff(footer) << "\n.fi\n";
  }
  if (!app.get_footer().empty())
    os << ".SH \"EXIT STATUS\"\n.nf\n" << roff(app.get_footer()) << "\n.fi\n";
  // What is installed beside the command (under /usr for the Debian package); install_tree
  // checks that every path named here is.
  const std::pair<const char*, const char*> kFiles[] = {
      {"/usr/share/rdmabench/configs/",
       "example campaigns (rdmabench sweep /usr/share/rdmabench/configs/quick.json --dry-run), "
       "and a fabric campaign as a Slurm batch job: "
       "sbatch -N 4 /usr/share/rdmabench/configs/slurm-campaign.sbatch"},
      {"/usr/share/rdmabench/testbed/softroce",
       "the Soft-RoCE testbed (/usr/share/rdmabench/testbed/README.md); "
       "/usr/share/rdmabench/testbed/slurm runs Slurm in its guests"},
      {"/usr/share/doc/rdmabench/",
       "README.md and docs/ (a page per task), campaigns.md (campaign files), SCHEMA.md (result "
       "documents)"}};
  os << ".SH FILES\n";
  for (const auto& [path, what] : kFiles) os << ".TP\n" << roff(path) << "\n" << roff(what) << "\n";
  os << ".SH \"SEE ALSO\"\n/usr/share/doc/rdmabench, /usr/share/rdmabench/configs\n";
}

void write_bash_completion(std::ostream& os, const CLI::App& app) {
  std::string subs;
  std::ostringstream cases;
  for (const CLI::App* sub : subcommands(app)) {
    subs += (subs.empty() ? "" : " ") + sub->get_name();
    std::string opts;
    std::string with_value;
    for (const CLI::Option* o : visible_options(*sub)) {
      if (!o->nonpositional()) continue;
      for (const auto& s : o->get_snames()) {
        opts += " -" + s;
        if (o->get_expected_max() != 0) with_value += "|-" + s;
      }
      for (const auto& l : o->get_lnames()) {
        opts += " --" + l;
        if (o->get_expected_max() != 0) with_value += "|--" + l;
      }
    }
    cases << "    " << sub->get_name() << ")\n";
    if (!with_value.empty())
      cases << "      case $prev in " << with_value.substr(1)
            << ") COMPREPLY=($(compgen -f -- \"$cur\")); return ;; esac\n";
    cases << "      COMPREPLY=($(compgen -W \"" << opts.substr(opts.empty() ? 0 : 1)
          << "\" -- \"$cur\"))\n"
          << "      [[ $cur == -* ]] || COMPREPLY+=($(compgen -f -- \"$cur\"))\n"
          << "      ;;\n";
  }
  os << "# bash completion for rdmabench (generated from its command-line definition)\n"
     << "_rdmabench() {\n"
     << "  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} sub= i\n"
     << "  for ((i = 1; i < COMP_CWORD; i++)); do\n"
     << "    [[ ${COMP_WORDS[i]} != -* ]] && { sub=${COMP_WORDS[i]}; break; }\n"
     << "  done\n"
     << "  case $sub in\n"
     << "    '') COMPREPLY=($(compgen -W \"" << subs << " --help --version\" -- \"$cur\")) ;;\n"
     << cases.str() << "  esac\n"
     << "}\n"
     << "complete -F _rdmabench rdmabench\n";
}

}  // namespace rdmabench
