// Subcommands of the admin program `mailwave`.
//
// Each subcommand lives in its own cli/cmd_<name>.cc and registers itself with
// a file-scope `const Registration`. main.cc dispatches on the first argument
// and prints the overview.
#ifndef MW_CLI_COMMAND_H_
#define MW_CLI_COMMAND_H_

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace mw::cli {

// Exit statuses shared by every subcommand.
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;  // unreadable input, runtime failure
inline constexpr int kExitUsage = 2;    // bad command line or configuration

// Options that come before the subcommand name.
struct GlobalOptions {
  std::string
      config_path;  // -c FILE; empty means the default path if it exists
};

struct Command {
  std::string_view name;
  std::string_view summary;  // one line, for `mailwave --help`
  std::string_view
      help;  // full text for `mailwave NAME --help`, man-page style
  // `args` are the arguments after the subcommand name. Returns an exit status.
  int (*run)(const std::vector<std::string>& args, const GlobalOptions& global);
};

class Registration {
 public:
  explicit Registration(const Command& command);
};

// Registered commands, sorted by name.
std::span<const Command> Commands();

}  // namespace mw::cli

#endif  // MW_CLI_COMMAND_H_
