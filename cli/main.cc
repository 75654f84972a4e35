// mailwave: the administration program of the mailwave mail filter.
//
// Runs the same pure pipeline as the milter daemon on files given on the
// command line (extract, fingerprint, compare, langid), and maintains the data
// the daemon reads (language dictionaries, the store). It never talks to an
// MTA.
//
// Configuration: the TOML file given with -c, else /etc/mailwave/mailwave.toml
// when it exists, else the built-in defaults. Security posture: reads the files
// it is given and writes only where told to (--out); it needs no privileges and
// should be run as an ordinary user.
#include <algorithm>
#include <csignal>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "cli/command.h"
#include "cli/util.h"
#include "mime/message.h"
#include "mw/roff.h"

namespace {

void PrintOverview(std::ostream& os) {
  os << "Usage: mailwave [-c FILE] COMMAND [ARGS...]\n"
        "       mailwave COMMAND --help\n"
        "       mailwave help [COMMAND]\n"
        "\n"
        "Administration program of the mailwave mail filter: runs the "
        "milter's analysis\n"
        "on messages and maintains the data the milter reads.\n"
        "\n"
        "Options:\n"
        "  -c, --config FILE  configuration file (default: "
        "/etc/mailwave/mailwave.toml\n"
        "                     when it exists, else the built-in defaults)\n"
        "  -h, --help         this text\n"
        "      --version      print the version\n"
        "\n"
        "Commands:\n";
  for (const auto& c : mw::cli::Commands()) {
    std::string name(c.name);
    name.resize(std::max<size_t>(name.size(), 12), ' ');
    os << "  " << name << "  " << c.summary << '\n';
  }
  os << "\n"
        "Every FILE is an RFC 822 message unless a command's --text says "
        "otherwise; - is\n"
        "standard input. Input is read up to [mime] max_bytes. -- ends the "
        "options.\n"
        "\n"
        "Exit status: 0 success, 1 unreadable input, runtime or write "
        "failure, 2 usage\n"
        "or configuration error, always with one line on standard error.\n";
}

const mw::cli::Command* FindCommand(std::string_view name) {
  for (const auto& c : mw::cli::Commands()) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

// True when -h or --help comes before "--": then the command prints its help
// whatever else is given ("mailwave dict build --help").
bool WantsHelp(const std::vector<std::string>& args) {
  for (const std::string& a : args) {
    if (a == "--") return false;
    if (mw::cli::IsHelp(a)) return true;
  }
  return false;
}

// mailwave(8): the overview and every command's --help, as laid out on the
// terminal, so the page says what the program says.
std::string ManPage() {
  namespace r = mw::roff;
  std::ostringstream overview;
  PrintOverview(overview);
  std::string out = r::Title("MAILWAVE", "8", "", "mailwave " MW_VERSION,
                             "System Manager's Manual");
  out += r::Section("NAME");
  out += "mailwave \\- administration program of the mailwave mail filter\n";
  out += r::Section("DESCRIPTION");
  out += r::Preformatted(overview.str());
  out += r::Section("COMMANDS");
  for (const auto& c : mw::cli::Commands()) {
    out += r::Subsection(c.name);
    out += r::Preformatted(c.help);
  }
  out += r::Section("FILES");
  out += r::Tagged("/etc/mailwave/mailwave.toml",
                   "the configuration, when no -c is given (mailwave.toml(5))");
  out += r::Section("SEE ALSO");
  out +=
      "mailwave.toml(5), mailwave\\-milter(8), postfix(1), spamassassin(1)\n";
  return out;
}

constexpr std::string_view kHelpHelp =
    R"(Usage: mailwave help [COMMAND]
       mailwave help --man

Prints the overview of mailwave, or the help of COMMAND: "mailwave help
COMMAND" prints the same as "mailwave COMMAND --help". --man prints the man
page mailwave(8) in roff: the overview and every command's help (the build
installs it; man -l - reads it).

Exit status:
  0  success
  1  output could not be written
  2  unknown COMMAND
)";

int RunHelp(const std::vector<std::string>& args,
            const mw::cli::GlobalOptions&) {
  using mw::cli::Complain;
  if (args.empty()) {
    PrintOverview(std::cout);
    return mw::cli::kExitOk;
  }
  if (args.size() == 1 && args[0] == "--man") {
    std::cout << ManPage();
    return mw::cli::kExitOk;
  }
  const mw::cli::Command* c = FindCommand(args[0]);
  if (c == nullptr) {
    return Complain("help", "unknown command '" + args[0] + "'",
                    mw::cli::kExitUsage);
  }
  if (args.size() > 2) {
    return Complain("help", "give one COMMAND (try mailwave help help)",
                    mw::cli::kExitUsage);
  }
  std::cout << c->help;
  return mw::cli::kExitOk;
}

const mw::cli::Registration kHelpReg({"help",
                                      "the overview, or the help of a command",
                                      kHelpHelp, &RunHelp});

}  // namespace

int main(int argc, char** argv) {
  using mw::cli::Complain;
  // A closed pipe is a write error like any other (exit 1 with one line), not
  // a silent death by SIGPIPE.
  std::signal(SIGPIPE, SIG_IGN);
  mw::cli::InstallStdout();
  mw::cli::GlobalOptions global;
  int i = 1;
  for (; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "-c" || a == "--config") {
      if (i + 1 >= argc)
        return Complain("", a + " needs a file name", mw::cli::kExitUsage);
      global.config_path = argv[++i];
    } else if (a.rfind("--config=", 0) == 0) {
      global.config_path = a.substr(9);
    } else if (mw::cli::IsHelp(a)) {
      PrintOverview(std::cout);
      return mw::cli::OutputStatus("");
    } else if (a == "--version") {
      std::cout << "mailwave " MW_VERSION "\n";
      return mw::cli::OutputStatus("");
    } else if (!a.empty() && a[0] == '-') {
      return Complain("", "unknown option " + a + " (try mailwave --help)",
                      mw::cli::kExitUsage);
    } else {
      break;
    }
  }
  if (i >= argc) {
    PrintOverview(std::cerr);
    return mw::cli::kExitUsage;
  }
  const std::string name = argv[i];
  std::vector<std::string> args(argv + i + 1, argv + argc);
  const mw::cli::Command* c = FindCommand(name);
  if (c == nullptr) {
    return Complain("", "unknown command '" + name + "' (try mailwave --help)",
                    mw::cli::kExitUsage);
  }
  if (WantsHelp(args)) {
    std::cout << c->help;
    return mw::cli::OutputStatus(name);
  }
  mw::mime::Init();
  int status;
  try {
    status = c->run(args, global);
  } catch (const std::exception& e) {
    return Complain(name, std::string("internal error: ") + e.what(),
                    mw::cli::kExitFailure);
  }
  // Every command ends here: what it printed is flushed, and a write error
  // (a full disk, a closed pipe) is exit status 1 with one line, never 0.
  const int output = mw::cli::OutputStatus(name);
  return output != mw::cli::kExitOk ? output : status;
}
