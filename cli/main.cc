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
#include <csignal>
#include <iostream>
#include <string>
#include <vector>

#include "cli/command.h"
#include "cli/util.h"
#include "mime/message.h"

namespace {

void PrintOverview(std::ostream& os) {
  os << "Usage: mailwave [-c FILE] COMMAND [ARGS...]\n"
        "       mailwave COMMAND --help\n"
        "\n"
        "Administration program of the mailwave mail filter: runs the milter's "
        "analysis on\n"
        "single messages and maintains the data the milter reads.\n"
        "\n"
        "Options:\n"
        "  -c, --config FILE  configuration file (default "
        "/etc/mailwave/mailwave.toml when it\n"
        "                     exists, else the built-in defaults)\n"
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
        "Exit status: 0 success, 1 unreadable input or runtime failure, 2 "
        "usage or\n"
        "configuration error.\n";
}

}  // namespace

int main(int argc, char** argv) {
  using mw::cli::Complain;
  // A closed pipe is a write error like any other (exit 1 with one line), not
  // a silent death by SIGPIPE.
  std::signal(SIGPIPE, SIG_IGN);
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
      return mw::cli::kExitOk;
    } else if (a == "--version") {
      std::cout << "mailwave " MW_VERSION "\n";
      return mw::cli::kExitOk;
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
  for (const auto& c : mw::cli::Commands()) {
    if (c.name != name) continue;
    if (!args.empty() && mw::cli::IsHelp(args[0])) {
      std::cout << c.help;
      return mw::cli::kExitOk;
    }
    mw::mime::Init();
    try {
      return c.run(args, global);
    } catch (const std::exception& e) {
      return Complain(name, std::string("internal error: ") + e.what(),
                      mw::cli::kExitFailure);
    }
  }
  return Complain("", "unknown command '" + name + "' (try mailwave --help)",
                  mw::cli::kExitUsage);
}
