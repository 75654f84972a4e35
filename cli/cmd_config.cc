// mailwave config: show and check the configuration (postconf -d / -n
// analogues).
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "cli/command.h"
#include "cli/util.h"
#include "config/config.h"

namespace mw::cli {
namespace {

constexpr std::string_view kHelp = R"(Usage: mailwave config --defaults
       mailwave [-c FILE] config --changed
       mailwave [-c FILE] config --check
       mailwave config --example
       mailwave config --man
       mailwave config --help

Shows and validates the configuration of mailwave. The programs read one TOML
file: the one given with -c, else /etc/mailwave/mailwave.toml when it exists,
else nothing, and the built-in defaults apply. The file has one table per
module ([mime], [fingerprint], [langid], ...) and lists only the parameters it
changes. Unknown tables and keys, values of the wrong type and values out of
bounds are errors; nothing is silently ignored.

Values: sizes are bytes, as an integer or a string with a unit ("512B",
"20KiB", "4MiB", "1GiB"; decimal "20kB", "4MB"); durations are strings
("500ms", "30s", "5m", "1m30s"); counts are integers, numbers may be integers
or floats, switches are true or false.

Options (exactly one):
  --defaults  print every parameter with its built-in default, its meaning
              and its bounds, as TOML (like postconf -d). The configuration
              file is not read.
  --changed   print, as TOML, only the parameters whose value in the
              configuration file differs from the default (like postconf -n);
              nothing when none does.
  --check     validate the configuration file and print "FILE: ok". Without
              -c, checks /etc/mailwave/mailwave.toml, and says so when it
              does not exist.
  --example   print the documented example file, every parameter commented
              out (the source of config/mailwave.toml).
  --man       print the man page mailwave.toml(5) in roff, from the same
              list (the build installs it; man -l - reads it).
  -h, --help  this text

Errors name the file, the line and the parameter, on one line, for example
  mailwave: mailwave.toml:12: mime.max_bytes: must be between 1 KiB and 1 GiB
  mailwave: mailwave.toml:3: mime.max_prts: unknown key (did you mean
  mime.max_parts?)
Every command reports a configuration error this way, with exit status 2.

Exit status:
  0  success (for --check: the file is valid, or there is no file and the
     defaults apply)
  1  output could not be written
  2  usage error, or a configuration file that is missing (-c), unreadable or
     invalid

Examples:
  mailwave config --defaults | less
  mailwave -c /etc/mailwave/mailwave.toml config --check
  mailwave config --changed
  mailwave config --example > mailwave.toml
)";

constexpr std::string_view kName = "config";

int Run(const std::vector<std::string>& all_args, const GlobalOptions& global) {
  // config takes no FILE: "--" ends nothing but is accepted, like everywhere.
  std::vector<std::string> args;
  for (std::size_t i = 0; i < all_args.size(); ++i) {
    if (all_args[i] != "--") {
      args.push_back(all_args[i]);
      continue;
    }
    if (i + 1 < all_args.size()) {
      return Complain(kName, "takes no FILE: " + all_args[i + 1], kExitUsage);
    }
  }
  if (args.size() != 1) {
    return Complain(
        kName,
        args.empty()
            ? "choose one of --defaults, --changed, --check, --example, --man "
              "(try mailwave config --help)"
            : "give only one option (try mailwave config --help)",
        kExitUsage);
  }
  const std::string& mode = args[0];
  if (mode == "--defaults") {
    std::cout << config::RenderDefaults();
    return kExitOk;
  }
  if (mode == "--example") {
    std::cout << config::RenderExample();
    return kExitOk;
  }
  if (mode == "--man") {
    std::cout << config::RenderManPage(MW_VERSION);
    return kExitOk;
  }
  if (mode == "--changed") {
    auto settings = LoadSettings(global);
    if (!settings) return ConfigFailure(settings.error());
    std::cout << config::RenderChanged(*settings);
    return kExitOk;
  }
  if (mode == "--check") {
    auto settings = LoadSettings(global);
    if (!settings) return ConfigFailure(settings.error());
    if (!global.config_path.empty()) {
      std::cout << global.config_path << ": ok\n";
    } else {
      // Load() read the default file only if it exists; an exists/read race is
      // harmless here.
      std::error_code ec;
      const std::string path(config::kDefaultPath);
      if (std::filesystem::exists(path, ec)) {
        std::cout << path << ": ok\n";
      } else {
        std::cout << path << ": does not exist; the built-in defaults apply\n";
      }
    }
    return kExitOk;
  }
  return Complain(kName,
                  "unknown option " + mode + " (try mailwave config --help)",
                  kExitUsage);
}

const Registration kReg(
    {kName, "show or check the configuration (defaults, changes, validity)",
     kHelp, &Run});

}  // namespace
}  // namespace mw::cli
